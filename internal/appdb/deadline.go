package appdb

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmendpoints/endpoints/database"
)

// stmtContext is the context of one statement: its parent's, ended at the
// call's deadline too, and when stop ends (the host stopping its calls at
// shutdown; nil for never). Unlike context.WithDeadline it starts no timer
// until something asks for Done: the SQLite driver only polls Err, which
// compares the clock with the deadline, so a statement on SQLite costs no
// timer at all. Done (the PostgreSQL driver watches it), and Err once the
// deadline has passed, make the standard deadline context and answer from
// it from then on, so that Done, Err, Value and context.Cause agree as
// for any context.
type stmtContext struct {
	parent   context.Context
	stop     context.Context
	deadline time.Time
	// call is the call's deadline when deadline is the statement's own
	// timeout, which comes first (ownTimeout); zero otherwise.
	call  time.Time
	mu    sync.Mutex // guards making timed
	timed atomic.Pointer[timedContext]
}

// timedContext is the standard deadline context a stmtContext made.
type timedContext struct {
	ctx    context.Context
	cancel context.CancelFunc
	// unstop removes the cancel that stop's end would call, nil when
	// none was registered.
	unstop func() bool
}

// newStmtContext returns the context of a statement that must end by
// deadline, or earlier if parent or stop (nil for never) ends; release
// frees it when the statement is over.
func newStmtContext(parent, stop context.Context, deadline time.Time) *stmtContext {
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return &stmtContext{parent: parent, stop: stop, deadline: deadline}
}

// restart makes c the context of another statement, as newStmtContext
// would, without allocating one: a session's statements run one after
// the other, each released before the next begins, so one context serves
// them all. It returns c.
func (c *stmtContext) restart(parent, stop context.Context, deadline time.Time) *stmtContext {
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.parent, c.stop, c.deadline, c.call = parent, stop, deadline, time.Time{}
	c.timed.Store(nil)
	return c
}

// ownTimeout marks c's deadline as the statement's own timeout when own
// is set, before call, the deadline of the call (or its context's, when
// that comes first): its Value answers call for
// database.CallDeadlineKey, by which a wait for SQLite's write lock keeps
// a call's margin before call only. It returns c.
func (c *stmtContext) ownTimeout(own bool, call time.Time) *stmtContext {
	if d, ok := c.parent.Deadline(); ok && d.Before(call) {
		call = d
	}
	if own && c.deadline.Before(call) {
		c.call = call
	}
	return c
}

// standard makes (once) and returns the standard deadline context.
func (c *stmtContext) standard() context.Context {
	if t := c.timed.Load(); t != nil {
		return t.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.timed.Load(); t != nil {
		return t.ctx
	}
	ctx, cancel := context.WithDeadline(c.parent, c.deadline)
	t := &timedContext{ctx: ctx, cancel: cancel}
	if c.stop != nil {
		if c.stop.Err() != nil {
			cancel() // now, so that Err answers at once
		} else {
			t.unstop = context.AfterFunc(c.stop, cancel)
		}
	}
	c.timed.Store(t)
	return ctx
}

// release stops the timer of the standard context, if one was made, and
// forgets stop.
func (c *stmtContext) release() {
	if t := c.timed.Load(); t != nil {
		t.cancel()
		if t.unstop != nil {
			t.unstop()
		}
	}
}

func (c *stmtContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *stmtContext) Done() <-chan struct{} { return c.standard().Done() }

func (c *stmtContext) Err() error {
	if t := c.timed.Load(); t != nil {
		return t.ctx.Err()
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if c.stop != nil && c.stop.Err() != nil {
		return c.standard().Err()
	}
	if time.Now().Before(c.deadline) {
		return nil
	}
	return c.standard().Err()
}

func (c *stmtContext) Value(key any) any {
	if _, ok := key.(database.CallDeadlineKey); ok && !c.call.IsZero() {
		return c.call
	}
	if t := c.timed.Load(); t != nil {
		return t.ctx.Value(key)
	}
	return c.parent.Value(key)
}
