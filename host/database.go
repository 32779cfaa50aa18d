package host

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/host/internal/dbgate"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/logtext"
)

// CheckDatabases is the check of [Host.Ready] that pings the app's
// databases: each PostgreSQL one, and each SQLite file in use.
const CheckDatabases = "databases"

// openDatabases makes the app's set of databases (package appdb), which
// opens each on first use: endpoints.json's merged with
// Options.Databases (overlay.Databases), checked as the file's are.
func (h lifecycle) openDatabases() error {
	if err := config.CheckDatabases("host.Options.Databases merged with "+config.File, h.opts.Databases); err != nil {
		return err
	}
	h.dbs = appdb.New(h.app, h.opts.Databases)
	h.dbs.SetMaxRowBytes(int(h.opts.Limits.WithDefaults().SQLResultBytes))
	return nil
}

// logDatabases says, at the start, where each of the app's databases is
// (appdb.Set.Location: a PostgreSQL one as its url and libpq's
// environment resolve, never its password), so that the operator sees
// which server a deployment reached; nothing from a host that leaves the
// databases alone (SkipMigrations). One that cannot be opened (libpq's
// environment names no server) is an error its first statement repeats.
func (h lifecycle) logDatabases(ctx context.Context) {
	if h.opts.SkipMigrations || h.dbs == nil {
		return
	}
	for _, name := range h.dbs.Names() {
		where, err := h.dbs.Location(ctx, name)
		if err != nil {
			h.logger.Error("database cannot be opened: the calls that use it fail", "database", name, "error", err)
			continue
		}
		h.logger.Info("database", "database", name, "location", where)
	}
}

// Migrate applies the migrations not yet applied (server/migrations), at
// each load: a failure fails the load, and at a reload the previous
// version keeps serving. A database that cannot be reached is no
// failure: its migrations wait, the calls that use it answer 503
// (dbgate.WaitsError), and they are tried again in the background until
// they are applied (dbgate.Retry).
func (h loadSide) Migrate(ctx context.Context) error {
	if h.opts.SkipMigrations {
		return nil
	}
	return h.dbRetry.Migrate(ctx, h.dbs, h.logger, dbBackoff)
}

// Unapplied lists the migration files (server/migrations) not applied
// yet, as `endpoints migrate --dry-run` does: none when the host skips
// migrations.
func (h loadSide) Unapplied(ctx context.Context) ([]string, error) {
	if h.opts.SkipMigrations || h.dbs == nil {
		return nil, nil
	}
	ms, err := h.dbs.Migrate(ctx, appdb.MigrateOptions{DryRun: true})
	if err != nil {
		return nil, err
	}
	files := make([]string, len(ms))
	for i, m := range ms {
		files[i] = m.File
	}
	return files, nil
}

// dbBackoff is the wait between attempts; tests make it short.
var dbBackoff = appdb.Backoff{Min: appdb.DefaultBackoffMin, Max: appdb.DefaultBackoffMax}

func (h lifecycle) closeDatabases() {
	if h.dbs == nil {
		return
	}
	h.dbRetry.Close()
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
		deadline, maxResult := c.clock.Deadline(), int(c.set.Limits.SQLResultBytes)
		if c.dbKept == nil {
			// The hooks are bound to c, which the pool hands to every
			// request it serves.
			// Statements end when the host stops its calls at shutdown
			// (Stop), as outbound requests do, not at the call's deadline.
			hooks := appdb.Hooks{Done: c.dbDone, Stop: c.host.statements}
			if o := c.host.opts.Observer; o != nil && o.Span != nil {
				// Without a Span hook, no statement is redacted for one.
				hooks.Span = c.dbSpan
			}
			c.dbKept = dbgate.New(appdb.NewSession(c.host.dbs, c.call, deadline, maxResult, hooks), c.host.dbs)
		} else {
			c.dbKept.Restart(c.host.dbs, c.call, deadline, maxResult)
		}
		c.db = c.dbKept
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
		c.logger.Warn("the call ended with a database transaction open: rolled back", "route", c.route.Name, "transactions", n)
	}
	if code := c.db.LastError(); code != "" {
		rc := c.requestCall()
		noteDatabaseError(rc.resp.Writer(), string(code))
	}
	c.db = nil
}

// FinishHeader adds Retry-After to the headers h of a 503 answer (the
// guest's or its middleware's) of a call during which a statement failed
// unavailable or busy, unless the guest or its middleware set one: an
// SDK answers 503 for such a database error, and the client is told when
// to try again as when the host answers a call whose database waits for
// its migrations (answerDatabaseWaits), with the same value
// (dbgate.Retry.RetryAfter: the seconds until the host's next attempt,
// else 1). busy counts too: it is a lock held past the busy timeout or a
// transaction that could not be serialized, which a retry a moment later
// may well pass, so the SDKs answer it 503 as they do unavailable, and a
// client that retries after a second rather than at once gives the lock
// time to go. It implements guestanswer.Finisher for the streamed
// answers; the host calls it for the buffered ones.
func (c *call) FinishHeader(status int, h http.Header) {
	if status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" && c.databaseDown() {
		h.Set("Retry-After", c.host.dbRetry.RetryAfter())
	}
}

