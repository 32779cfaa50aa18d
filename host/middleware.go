package host

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/logtext"
)

// mwRunner runs a request's middleware chain for the host: the before and
// after exports around the handler, the verify export for a scheme, and the
// calls they are made with.
type mwRunner struct{ h requestSide }

// mwCall prepares a call of one middleware export for the request c
// serves. The response headers it sets go straight into header (the
// answer's), so set and add keep their meaning across middleware; nil
// gives it headers of its own. Give it back with putMWCall.
func (run mwRunner) mwCall(c *call, m *edge.Middleware, phase string, header http.Header) *call {
	h := run.h
	mc := h.calls.Get().(*call)
	mc.reset(c.parent, h.Host, c.set, c.route, nil, c.req)
	if header != nil {
		mc.header = header
	}
	mc.deadline, mc.until, mc.timeout, mc.start = c.deadline, c.until, c.timeout, c.start
	mc.owner, mc.mw, mc.phase = c, m, phase
	for k, v := range c.rawParams {
		mc.params[k] = v
	}
	return mc
}

// putMWCall gives back a middleware call; the header map it wrote into
// belongs to the answer, never to the pool.
func (run mwRunner) putMWCall(mc *call) {
	h := run.h
	mc.header = nil
	h.putCall(mc)
}

// callMiddleware calls one export of a middleware and returns its result;
// ok is false when the call failed (trap, deadline, a fault), which it
// logged.
func (run mwRunner) callMiddleware(r *http.Request, mc *call, export string) (result int32, ok bool) {
	h := run.h
	m := mc.mw
	key := "" // the lane of the request's route
	if mc.route != nil {
		key = mc.route.file
	}
	lane := m.Lane(key)
	in, err := lane.Get(mc)
	if err != nil {
		h.logger.Warn("no instance for the request", "middleware", m.File, "error", err)
		return 0, false
	}
	fn := in.Before
	switch export {
	case abi.ExportAfter:
		fn = in.After
	case abi.ExportVerify:
		fn = in.Verify
	}
	span := mc.startSpan(StepGuest, export)
	res, err := fn.Call(mc)
	if waits := (*databaseWaitsError)(nil); errors.As(err, &waits) {
		mc.dbWaits = waits
	}
	healthy := err == nil && mc.fault == ""
	if span != nil {
		mc.spanCtx = nil
		var failed error
		if !healthy {
			failed = guestError(err, 0, mc.fault)
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

// runBefore runs the before export of each middleware of the chain, in
// order. It reports whether the request goes on to the handler; when it
// does not, the answer was written (a middleware's, or a 500).
func (run mwRunner) runBefore(w http.ResponseWriter, r *http.Request, c *call, chain []*edge.Middleware) bool {
	h := run.h
	for _, m := range chain {
		if !m.Has(abi.PhaseBefore) {
			continue
		}
		mc := run.mwCall(c, m, abi.PhaseBefore, w.Header())
		res, ok := run.callMiddleware(r, mc, abi.ExportBefore)
		switch {
		case !ok:
			run.answerMiddlewareFailure(w, r, mc, "")
		case res == abi.MiddlewareAnswered:
			h.discardBody(w, r, c)
			answer.Buffered(w, r, mc.status, "application/json", mc.buf.Bytes())
		case res != abi.MiddlewareContinue:
			h.logger.Error("middleware failed", "middleware", m.File, "export", abi.ExportBefore, "reason", fmt.Sprintf("it returned %d; want %d (continue) or %d (answered)", res, abi.MiddlewareContinue, abi.MiddlewareAnswered))
			run.answerMiddlewareFailure(w, r, mc, fmt.Sprintf("%s returned %d", abi.ExportBefore, res))
			ok = false
		case mc.buf.Len() > 0 || mc.status != http.StatusOK:
			h.logger.Error("middleware failed", "middleware", m.File, "export", abi.ExportBefore, "reason", "it wrote an answer, then continued")
			run.answerMiddlewareFailure(w, r, mc, "it wrote an answer, then returned continue: return answered (1) to send it")
			ok = false
		}
		// On continue, the response headers it set stay in the answer's,
		// whatever the answer is.
		answered := !ok || res != abi.MiddlewareContinue
		run.putMWCall(mc)
		if answered {
			return false
		}
	}
	return true
}

// runAfter runs the after export of each middleware of the chain, in
// reverse order, once the handler answered with status. sent says the
// answer already went out; otherwise the headers they set go into hdr,
// the answer's. A failing after call is logged; the answer stands.
func (run mwRunner) runAfter(r *http.Request, c *call, chain []*edge.Middleware, status int, sent bool, hdr http.Header) {
	h := run.h
	for i := len(chain) - 1; i >= 0; i-- {
		m := chain[i]
		if !m.Has(abi.PhaseAfter) {
			continue
		}
		target := hdr
		if sent {
			target = nil
		}
		mc := run.mwCall(c, m, abi.PhaseAfter, target)
		mc.afterStatus, mc.wroteHeader = status, sent
		if res, ok := run.callMiddleware(r, mc, abi.ExportAfter); ok && res != 0 {
			h.logger.Error("middleware failed", "middleware", m.File, "export", abi.ExportAfter, "reason", fmt.Sprintf("it returned %d", res))
		}
		run.putMWCall(mc)
	}
}

// answerMiddlewareFailure answers 500 for a failed middleware.
func (run mwRunner) answerMiddlewareFailure(w http.ResponseWriter, r *http.Request, mc *call, reason string) {
	h := run.h
	h.discardBody(w, r, mc.owner)
	if mc.dbWaits != nil {
		h.answerDatabaseWaits(w, r, mc.dbWaits, failureData{Middleware: mc.mw.File})
		return
	}
	var data any
	if h.opts.Mode == Development {
		if reason == "" {
			reason = "the middleware failed (see the log)"
		}
		data = failureData{Error: reason, Middleware: mc.mw.File, Output: mc.owner.output}
	}
	writeError(w, r, http.StatusInternalServerError, "", data)
}

// setContext records a context value a middleware passes on.
func (c *call) setContext(name, value []byte) abi.Errno {
	rc := c.requestCall()
	size := rc.contextBytes + len(name) + len(value)
	if old, ok := rc.values[string(name)]; ok {
		size -= len(name) + len(old)
	}
	switch {
	case len(name) == 0 || !utf8.Valid(name) || !utf8.Valid(value):
		return abi.ErrInvalid
	case size > abi.ContextMaxBytes:
		return abi.ErrInvalid
	}
	if rc.values == nil {
		rc.values = map[string]string{}
	}
	if _, ok := rc.values[string(name)]; !ok && len(rc.values) >= abi.ContextMaxValues {
		return abi.ErrInvalid
	}
	rc.values[string(name)] = string(value)
	rc.contextBytes = size
	return 0
}

// setRequestHeader replaces (or, with an empty value, removes) a request
// header for what follows a before middleware. The middleware of a
// request may grow its headers by at most abi.ResponseHeaderMaxCount
// values and abi.ResponseHeaderMaxBytes bytes in all; past that the call
// fails (fault) and the guest gets ErrInvalid.
func (c *call) setRequestHeader(name, value []byte) abi.Errno {
	if c.fault != "" {
		// Told once; a guest that goes on is stopped.
		c.stop.Store(true)
		return abi.ErrInvalid
	}
	key := http.CanonicalHeaderKey(string(name))
	if !abihost.ValidHeader(string(name), string(value)) || slices.Contains(abi.ForbiddenRequestHeaders, key) || !utf8.Valid(value) {
		return abi.ErrInvalid
	}
	rc := c.requestCall()
	count, size := rc.reqHeaderCount, rc.reqHeaderBytes
	for _, v := range c.req.Header[key] {
		count--
		size -= len(key) + len(v)
	}
	if len(value) > 0 {
		count++
		size += len(key) + len(value)
	}
	if count > abi.ResponseHeaderMaxCount || size > abi.ResponseHeaderMaxBytes {
		c.fault = fmt.Sprintf("the middleware set more request headers than the host allows (%d values, %d bytes more than the client sent)", abi.ResponseHeaderMaxCount, abi.ResponseHeaderMaxBytes)
		return abi.ErrInvalid
	}
	rc.reqHeaderCount, rc.reqHeaderBytes = count, size
	if len(value) == 0 {
		c.req.Header.Del(key)
	} else {
		c.req.Header[key] = []string{string(value)}
	}
	return 0
}

// setPrincipal records who a verify middleware says the client is.
func (c *call) setPrincipal(b []byte) abi.Errno {
	if len(b) > abi.ContextMaxBytes {
		return abi.ErrInvalid
	}
	var p abi.Principal
	if err := json.Unmarshal(b, &p, json.RejectUnknownMembers(true)); err != nil || p.Subject == "" || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return abi.ErrInvalid
	}
	c.principal = &p
	return 0
}

// requestCall is the call of the request's handler: for a middleware
// call, its owner.
func (c *call) requestCall() *call {
	if c.owner != nil {
		return c.owner
	}
	return c
}

// loadedMiddleware is one file of server/middleware as a table holds it.
type loadedMiddleware struct {
	hash [32]byte
	mw   *edge.Middleware
	err  error
}

// middlewareFiles loads the modules of server/middleware into the table,
// reusing prev's for files whose bytes did not change. A module that
// fails keeps its previous version, as route modules do.
func (l *loading) middlewareFiles() {
	h, t, prev, report := l.h, l.t, l.prev, &l.report
	t.mwFiles = map[string]*loadedMiddleware{}
	files, err := edge.FindMiddleware(h.app)
	if err != nil {
		l.problem(err, true)
		if prev != nil {
			t.mwFiles, t.middleware = prev.mwFiles, prev.middleware
		}
		return
	}
	for _, f := range files {
		data, hash, err := h.readHashed(f)
		var old *loadedMiddleware
		if prev != nil {
			old = prev.mwFiles[f]
		}
		if err == nil && old != nil && old.hash == hash {
			t.mwFiles[f] = old
			if old.mw != nil {
				t.middleware = append(t.middleware, old.mw)
			}
			if old.err != nil {
				l.problem(old.err, false)
			}
			continue
		}
		lm := &loadedMiddleware{hash: hash}
		if err == nil {
			lm.mw, err = edge.LoadMiddleware(l.ctx, h.engine, data, f, limitInstances(h.opts.Limits))
		}
		if err != nil {
			lm.err = err
			l.problem(err, true)
			if old != nil && old.mw != nil {
				lm.mw = old.mw // the previous version keeps serving
			}
		} else if prev != nil {
			report.note(f, true, old != nil)
		}
		t.mwFiles[f] = lm
		if lm.mw != nil {
			t.middleware = append(t.middleware, lm.mw)
		}
	}
	if prev != nil {
		for f := range prev.mwFiles {
			if _, ok := t.mwFiles[f]; !ok {
				report.Removed = append(report.Removed, f)
			}
		}
	}
}
