package host

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/host/internal/breaker"
	"github.com/wasmendpoints/endpoints/host/internal/conndeadline"
	"github.com/wasmendpoints/endpoints/host/internal/dbgate"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/guestanswer"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
	"github.com/wasmendpoints/endpoints/internal/logtext"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// ServeHTTP routes the request and runs the pipeline of docs/spec.md §4.
// Buffered answers go out compressed for the clients that accept zstd or
// gzip, unless endpoints.json turns that off (config.Compression).
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := h.table.Load().Set.Compress; p != nil {
		// Outermost, so what the host writes and keeps (an idempotent
		// answer) is the identity answer, compressed at send.
		cw := p.Wrap(w, r)
		defer cw.Close()
		w = cw
	}
	if o := h.opts.Observer; o != nil && o.Request != nil {
		requestSide{h}.serveObserved(w, r, o.Request)
		return
	}
	requestSide{h}.serve(w, r, time.Now())
}

// retrySoon is the Retry-After of a 503 that should pass within a second:
// a shutdown's (another instance of the app takes the retry) and that of a
// request whose route's code was still loading at its deadline.
const retrySoon = "1"

// requestSide is the host as it serves one request (package doc's
// pipeline): routing, admission, the body, the guest call and the answers
// it refuses with. Its methods are the host's request side, apart from the
// load and lifecycle ones Host declares itself.
type requestSide struct{ *Host }

// serve serves one request of the current table, received at start.
func (h requestSide) serve(w http.ResponseWriter, r *http.Request, start time.Time) {
	if !h.requests.Enter() {
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", retrySoon)
		writeError(w, r, http.StatusServiceUnavailable, "", map[string]string{"error": "the server is shutting down"})
		return
	}
	defer h.requests.Leave()
	t := h.acquire()
	defer h.releaseTable(t)
	noteSecretQuery(w, t.Security)
	// Every write of the answer must be taken by the client within
	// server.writeTimeout; a stream extends it at each write. The same
	// clock reading starts the guest call's (getCall).
	conndeadline.SetWrite(w, start.Add(time.Duration(t.Set.Server.WriteTimeout)))
	if n, limit := edge.HeaderBytes(r), t.Set.Server.MaxHeaderBytes; n > limit {
		// Host.HTTPServer's net/http refuses such headers itself only 4
		// KiB past the bound, with a bare 431, and an embedder's server
		// may take up to 1 MiB: this one says which setting refused them.
		w.Header().Set("Connection", "close")
		writeError(w, r, http.StatusRequestHeaderFieldsTooLarge, "", map[string]any{"limit": limit,
			"error": fmt.Sprintf("the request line and header fields take %d bytes, more than server.maxHeaderBytes (%d); send fewer or shorter fields", n, limit)})
		return
	}
	if p := t.CORSPolicy(); p != nil {
		// CORS comes before routing: a preflight is answered here, so a
		// route's own OPTIONS handler still sees the other OPTIONS
		// requests.
		if p.Preflight(w, r) {
			return
		}
		p.Apply(w.Header(), r)
	}
	if t.Set.Served && r.URL.Path == t.Set.DocPath {
		noteRoute(w, t.Set.DocPath)
		if t.Doc == nil {
			writeError(w, r, http.StatusInternalServerError, "", documentProblem(t, h.opts.Mode))
			return
		}
		t.Doc.Serve(w, r, writeDocsError)
		return
	}
	if t.Set.Docs != nil && t.Set.Docs.ServeProblems(w, r, t.LeftOutLines()) {
		noteRoute(w, t.Set.Docs.Path())
		return
	}
	res := t.Router.Match(r.Method, r.URL.EscapedPath())
	if !res.Found {
		if h.opts.Fallback != nil {
			h.opts.Fallback.ServeHTTP(w, r)
			return
		}
		writeError(w, r, http.StatusNotFound, "", h.notFoundData(t, r))
		return
	}
	if !res.Allowed {
		noteRoute(w, res.Route.Pattern())
		h.refuseMethod(w, r, res.Allow)
		return
	}
	rt := res.Value
	noteRoute(w, rt.Pattern)
	if rt.Plain {
		h.servePlain(w, r, t, rt, &res, start)
		return
	}
	op := rt.Ops[r.Method]
	if op == nil && r.Method == http.MethodHead {
		op = rt.Ops[http.MethodGet]
	}
	if op == nil {
		h.refuseMethod(w, r, rt.Allow)
		return
	}
	h.serveEndpoint(w, r, t, rt, op, &res, start)
}