// databaseDown reports whether a statement of the call failed unavailable
// or busy: a 503 the guest then answers is the database's answer, made
// by its SDK on the host's behalf as the host makes it for a guest that
// fails (answerDatabaseOutage), not one of the guest's own responses, so
// the response check (stepCheckAnswer) lets it pass as it does the
// host's.
func (c *call) databaseDown() bool {
	return c.db != nil && (c.db.Failed(database.CodeUnavailable) || c.db.Failed(database.CodeBusy))
}

// databaseOutage is the code (unavailable, busy) of the database outage
// that a failed call of c (a trap, an error result; err and the call's
// answer say which) is to be answered for, "" when it is a failure of
// its own: the call's last statement failed unavailable or busy (a
// rollback aside: appdb.Session.Outage), and the
// guest set no status of its own, passed no host limit, was not stopped
// by the host's shutdown and still has its client. Whatever the guest
// did with the error (a C abort, a Rust panic or Err, an AssemblyScript
// throw), the database is what failed: the host answers 503 with
// Retry-After (answerDatabaseOutage), as it answers a call whose database
// waits. A guest that chose its status (500, 502...) keeps it.
func (h requestSide) databaseOutage(c *call, r *http.Request, err error) database.Code {
	if c.db == nil || c.resp.StatusSet() || c.resp.Fault() != "" || r.Context().Err() != nil ||
		guestfail.Interrupted(err) && lifecycle(h).stopping() {
		return ""
	}
	return c.db.Outage()
}

// answerDatabaseOutage answers a call that failed after its database was
// down or held (databaseOutage gave code): 503 with the Retry-After of a
// call whose database waits, logged as the outage (a warning: that the
// database is down is logged once, by dbstate, when it goes), and, in
// development, why the guest failed, where (the route or middleware) and
// its output.
func (h requestSide) answerDatabaseOutage(w http.ResponseWriter, r *http.Request, c *call, code database.Code, reason string, where guestfail.Data) {
	h.logger.Warn("guest failed after its database was "+string(code)+": answered 503", "route", where.Route, "middleware", where.Middleware,
		"method", r.Method, "path", logtext.Cut(r.URL.Path), "requestId", c.rq.ID, "code", string(code), "reason", reason)
	w.Header().Set("Retry-After", h.dbRetry.RetryAfter())
	var data any
	if h.opts.Mode == Development {
		where.Error = "the database was " + string(code) + ", then " + reason
		where.Output = c.logs.Output()
		data = where
	}
	writeError(w, r, http.StatusServiceUnavailable, "", data)
}

// dbSpan begins the span of a statement for the Span hook: its text with
// its literals replaced by "?", and it ends with the statement's error
// redacted (appdb.Hooks).
func (c *call) dbSpan(db, system, statement string) func(error) {
	if o := c.host.opts.Observer; o == nil || o.Span == nil {
		return nil
	}
	return c.beginSpan(SpanEvent{Step: StepDatabase, Op: statement, Database: db, DBSystem: system})
}

// dbDone notes a statement's outcome (a database that stops or starts
// answering is logged) and reports it to the Database hook; err is
// redacted (appdb.Hooks): it holds none of the guest's values.
func (c *call) dbDone(db string, d time.Duration, err error) {
	if errors.Is(err, database.ErrPoolFull) {
		c.host.dbState.PoolFull(c.host.logger, db, err)
	} else {
		c.host.dbState.Note(c.host.logger, db, err, err != nil && database.CodeOf(err) == database.CodeUnavailable)
	}
	o := c.host.opts.Observer
	if o == nil || o.Database == nil {
		return
	}
	e := DatabaseEvent{Database: db, Duration: d, Err: err}
	if err != nil {
		e.Code = string(database.CodeOf(err))
	}
	if c.route != nil {
		e.Route = c.route.Pattern
	}
	o.Database(e)
}

// answerDatabaseWaits answers a call stopped because a database it used
// waits for its migrations: 503 with Retry-After, as a database that is
// down makes the app's code answer, and, in development, which database,
// why, and the route or middleware (where) that used it.
func (h requestSide) answerDatabaseWaits(w http.ResponseWriter, r *http.Request, waits *dbgate.WaitsError, where guestfail.Data) {
	h.logger.Debug("call stopped: its database waits for its migrations", "route", where.Route, "middleware", where.Middleware, "database", waits.Database, "error", waits.Err)
	w.Header().Set("Retry-After", h.dbRetry.RetryAfter())
	var data any
	if h.opts.Mode == Development {
		where.Error = waits.Error()
		data = where
	}
	writeError(w, r, http.StatusServiceUnavailable, "", data)
}
