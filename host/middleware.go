package host

import (
	"errors"
	"net/http"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/dbgate"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/logtext"
)

// mwRunner runs a request's middleware for the host: the chain's before
// and after exports around the handler (edge.Before, edge.After), the
// verify export for a scheme (edgeCall.Verify), and the guest calls they
// are made with.
type mwRunner struct{ h requestSide }

// mwCall prepares a call of one middleware export for the request c
// serves. The response headers it sets go straight into header (the
// answer's), so set and add keep their meaning across middleware; nil
// gives it headers of its own. Give it back with putMWCall.
func (run mwRunner) mwCall(c *call, m *edge.Middleware, phase string, header http.Header) *call {
	h := run.h
	mc := h.calls.Get().(*call)
	// The request's start, not a new clock reading: Serve and Follow
	// below give the call its owner's start and clock anyway.
	mc.reset(c.parent, h.Host, c.set, c.route, nil, c.rq.HTTP, c.rq.Start)
	if header != nil {
		mc.resp.UseHeader(header)
	}
	mc.clock.Follow(&c.clock)
	mc.rq.Serve(&c.rq, c.rawParams)
	mc.owner, mc.mw, mc.phase = c, m, phase
	return mc
}

// putMWCall gives back a middleware call; the header map it wrote into
// belongs to the answer, never to the pool.
func (run mwRunner) putMWCall(mc *call) {
	h := run.h
	mc.resp.UseHeader(nil)
	h.putCall(mc)
}

// callMiddleware calls one export of a middleware and returns its result;
// ok is false when the call failed (trap, deadline, a fault), which it
// logged.
func (run mwRunner) callMiddleware(r *http.Request, mc *call, export string) (result int32, ok bool) {
	h := run.h
	m := mc.mw
	key := "" // the lane of the request's route (of a bundle: its own)
	if mc.route != nil {
		key = mc.route.Name
	}
	lane := m.Lane(key)
	in, err := lane.Get(mc)
	if err != nil {
		h.logger.Warn("no instance for the request", "middleware", m.File, "error", err)
		return 0, false
	}
	span := mc.startSpan(StepGuest, export)
	res, err := m.Call(mc, in, export)
	if waits := (*dbgate.WaitsError)(nil); errors.As(err, &waits) {
		mc.dbWaits = waits
	}
	healthy := err == nil && mc.resp.Fault() == ""
	if span != nil {
		mc.spanCtx = nil
		var failed error
		if !healthy {
			failed = guestfail.Err(err, 0, mc.resp.Fault())
		}
		span(failed)
	}
	lane.Put(r.Context(), in, healthy && (int32(res[0]) >= 0 && int32(res[0]) <= 2))
	if healthy {
		return int32(res[0]), true
	}
	reason, gone := h.failureReason(mc, r, err, 0)
	if !gone {
		h.logger.Error("middleware failed", "middleware", m.File, "export", export, "method", r.Method, "path", logtext.Cut(r.URL.Path), "reason", reason)
	}
	return 0, false
}

// runBefore runs the before exports of the chain (edge.Before). It
// reports whether the request goes on to the handler; when it does not,
// the answer was written (a middleware's, or a 500).
func (run mwRunner) runBefore(w http.ResponseWriter, r *http.Request, c *call, chain []*edge.Middleware) bool {
	c.chainRun = chainRun{run: run, w: w, r: r, c: c, header: w.Header()}
	goesOn := edge.Before(chain, &c.chainRun, run.h.logger)
	c.chainRun = chainRun{} // the pooled call keeps no request
	return goesOn
}

// runAfter runs the after exports of the chain (edge.After) once the
// handler answered with status. sent says the answer already went out;
// otherwise the headers they set go into hdr, the answer's. A failing
// after call is logged; the answer stands.
func (run mwRunner) runAfter(r *http.Request, c *call, chain []*edge.Middleware, status int, sent bool, hdr http.Header) {
	c.chainRun = chainRun{run: run, r: r, c: c, status: status, sent: sent}
	if !sent {
		c.chainRun.header = hdr
	}
	edge.After(chain, &c.chainRun, run.h.logger)
	c.chainRun = chainRun{}
}

