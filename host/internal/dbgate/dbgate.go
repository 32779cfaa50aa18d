// Package dbgate is the host's gate to an app's databases while their
// migrations wait: a database that could not be reached at a load has its
// migrations applied in the background, with a capped backoff ([Retry]),
// and until they are, a call's statements on it are refused ([Gate] stops
// the call with a [WaitsError], which the host answers 503 with
// Retry-After) rather than let the guest see a schema without its
// migrations.
package dbgate

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// Retry applies in the background the migrations of the databases that
// could not be reached at a load (appdb's Set.Await), with a capped
// backoff, until they are applied or the host closes (Close); it logs each
// database's state when it changes, not each attempt. Its zero value is
// ready; its methods may be called from any goroutine.
type Retry struct {
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

// Migrate applies the migrations of dbs not yet applied, at a load, and
// logs what it changed (Note). A database that cannot be reached is no
// error: its migrations wait, tried again in the background (Start) with
// backoff between attempts. The error is that of a migration that failed.
func (r *Retry) Migrate(ctx context.Context, dbs *appdb.Set, logger *slog.Logger, backoff appdb.Backoff) error {
	var notes []appdb.Note
	applied, err := dbs.Migrate(ctx, appdb.MigrateOptions{Defer: true, Note: func(n appdb.Note) { notes = append(notes, n) }})
	r.Note(logger, dbs, appdb.Attempt{Applied: applied, Notes: notes, Pending: dbs.Reasons()})
	if len(dbs.Waiting()) > 0 {
		r.Start(dbs, logger, backoff)
	}
	return err
}

// Start runs the attempts on the databases of dbs that wait, with backoff
// between them, unless they run already or Close was called.
func (r *Retry) Start(dbs *appdb.Set, logger *slog.Logger, backoff appdb.Backoff) {
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
			dbs.Await(ctx, backoff, func(at time.Time) { r.next.Store(at.UnixNano()) }, func(a appdb.Attempt) { r.Note(logger, dbs, a) })
			r.mu.Lock()
			// A load may have found another database down since Await
			// looked: go on for it.
			if ctx.Err() != nil || len(dbs.Waiting()) == 0 {
				r.running = false
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
		}
	}()
}

// Running reports whether the attempts run.
func (r *Retry) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}

// Close stops the attempts, and any Start after it, and waits for them to
// end.
func (r *Retry) Close() {
	r.mu.Lock()
	r.closed = true
	stop, done := r.stop, r.done
	r.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// Note logs what an attempt (or a load's migration) on the databases of
// dbs changed: each migration applied, each failure, a database that
// starts waiting because it cannot be reached (once, however many
// attempts fail the same way; what to check, and the setting and variable
// that say where it is, from dbs.ReachHint), and one that no longer
// waits. What it found that is no error (appdb.Note: a migration the
// database has and the app has not, one applied out of order) is a
// warning, at each load that finds it.
func (r *Retry) Note(logger *slog.Logger, dbs *appdb.Set, a appdb.Attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range a.Notes {
		logNote(logger, n)
	}
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
			logger.Warn("database not ready: the calls that use it answer 503 until its migrations are applied; trying again in the background", "database", name, "error", reason, "check", dbs.ReachHint(name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.logged)) {
		if _, ok := a.Pending[name]; !ok {
			delete(r.logged, name)
			logger.Info("database ready: its migrations are applied, its routes serve", "database", name)
		}
	}
}

// logNote logs n as a warning: its kind's summary, then the database and
// the migrations it names.
func logNote(logger *slog.Logger, n appdb.Note) {
	switch n.Kind {
	case appdb.NoteUnknown:
		logger.Warn(n.Summary(), "database", n.Database, "migration", n.Record.File(), "applied_at", n.Record.AppliedAt, "checksum", n.Record.Checksum)
	case appdb.NoteOutOfOrder:
		later := make([]string, len(n.Later))
		for i, rec := range n.Later {
			later[i] = rec.File()
		}
		logger.Warn(n.Summary(), "database", n.Database, "file", n.Migration.File, "after", later)
	default:
		logger.Warn(n.String(), "database", n.Database)
	}
}

// RetryAfter is the Retry-After of a call refused because a database
// waits, and of a guest's 503 after a statement failed unavailable or
// busy (host/database.go): the seconds until the next attempt, at least 1.
func (r *Retry) RetryAfter() string {
	d := time.Until(time.Unix(0, r.next.Load()))
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second)))
}

// WaitsError stops a call that uses a database whose migrations wait:
// raised (a panic) by a Gate's db_* host function, it is answered 503 with
// Retry-After rather than let the guest see a schema without its
// migrations.
type WaitsError struct {
	// Database is the database's name in endpoints.json.
	Database string
	// Err is why its migrations wait (appdb's Set.Pending).
	Err error
}

func (e *WaitsError) Error() string {
	return fmt.Sprintf("database %q is not ready: %v", e.Database, e.Err)
}

// Gate is a call's session with the app's databases (appdb.Session)
// behind the check that the database used does not wait for its
// migrations: a statement or a transaction on one that does panics with
// a *WaitsError, which stops the guest.
type Gate struct {
	*appdb.Session
	set *appdb.Set
}

// New is the gate of session s over the databases of set.
func New(s *appdb.Session, set *appdb.Set) *Gate { return &Gate{Session: s, set: set} }

// Restart makes g the gate of another call, as appdb.Session.Restart
// does its session, over the databases of set.
func (g *Gate) Restart(set *appdb.Set, ctx context.Context, deadline time.Time, maxResult int) {
	g.Session.Restart(set, ctx, deadline, maxResult)
	g.set = set
}

// Run runs a statement (db_query, db_exec), unless db waits.
func (g *Gate) Run(db, sql, params []byte, exec bool) (int, abi.Errno) {
	g.check(db)
	return g.Session.Run(db, sql, params, exec)
}

// Begin opens a transaction (db_begin), unless db waits.
func (g *Gate) Begin(db []byte) abi.Errno {
	g.check(db)
	return g.Session.Begin(db)
}

// BeginWith opens a transaction with options (db_begin_with), unless db
// waits.
func (g *Gate) BeginWith(db, opts []byte) abi.Errno {
	g.check(db)
	return g.Session.BeginWith(db, opts)
}

func (g *Gate) check(db []byte) {
	if !g.set.AnyPending() {
		return // the common case, without a string of db's name
	}
	if err := g.set.Pending(string(db)); err != nil {
		panic(&WaitsError{Database: string(db), Err: err})
	}
}