// refuseMethod answers OPTIONS with 204 and any other method with 405, both
// with Allow (RFC 9110 §15.5.6).
func (h requestSide) refuseMethod(w http.ResponseWriter, r *http.Request, allow []string) {
	w.Header().Set("Allow", strings.Join(allow, ", "))
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeError(w, r, http.StatusMethodNotAllowed, "", map[string]any{"method": r.Method, "allow": allow})
}

// getCall takes a pooled call for a request that began at start, when
// serve set the connection's write deadline to start plus
// server.writeTimeout.
func (h requestSide) getCall(w http.ResponseWriter, r *http.Request, set *settings, rt *route, op *operation, start time.Time) *call {
	c := h.calls.Get().(*call)
	c.reset(r.Context(), h.Host, set, rt, op, r, start)
	c.writes.Record(start.Add(time.Duration(set.Server.WriteTimeout)))
	if requestbody.Has(r) {
		// The whole body must arrive within server.readTimeout of the
		// request's start: a client declaring 500 bytes and sending 32
		// must not hold the connection, or an instance, forever.
		conndeadline.SetRead(w, c.rq.Start.Add(time.Duration(set.Server.ReadTimeout)))
	}
	return c
}

// target is where the call's answer goes (w) and what its streamed writes
// are held to; op's media answers stream, nil for a plain route.
func (c *call) target(w http.ResponseWriter, op *operation) guestanswer.Target {
	t := guestanswer.Target{W: w, Head: c.rq.HTTP.Method == http.MethodHead, WriteTimeout: time.Duration(c.set.Server.WriteTimeout), Tee: &c.rq.Idem, Deadlines: &c.writes, Finish: c}
	if op != nil {
		t.Media, t.Negotiates = op.Media, op.Negotiates()
	}
	return t
}

func (h requestSide) putCall(c *call) {
	c.closeOutbound()
	c.endDatabases()
	c.parent, c.route, c.op, c.spanCtx = nil, nil, nil, nil
	c.resp.Release()
	if err := c.rq.Release(); err != nil {
		h.logger.Warn("removing uploaded files failed", "error", err)
	}
	c.owner, c.mw, c.verify = nil, nil, nil
	c.chain, c.rawParams = nil, nil
	c.table, c.pathNames, c.pathValues, c.validated = nil, nil, nil, nil
	h.calls.Put(c)
}

// serveEndpoint runs the pipeline (pipeline.go) on a request routed to an
// endpoint.
func (h requestSide) serveEndpoint(w http.ResponseWriter, r *http.Request, t *table, rt *route, op *operation, res *router.Result[*route], start time.Time) {
	c := h.getCall(w, r, t.Set, rt, op, start)
	defer h.putCall(c)
	c.resp.Endpoint(c.target(w, op))
	c.table, c.pathNames, c.pathValues = t, res.Names, res.Params
	runPipeline(h, w, r, c)
}

// admit runs what comes between routing and the request's validation: it
// gives the request its id, enforces the operation's security (401, 403),
// and runs the before middleware of the route. It reports whether the
// request goes on; when it does not, the answer was written.
func (h requestSide) admit(w http.ResponseWriter, r *http.Request, t *table, c *call) bool {
	c.rq.ID = edge.RequestID(r)
	w.Header()[edge.RequestIDHeader] = []string{c.rq.ID} // canonical: Set without canonicalising
	noteRequestID(w, c.rq.ID)
	if c.op != nil {
		if t.Security == nil {
			// The document, and so the effective security, is unknown:
			// fail closed.
			h.discardBody(w, r, c)
			writeError(w, r, http.StatusInternalServerError, "", documentProblem(t, h.opts.Mode))
			return false
		}
		if g := t.Security.Guards[c.op]; g != nil {
			v := g.Check(r, edgeCall{c})
			if v.Status != 0 {
				h.refuseGuarded(w, r, c, v)
				return false
			}
			c.rq.Principal = v.Principal
		}
	}
	if !h.limitRate(w, r, c) {
		return false
	}
	if len(t.Middleware) == 0 {
		return true // the route's pattern is not even needed
	}
	c.chain = edge.Chain(t.Middleware, c.route.Pattern, r.Method)
	if len(c.chain) == 0 {
		return true
	}
	c.rawParams = make(map[string]any, len(c.pathNames))
	for i, name := range c.pathNames {
		c.rawParams[name] = c.pathValues[i]
	}
	return mwRunner{h}.runBefore(w, r, c, c.chain)
}