// chainRun is the edge.Runner of one request's chain: the middleware
// calls of c, a stop answered on w. header receives the response headers
// the calls set (the answer's; nil gives each call its own); status and
// sent are what an after call sees of the answer.
type chainRun struct {
	run    mwRunner
	w      http.ResponseWriter
	r      *http.Request
	c      *call
	header http.Header
	status int
	sent   bool
}

func (cr *chainRun) Call(m *edge.Middleware, phase string) edge.ModuleCall {
	mc := cr.run.mwCall(cr.c, m, phase, cr.header)
	if phase == abi.PhaseAfter {
		mc.afterStatus = cr.status
		if cr.sent {
			mc.resp.MarkSent()
		}
	}
	return mwExport{mc}
}

func (cr *chainRun) Answer(e edge.ModuleCall) {
	mc := e.(mwExport).call
	cr.run.h.discardBody(cr.w, cr.r, cr.c)
	mc.FinishHeader(mc.resp.Status(), cr.w.Header())
	answer.Buffered(cr.w, cr.r, mc.resp.Status(), "application/json", mc.resp.Body())
}

func (cr *chainRun) Fail(e edge.ModuleCall, reason string) {
	cr.run.answerMiddlewareFailure(cr.w, cr.r, e.(mwExport).call, reason)
}

func (cr *chainRun) Done(e edge.ModuleCall) { cr.run.putMWCall(e.(mwExport).call) }

// mwExport is a prepared middleware call as package edge runs it
// (edge.ModuleCall). It holds the call alone, so it is passed as an
// interface without an allocation.
type mwExport struct{ *call }

// Run calls the export of the call's phase.
func (mc mwExport) Run() (int32, bool) {
	export := abi.ExportBefore
	switch mc.phase {
	case abi.PhaseAfter:
		export = abi.ExportAfter
	case abi.PhaseVerify:
		export = abi.ExportVerify
	}
	return mwRunner{requestSide{mc.host}}.callMiddleware(mc.rq.HTTP, mc.call, export)
}

// Wrote reports whether the call wrote an answer.
func (mc mwExport) Wrote() bool { return len(mc.resp.Body()) > 0 || mc.resp.Status() != http.StatusOK }

// answerMiddlewareFailure answers 500 for a failed middleware; 503 with
// Retry-After when its database waits or was down (databaseOutage).
func (run mwRunner) answerMiddlewareFailure(w http.ResponseWriter, r *http.Request, mc *call, reason string) {
	h := run.h
	h.discardBody(w, r, mc.owner)
	if mc.dbWaits != nil {
		h.answerDatabaseWaits(w, r, mc.dbWaits, guestfail.Data{Middleware: mc.mw.File})
		return
	}
	if reason == "" {
		reason = "the middleware failed (see the log)"
	}
	if code := h.databaseOutage(mc, r, nil); code != "" {
		h.answerDatabaseOutage(w, r, mc.owner, code, reason, guestfail.Data{Middleware: mc.mw.File})
		return
	}
	var data any
	if h.opts.Mode == Development {
		data = guestfail.Data{Error: reason, Middleware: mc.mw.File, Output: mc.owner.logs.Output()}
	}
	writeError(w, r, http.StatusInternalServerError, "", data)
}

// setRequestHeader replaces (or, with an empty value, removes) a request
// header for what follows a before middleware, within what the
// request's middleware may grow its headers by (edge.Passed); past that
// the call fails (fault) and the guest gets ErrInvalid.
func (c *call) setRequestHeader(name, value []byte) abi.Errno {
	if c.resp.Fault() != "" {
		// Told once; a guest that goes on is stopped.
		c.clock.Stop()
		return abi.ErrInvalid
	}
	errno, fault := c.rq.SetRequestHeader(name, value)
	if fault != "" {
		c.resp.SetFault(fault)
	}
	return errno
}

// requestCall is the call of the request's handler: for a middleware
// call, its owner.
func (c *call) requestCall() *call {
	if c.owner != nil {
		return c.owner
	}
	return c
}
