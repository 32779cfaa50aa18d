package host

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// CheckDatabases is the check of [Host.Ready] that pings the app's
// databases: each PostgreSQL one, and each SQLite file in use.
const CheckDatabases = "databases"

// openDatabases makes the app's set of databases (package appdb), which
// opens each on first use: endpoints.json's merged with
// Options.Databases (see mergeDatabases), checked as the file's are.
func (h lifecycle) openDatabases() error {
	if err := config.CheckDatabases("host.Options.Databases merged with "+config.File, h.opts.Databases); err != nil {
		return err
	}
	h.dbs = appdb.New(h.app, h.opts.Databases)
	return nil
}

// mergeDatabases is the databases of Options over those of
// endpoints.json, as Options.Databases says.
func mergeDatabases(opts, file map[string]config.Database) map[string]config.Database {
	if len(opts) == 0 {
		return file
	}
	out := maps.Clone(file)
	if out == nil {
		out = map[string]config.Database{}
	}
	for name, o := range opts {
		d, ok := out[name]
		if !ok {
			out[name] = o
			continue
		}
		if o.Driver != "" || o.Path != "" || o.URL != "" {
			d.Driver, d.Path, d.URL = o.Driver, o.Path, o.URL
		}
		if o.MaxConns != 0 {
			d.MaxConns = o.MaxConns
		}
		if o.StatementTimeout != 0 {
			d.StatementTimeout = o.StatementTimeout
		}
		out[name] = d
	}
	return out
}

// migrate applies the migrations not yet applied (server/migrations), at
// each load: a failure fails the load, and at a reload the previous
// version keeps serving. A database that cannot be reached is no
// failure: its migrations wait, the calls that use it answer 503
// (databaseWaitsError), and they are tried again in the background until
// they are applied (dbRetry).
func (h *Host) migrate(ctx context.Context) error {
	applied, err := h.dbs.Migrate(ctx, appdb.MigrateOptions{Defer: true})
	h.dbRetry.note(h.logger, appdb.Attempt{Applied: applied, Pending: h.dbs.Reasons()})
	if len(h.dbs.Waiting()) > 0 {
		h.dbRetry.start(h)
	}
	return err
}

// dbRetry applies in the background the migrations of the databases that
// could not be reached at a load (appdb's Set.Await), with a capped
// backoff, until they are applied or the host closes; it logs each
// database's state when it changes, not each attempt.
type dbRetry struct {
	mu      sync.Mutex
	running bool
	closed  bool
	stop    context.CancelFunc
	done    chan struct{}
	// logged is the state last logged per waiting database:
	// "unreachable" or "failed".
	logged map[string]string
	// next is when the next attempt runs (unix nanoseconds), for
	// Retry-After.
	next atomic.Int64
}

// dbBackoff is the wait between attempts; tests make it short.
var dbBackoff = appdb.Backoff{Min: appdb.DefaultBackoffMin, Max: appdb.DefaultBackoffMax}

