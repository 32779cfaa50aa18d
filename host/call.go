package host

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/host/internal/conndeadline"
	"github.com/wasmendpoints/endpoints/host/internal/dbgate"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/guestanswer"
	"github.com/wasmendpoints/endpoints/host/internal/guestclock"
	"github.com/wasmendpoints/endpoints/host/internal/guestlog"
	"github.com/wasmendpoints/endpoints/host/internal/guestrequest"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
)

// call is the state of one guest call in parts: the request as validated
// (rq, package guestrequest), the answer being built (resp, package
// guestanswer), and the deadline the interrupt check consults (clock). It
// joins them to the host, its route and settings, and the public
// Observer's hooks. It is the context.Context handed to wazero;
// what the guest sees of it is its guestCall (abicall.go), which host
// functions (package abihost) find under abihost.CallKey with one type
// assertion and no allocation.
//
// A call is owned by the goroutine serving the request; host functions run
// on that goroutine, inside the guest call. The only field another
// goroutine touches is its clock's stop flag. Slices host functions read
// from guest memory point into the instance's memory, which is unmapped
// when the instance closes: a call keeps copies, never those slices.
type call struct {
	parent context.Context
	host   *Host
	set    *settings // of the table the request started on
	route  *route
	op     *operation // nil for a plain route and while loading

	// The request as validated (package guestrequest).
	rq guestrequest.Request

	// The pipeline's state (pipeline.go): the table the request was
	// routed on; the path parameters as routed; the end of the span of
	// steps 4-7 (nil once ended, or without a tracer); claimed: step 8
	// claimed the Idempotency-Key.
	table                 *table
	pathNames, pathValues []string
	validated             func(error)
	claimed               bool

	// The answer being built (package guestanswer).
	resp guestanswer.Answer
	// logs is what the guest logged: within its bound, and in development
	// the last lines of its output, for a 500 (package guestlog).
	logs guestlog.Log

	// When the guest must stop: the operation's own "timeout", else
	// limits.timeout, and its "idleTimeout" (package guestclock).
	clock guestclock.Clock
	// writes is the connection's write deadline as last set for the
	// request: every one is set through it (writeDeadline, the answer's
	// streamed writes), so that one that barely moves is skipped.
	writes conndeadline.Writes
	logger *slog.Logger

	// A middleware call: the request's call it serves (owner), the
	// middleware, the phase (abi.PhaseBefore...), the scheme to verify
	// and the status of the answer an after call sees.
	owner       *call
	chain       []*edge.Middleware // the middleware wrapping the request
	chainRun    chainRun           // the chain's edge.Runner, kept here so it costs no allocation
	rawParams   map[string]any     // the path parameters as received, for middleware
	mw          *edge.Middleware
	phase       string
	verify      *abi.VerifyRequest
	afterStatus int

	// memory carries the memory allocator while the call instantiates a
	// module (engine.Engine.instantiate, through SetMemory); nil otherwise.
	memory context.Context
	// spanCtx is, while a guest or a store operation runs, the context
	// Observer.Span returned for its step: the guest's store operations
	// begin theirs in it, and the call's Value reads it, so a store that
	// traces its own work (an instrumented Redis client) nests it there.
	// nil otherwise.
	spanCtx context.Context
	// outbound is the request's outbound HTTP session (http_*), started
	// at its first use (Outbound), closed by putCall.
	outbound outbound.Session
	// db is the call's session with its app's databases, from its first
	// db_* call until the call ends (endDatabases); nil otherwise.
	db *dbgate.Gate
	// dbWaits is why a middleware call was stopped at a db_* call: its
	// database waits for its migrations (answered 503); nil otherwise.
	dbWaits *dbgate.WaitsError
	// dbKept is the session db was, kept with the pooled call for its
	// next request (Databases restarts it): its hooks and result buffer
	// are made once, not per request.
	dbKept *dbgate.Gate
	// stack is the parameter and result of the handler's export, passed
	// to CallWithStack (module.handle): wazero's Call allocates a slice
	// for them at every call.
	stack [1]uint64
}

func (c *call) Deadline() (time.Time, bool) { return c.clock.Deadline(), true }
func (c *call) Done() <-chan struct{}       { return c.parent.Done() }
func (c *call) Err() error                  { return c.parent.Err() }
func (c *call) Value(key any) any {
	if key == (abihost.CallKey{}) {
		return guestCall{c}
	}
	if c.memory != nil {
		if v := c.memory.Value(key); v != nil {
			return v
		}
	}
	if c.spanCtx != nil {
		return c.spanCtx.Value(key) // derived from c.parent
	}
	return c.parent.Value(key)
}

// Expired reports whether the guest must stop: past its deadline, told to
// stop, its client went away, or the host is closing. It makes the call an
// interrupt.Expirer, which the interrupt check asks directly.
func (c *call) Expired() bool {
	return c.clock.Expired() || c.parent.Err() != nil ||
		c.host != nil && lifecycle{c.host}.stopping()
}

// stopped is closed when the host stops every call (Close), for host
// functions that block; nil, which never fires, outside a host.
func (c *call) stopped() <-chan struct{} {
	if c.host == nil {
		return nil
	}
	return c.host.halt
}

// reset prepares a pooled call for a request that began at now.
func (c *call) reset(ctx context.Context, h *Host, set *settings, rt *route, op *operation, r *http.Request, now time.Time) {
	timeout, idle := time.Duration(set.Limits.Timeout), time.Duration(0)
	if op != nil {
		if op.Timeout > 0 {
			timeout = op.Timeout
		}
		idle = op.IdleTimeout
	}
	*c = call{
		parent: ctx,
		host:   h,
		set:    set,
		route:  rt,
		op:     op,
		rq:     c.rq,
		resp:   c.resp,
		logger: h.logger,
		dbKept: c.dbKept,
	}
	c.rq.Reset(r, op == nil, now)
	c.clock.Start(now, timeout, idle)
	c.resp.Reset(set.Limits.ResponseBytes, &c.clock, c)
	c.logs.Reset(h.opts.Mode == Development)
}

// log writes a guest's log line with the call's route, middleware and
// request id, within what the call may log (guestlog.Log.Line), and keeps
// a warning or an error for a development 500.
//
// A line in slog's text form (the Go SDK's logger: `msg="user created"
// id=4`) is one record of its message and fields, the host's attributes
// after them (guestlog.Fields), not a message holding the line.
func (c *call) log(level abi.LogLevel, line []byte, attrs ...any) {
	r, ok := c.logs.Line(level, line)
	if !ok {
		return
	}
	file := ""
	if c.route != nil {
		file = c.route.Name
	}
	all := make([]any, 0, len(r.Attrs)+len(attrs)+6)
	for _, a := range r.Attrs {
		all = append(all, a)
	}
	all = append(all, guestlog.RouteKey, file)
	all = append(all, attrs...)
	if c.mw != nil {
		all = append(all, guestlog.MiddlewareKey, c.mw.File)
	}
	if id := c.rq.Of().ID; id != "" {
		all = append(all, guestlog.RequestIDKey, id)
	}
	c.logger.Log(c.parent, r.Level, r.Message, all...)
	if level >= abi.LogWarn {
		c.requestCall().logs.Keep(r.Text)
	}
}
