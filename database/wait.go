package database

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// MaxWaitMargin caps the time [WaitContext] leaves a call after the wait
// for a connection ends.
const MaxWaitMargin = time.Second

// WaitContext returns the context a driver waits for a connection of its
// full pool with: ctx, ending a tenth of the time left before ctx's
// deadline (at most [MaxWaitMargin]) earlier, so that a call that found
// every connection taken gets its error ([PoolFullError]) while it can
// still answer it, 503 rather than a deadline's 500. Without a deadline it
// is ctx. The caller calls cancel when the wait is over.
func WaitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	margin := min(time.Until(deadline)/10, MaxWaitMargin)
	return context.WithDeadline(ctx, deadline.Add(-margin))
}

// CallDeadlineKey is the context key whose value is the call's deadline
// (a time.Time) in the context of a statement whose own timeout
// (db_timeout) comes first and is the context's deadline: past the
// timeout the call goes on, so a wait for SQLite's write lock stops a
// tenth of the time left before it, as [WaitContext] does, and keeps the
// least margin a call needs to answer (50 ms) before the call's deadline
// alone.
type CallDeadlineKey struct{}

// ErrPoolFull is in the chain of every [PoolFullError]: the database
// answers, but no connection of the pool was free in time, which
// errors.Is tells from a server that cannot be reached.
var ErrPoolFull = errors.New("no connection of the pool came free in time")

// PoolFullError is the error of a statement that waited for a connection
// of a pool of maxConns, all in use, until its wait ended (WaitContext):
// unavailable, as a server that cannot be reached, naming the setting
// that raises it, of database name ([Options.Name]). Its chain holds
// [ErrPoolFull] and err.
func PoolFullError(name string, maxConns int, err error) *Error {
	return &Error{Code: CodeUnavailable, Err: fmt.Errorf("%w: %w", ErrPoolFull, err), Message: fmt.Sprintf(
		"no connection of the pool came free in time: its maxConns (%d) were all in use by other statements and transactions; raise %s or shorten what holds them", maxConns, Setting(name, "maxConns"))}
}

// Setting is the path of field of database name in endpoints.json, as
// --set takes it: "databases.main.maxConns"; "databases.<name>.maxConns"
// when name is empty (a database opened outside an app).
func Setting(name, field string) string {
	if name == "" {
		name = "<name>"
	}
	return "databases." + name + "." + field
}