// start runs the attempts, unless they run already or the host closed.
func (r *dbRetry) start(h *Host) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running || r.closed {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.running, r.stop, r.done = true, cancel, make(chan struct{})
	go func() {
		defer close(r.done)
		for {
			h.dbs.Await(ctx, dbBackoff, func(at time.Time) { r.next.Store(at.UnixNano()) }, func(a appdb.Attempt) { r.note(h.logger, a) })
			r.mu.Lock()
			// A load may have found another database down since Await
			// looked: go on for it.
			if ctx.Err() != nil || len(h.dbs.Waiting()) == 0 {
				r.running = false
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
		}
	}()
}

// close stops the attempts and waits for them to end.
func (r *dbRetry) close() {
	r.mu.Lock()
	r.closed = true
	stop, done := r.stop, r.done
	r.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// note logs what an attempt (or a load's migration) changed: each
// migration applied, each failure, a database that starts waiting because
// it cannot be reached (once, however many attempts fail the same way),
// and one that no longer waits.
func (r *dbRetry) note(logger *slog.Logger, a appdb.Attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range a.Applied {
		logger.Info("migration applied", "file", m.File, "database", m.Database)
	}
	for _, err := range a.Failed {
		logger.Error("migration failed: the database's routes answer 503 until it is fixed (a reload, or a restart, applies it again)", "error", err)
	}
	for _, name := range slices.Sorted(maps.Keys(a.Pending)) {
		reason := a.Pending[name]
		state := "failed" // logged as such where it failed
		if appdb.Unreachable(reason) {
			state = "unreachable"
		}
		if r.logged[name] == state {
			continue
		}
		if r.logged == nil {
			r.logged = map[string]string{}
		}
		r.logged[name] = state
		if state == "unreachable" {
			logger.Warn("database not ready: the calls that use it answer 503 until its migrations are applied; trying again in the background", "database", name, "error", reason)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.logged)) {
		if _, ok := a.Pending[name]; !ok {
			delete(r.logged, name)
			logger.Info("database ready: its migrations are applied, its routes serve", "database", name)
		}
	}
}

// retryAfter is the Retry-After of a call refused because a database
// waits: the seconds until the next attempt, at least 1.
func (r *dbRetry) retryAfter() string {
	d := time.Until(time.Unix(0, r.next.Load()))
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second)))
}

// databaseWaitsError stops a call that uses a database whose migrations
// wait: raised by a db_* host function, it is answered 503 with
// Retry-After (callGuest) rather than let the guest see a schema without
// its migrations.
type databaseWaitsError struct {
	db  string
	err error
}

func (e *databaseWaitsError) Error() string {
	return fmt.Sprintf("database %q is not ready: %v", e.db, e.err)
}

// dbGate is a call's session with the app's databases behind the check
// that the database used does not wait for its migrations.
type dbGate struct {
	*appdb.Session
	set *appdb.Set
}

// Run runs a statement (db_query, db_exec), unless db waits.
func (g *dbGate) Run(db, sql, params []byte, exec bool) (int, abi.Errno) {
	g.check(db)
	return g.Session.Run(db, sql, params, exec)
}

// Begin opens a transaction (db_begin), unless db waits.
func (g *dbGate) Begin(db []byte) abi.Errno {
	g.check(db)
	return g.Session.Begin(db)
}

func (g *dbGate) check(db []byte) {
	if err := g.set.Pending(string(db)); err != nil {
		panic(&databaseWaitsError{db: string(db), err: err})
	}
}

func (h lifecycle) closeDatabases() {
	if h.dbs == nil {
		return
	}
	h.dbRetry.close()
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
		deadline, maxResult := time.Unix(0, c.deadline), int(c.set.limits.SQLResultBytes)
		if c.dbKept == nil {
			// The hooks are bound to c, which the pool hands to every
			// request it serves.
			c.dbKept = &dbGate{Session: appdb.NewSession(c.host.dbs, c.call, deadline, maxResult, appdb.Hooks{Span: c.dbSpan, Done: c.dbDone})}
		} else {
			c.dbKept.Restart(c.host.dbs, c.call, deadline, maxResult)
		}
		c.dbKept.set = c.host.dbs
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
	o := c.host.opts.Observer
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

// databasesChanged reports whether endpoints.json's databases changed, which
// takes a restart.
func databasesChanged(old, cur *config.App) bool {
	return !maps.Equal(old.Databases, cur.Databases)
}

// answerDatabaseWaits answers a call stopped because a database it used
// waits for its migrations: 503 with Retry-After, as a database that is
// down makes the app's code answer, and, in development, which database,
// why, and the route or middleware (where) that used it.
func (h requestSide) answerDatabaseWaits(w http.ResponseWriter, r *http.Request, waits *databaseWaitsError, where failureData) {
	h.logger.Debug("call stopped: its database waits for its migrations", "route", where.Route, "middleware", where.Middleware, "database", waits.db, "error", waits.err)
	w.Header().Set("Retry-After", h.dbRetry.retryAfter())
	var data any
	if h.opts.Mode == Development {
		where.Error = waits.Error()
		data = where
	}
	writeError(w, r, http.StatusServiceUnavailable, "", data)
}