// callGuest runs the handler on a pooled instance. It reports whether the
// guest answered; when it did not, the failure was answered and logged.
func (h requestSide) callGuest(w http.ResponseWriter, r *http.Request, c *call) bool {
	probe, allowed := h.breakerAllows(w, r, c)
	if !allowed {
		return false
	}
	pool := c.route.Module.Instances()
	in, err := pool.Get(c)
	if err != nil {
		h.breakerDone(r, c, breaker.Unknown, probe)
		h.discardBody(w, r, c)
		if failed := (*engine.ModuleFailedError)(nil); errors.As(err, &failed) {
			// Logged once, when the load failed.
			var data any
			if h.opts.Mode == Development {
				data = guestfail.Data{Error: err.Error(), Route: c.route.Name}
			}
			writeError(w, r, http.StatusInternalServerError, "", data)
			return false
		}
		h.logger.Warn("no instance for the request", "route", c.route.Name, "error", err)
		// Every instance busy until the wait had to end, the route's
		// code still loading, or the host stopping: each passes, and the
		// client may retry soon (here or on another host).
		w.Header().Set("Retry-After", retrySoon)
		var data any
		if loading := (*engine.CodeLoadingError)(nil); errors.As(err, &loading) {
			if h.opts.Mode == Development {
				data = guestfail.Data{Error: err.Error(), Route: c.route.Name}
			}
		}
		writeError(w, r, http.StatusServiceUnavailable, "", data)
		return false
	}
	if c.rq.Body.Streams() {
		// A guest reading the body waits for the client at most until the
		// call's deadline (or server.readTimeout, if sooner).
		conndeadline.SetRead(w, time.Unix(0, min(c.rq.Start.Add(time.Duration(c.set.Server.ReadTimeout)).UnixNano(), c.clock.Deadline().UnixNano())))
	}
	var began time.Time
	if o := h.opts.Observer; o != nil && o.GuestCall != nil {
		began = time.Now()
	}
	guestSpan := c.startSpan(StepGuest, "")
	res, err := c.route.Module.Handle(c, in, c.stack[:])
	var took time.Duration
	if !began.IsZero() {
		took = time.Since(began)
	}
	// The answer, or what follows a stream (its last chunk), gets a fresh
	// write deadline: the call's may have passed.
	c.answerDeadline(w)
	if c.rq.Body.Streams() && (c.rq.Body.OverLimit() || c.op != nil && !c.resp.Sent()) {
		// What the guest left of the body (all of it past the limit) is
		// read before the answer, so that a client still sending reads
		// the answer rather than a reset.
		h.discardBody(w, r, c)
	}
	// Any failure discards the instance, a reported one too: the guest's
	// own state (a Go SDK that recovered a panic, a half-filled table) may
	// be half-updated, and a fresh instance costs milliseconds.
	var code int32 = -1
	if err == nil {
		code = int32(res[0])
	}
	ok := err == nil && code == 0 && c.resp.Fault() == ""
	if guestSpan != nil {
		c.spanCtx = nil
		guestSpan(guestfail.Err(err, code, c.resp.Fault()))
	}
	pool.Put(r.Context(), in, ok)
	var waits *dbgate.WaitsError
	var outage database.Code
	if !ok && !c.resp.Sent() && !errors.As(err, &waits) {
		// A failure because a database was down or held is answered
		// 503, and is the database's, not the guest's.
		outage = h.databaseOutage(c, r, err)
	}
	if c.route.Module.Breaker != nil {
		h.breakerDone(r, c, breakerOutcome(callEnd{Err: err, Database: waits != nil || outage != "", ClientGone: r.Context().Err() != nil,
			Stopping: lifecycle(h).stopping(), Idled: err != nil && c.clock.Idled(), Waited: c.clock.InstanceWait(), Timeout: c.clock.Timeout()}), probe)
	}
	if !began.IsZero() {
		h.opts.Observer.reportGuestCall(r, c, took, !ok, waits != nil || outage != "")
	}
	if ok {
		return true
	}
	if waits != nil {
		h.answerDatabaseWaits(w, r, waits, guestfail.Data{Route: c.route.Name})
		return false
	}
	reason, gone := h.failureReason(c, r, err, code)
	if gone {
		h.logger.Info("client went away; guest stopped", "route", c.route.Name, "method", r.Method, "path", logtext.Cut(r.URL.Path))
		return false
	}
	if outage != "" {
		h.answerDatabaseOutage(w, r, c, outage, reason, guestfail.Data{Route: c.route.Name})
		return false
	}
	h.logger.Error("guest failed", "route", c.route.Name, "method", r.Method, "path", logtext.Cut(r.URL.Path), "requestId", c.rq.ID, "reason", reason)
	if c.resp.Sent() {
		// Bytes already reached the client: the only honest end is to
		// abort the response so the client sees it truncated.
		panic(http.ErrAbortHandler)
	}
	var data any
	if h.opts.Mode == Development {
		data = guestfail.Data{Error: reason, Route: c.route.Name, Output: c.logs.Output()}
	}
	status := http.StatusInternalServerError
	if guestfail.Interrupted(err) && lifecycle(h).stopping() {
		// Stopped by a shutdown: another server may take the request,
		// as the 503 of one that arrives during it says.
		status = http.StatusServiceUnavailable
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", retrySoon)
	}
	writeError(w, r, status, "", data)
	return false
}

