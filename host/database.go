package host

import (
	"context"
	"maps"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// CheckDatabases is the check of [Host.Ready] that pings the app's
// databases: each PostgreSQL one, and each SQLite file in use.
const CheckDatabases = "databases"

// openDatabases makes the app's set of databases (package appdb), which
// opens each on first use.
func (h *Host) openDatabases(cfg *config.App) {
	h.dbs = appdb.New(h.app, cfg.Databases)
}

// migrate applies the migrations not yet applied (server/migrations), at
// each load: a failure fails the load, and at a reload the previous
// version keeps serving.
func (h *Host) migrate(ctx context.Context) error {
	applied, err := h.dbs.Migrate(ctx, appdb.MigrateOptions{})
	for _, m := range applied {
		h.logger.Info("migration applied", "file", m.File, "database", m.Database)
	}
	return err
}

func (h *Host) closeDatabases() {
	if h.dbs == nil {
		return
	}
	if err := h.dbs.Close(); err != nil {
		h.logger.Warn("closing the databases failed", "error", err)
	}
}

// Databases is the call's session with its app's databases, made at its
// first db_* call.
func (c guestCall) Databases() abihost.Databases {
	if c.host == nil || c.host.dbs == nil {
		return nil
	}
	if c.db == nil {
		c.db = appdb.NewSession(c.host.dbs, c.call, time.Unix(0, c.deadline), int(limitSQLResultBytes(c.set.opts.Limits)), appdb.Hooks{Span: c.dbSpan, Done: c.dbDone})
	}
	return c.db
}

// endDatabases rolls back what the call left open: a transaction the guest
// did not commit before it returned, trapped or passed its deadline.
func (c *call) endDatabases() {
	if c.db == nil {
		return
	}
	if n := c.db.Close(); n > 0 && c.route != nil {
		c.logger.Warn("the call ended with a database transaction open: rolled back", "route", c.route.file, "transactions", n)
	}
	if code := c.db.LastError(); code != "" {
		rc := c.requestCall()
		w := rc.out
		if w == nil {
			w = rc.w
		}
		noteDatabaseError(w, string(code))
	}
	c.db = nil
}

// dbSpan begins the span of a statement for the Span hook.
func (c *call) dbSpan(db, system, statement string) func(error) {
	if o := c.host.opts.Observer; o == nil || o.Span == nil {
		return nil
	}
	return c.beginSpan(SpanEvent{Step: StepDatabase, Op: statement, Database: db, DBSystem: system})
}

// dbDone reports a statement to the Database hook.
func (c *call) dbDone(db string, d time.Duration, err error) {
	o := c.host.observer()
	if o == nil || o.Database == nil {
		return
	}
	e := DatabaseEvent{Database: db, Duration: d, Err: err}
	if err != nil {
		e.Code = string(database.CodeOf(err))
	}
	if c.route != nil {
		e.Route = c.route.pattern
	}
	o.Database(e)
}

func limitSQLResultBytes(l config.Limits) int64 {
	return l.WithDefaults().SQLResultBytes
}

// databasesChanged reports whether endpoints.json's databases changed, which
// takes a restart.
func databasesChanged(old, cur *config.App) bool {
	return !maps.Equal(old.Databases, cur.Databases)
}