// failureReason phrases why a guest call failed (guestfail.Reason), for
// the log and the development 500; gone reports a call stopped because
// its client left. code is the guest's result when err is nil.
func (h requestSide) failureReason(c *call, r *http.Request, err error, code int32) (reason string, gone bool) {
	return guestfail.Reason(guestfail.Failure{Err: err, Code: code, Fault: c.resp.Fault(), ClientGone: r.Context().Err() != nil,
		Stopping: lifecycle(h).stopping(), Clock: &c.clock, Call: guestCall{c}})
}

func (h requestSide) servePlain(w http.ResponseWriter, r *http.Request, t *table, rt *route, res *router.Result[*route], start time.Time) {
	limit := t.Set.Limits.BodyBytes
	c := h.getCall(w, r, t.Set, rt, nil, start)
	defer h.putCall(c)
	if r.ContentLength > limit {
		h.answerBody(w, r, c, requestbody.TooLarge, limit)
		return
	}
	c.pathNames, c.pathValues = res.Names, res.Params
	if !h.admit(w, r, t, c) {
		return
	}
	c.resp.Plain(c.target(w, nil))
	if requestbody.Has(r) {
		c.rq.Body.Stream(r.Body, limit)
		// A plain route may answer while it still reads the body (an echo,
		// a transform); HTTP/1 servers otherwise stop the body at the
		// first write.
		_ = http.NewResponseController(w).EnableFullDuplex()
	}
	for i, name := range res.Names {
		c.rq.Params[name] = res.Params[i]
	}
	if h.callGuest(w, r, c) {
		sent := c.resp.Sent()
		if !sent && len(c.chain) > 0 {
			mwRunner{h}.runAfter(r, c, c.chain, c.resp.Status(), false, c.resp.Header())
		}
		if !sent {
			c.resp.Commit()
		} else {
			mwRunner{h}.runAfter(r, c, c.chain, c.resp.Status(), true, nil)
		}
	}
	if c.rq.Body.Streams() {
		// Read what the guest left of the body now. In full-duplex mode
		// net/http would otherwise read it while closing the request, and
		// the background read that starts at its end races the next
		// request on the connection ("invalid concurrent Body.Read call").
		if err := c.rq.Body.Drain(); errors.Is(err, requestbody.ErrTooLarge) {
			h.discardBody(w, r, c)
		}
	}
}

// writeDeadline gives the answer about to be written its own
// server.writeTimeout: the request's may be spent reading a slow body or
// running the guest. It is skipped when it would barely move the deadline
// in force (conndeadline.Writes): within 1/64 of server.writeTimeout of
// the one set when the request began (serve), or at a streamed answer's
// last write, an answer keeps at least 63/64 of the timeout for its
// writes. Updating a connection's deadline costs a runtime timer's update
// and a clock reading (about 80 ns), which a buffered answer then pays
// once, and a stream not at every write. A deadline a stream's write cut
// to the call's end is always moved.
func (c *call) writeDeadline(w http.ResponseWriter) {
	timeout := time.Duration(c.set.Server.WriteTimeout)
	c.writes.Set(w, time.Now().Add(timeout), timeout/64)
}

// answerDeadline is writeDeadline for the answer of a call that ran its
// guest, or what follows its stream (its last chunk).
func (c *call) answerDeadline(w http.ResponseWriter) { c.writeDeadline(w) }
