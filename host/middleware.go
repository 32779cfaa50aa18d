package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/answer"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/logtext"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/openapi"
)

// middleware is a loaded module of server/middleware: code that wraps the
// handlers of the routes its declaration selects (abi.ExportBefore,
// abi.ExportAfter), or verifies a security scheme's credentials
// (abi.ExportVerify).
type middleware struct {
	file string // server/middleware/10-audit.wasm
	name string // 10-audit
	pool *engine.Pool
	decl abi.Middleware
	// before, after and verifies say which exports it has.
	before, after, verifies bool
}

// applies reports whether m wraps requests to the route (client form)
// with method.
func (m *middleware) applies(route, method string) bool {
	if len(m.decl.Methods) > 0 && !slices.Contains(m.decl.Methods, method) &&
		!(method == http.MethodHead && slices.Contains(m.decl.Methods, http.MethodGet)) {
		return false
	}
	if len(m.decl.Routes) == 0 {
		return true
	}
	for _, p := range m.decl.Routes {
		if openapi.MatchRoutePattern(p, route) {
			return true
		}
	}
	return false
}

// findMiddleware lists the *.wasm files of server/middleware, in byte
// order of their names.
func findMiddleware(appDir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(appDir, filepath.FromSlash(abi.MiddlewareDir)))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.Type()&fs.ModeType == 0 && strings.HasSuffix(e.Name(), routefile.Extension) {
			files = append(files, path.Join(abi.MiddlewareDir, e.Name()))
		}
	}
	slices.Sort(files)
	return files, nil
}

// loadMiddleware compiles a middleware module, checks its exports and
// reads its declaration.
func loadMiddleware(ctx context.Context, e *engine.Engine, wasm []byte, file string, poolSize int) (*middleware, error) {
	c, err := e.Prepare(ctx, wasm, file, true)
	if err != nil {
		return nil, err
	}
	compiled := c.Compiled()
	m := &middleware{file: file, name: strings.TrimSuffix(path.Base(file), routefile.Extension)}
	if err := m.checkExports(compiled.ExportedFunctions(), compiled.ExportedMemories()); err != nil {
		_ = c.Close(ctx)
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	m.pool = e.NewPool(c, file, poolSize, true)
	lc := e.LoadCall(ctx, file)
	in, err := m.pool.Warm(lc)
	if err != nil {
		_ = c.Close(ctx)
		return nil, err
	}
	fail := func(err error) (*middleware, error) {
		in.Close(ctx)
		_ = c.Close(ctx)
		return nil, err
	}
	if err := engine.CheckVersion(in, lc, file); err != nil {
		return fail(err)
	}
	if in.Mod.ExportedFunction(abi.ExportMiddleware) != nil {
		b, err := engine.ExportedBytes(in, lc, file, abi.ExportMiddleware, abi.ContractMaxBytes)
		if err != nil {
			return fail(err)
		}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &m.decl, json.RejectUnknownMembers(true)); err != nil {
				return fail(fmt.Errorf("%s: middleware declaration: %v (allowed keys: routes, methods, phases, responses)", file, err))
			}
		} else {
			return fail(fmt.Errorf("%s: %s returned no declaration: a Go middleware calls endpoints.DeclareMiddleware from init; a module meant for every route may leave the export out", file, abi.ExportMiddleware))
		}
		if len(m.decl.Phases) > 0 {
			has := map[string]*bool{abi.PhaseBefore: &m.before, abi.PhaseAfter: &m.after, abi.PhaseVerify: &m.verifies}
			exported := map[string]bool{abi.PhaseBefore: m.before, abi.PhaseAfter: m.after, abi.PhaseVerify: m.verifies}
			for _, p := range []string{abi.PhaseBefore, abi.PhaseAfter, abi.PhaseVerify} {
				*has[p] = false
			}
			for i, p := range m.decl.Phases {
				flag, ok := has[p]
				switch {
				case !ok:
					return fail(fmt.Errorf("%s: middleware declaration: /phases/%d: %q: want \"before\", \"after\" or \"verify\"", file, i, p))
				case !exported[p]:
					return fail(fmt.Errorf("%s: middleware declaration: /phases/%d: %q, but the module does not export endpoints_%s", file, i, p, p))
				}
				*flag = true
			}
		}
		for i, p := range m.decl.Routes {
			if err := openapi.CheckRoutePattern(p); err != nil {
				return fail(fmt.Errorf("%s: middleware declaration: /routes/%d: pattern %q: %v", file, i, p, err))
			}
		}
		for i, meth := range m.decl.Methods {
			if !slices.Contains(routefile.Methods, strings.ToLower(meth)) || meth != strings.ToUpper(meth) {
				return fail(fmt.Errorf("%s: middleware declaration: /methods/%d: %q: want an upper-case method such as \"POST\"", file, i, meth))
			}
		}
		if err := edge.CheckMiddlewareResponses(file, m.decl.Responses); err != nil {
			return fail(err)
		}
	}
	m.pool.Park(in)
	e.CompileLater(m.pool)
	return m, nil
}

// checkExports checks the exports of a middleware module and records
// which of before, after and verify it has.
func (m *middleware) checkExports(fns map[string]api.FunctionDefinition, mems map[string]api.MemoryDefinition) error {
	i32 := []api.ValueType{api.ValueTypeI32}
	check := func(name string, results []api.ValueType) (bool, error) {
		fn, ok := fns[name]
		if !ok {
			return false, nil
		}
		if len(fn.ParamTypes()) != 0 || !engine.SameTypes(fn.ResultTypes(), results) {
			return false, fmt.Errorf("export %q has signature %s, ABI v%d wants %s", name, engine.Signature(fn.ParamTypes(), fn.ResultTypes()), abi.Version, engine.Signature(nil, results))
		}
		return true, nil
	}
	var err error
	if ok, e := check(abi.ExportABIVersion, i32); e != nil || !ok {
		if e != nil {
			return e
		}
		return fmt.Errorf("not an Endpoints middleware module: missing export %q (ABI v%d); build it with an Endpoints SDK", abi.ExportABIVersion, abi.Version)
	}
	if _, err = check(abi.ExportMiddleware, []api.ValueType{api.ValueTypeI64}); err != nil {
		return err
	}
	if m.before, err = check(abi.ExportBefore, i32); err != nil {
		return err
	}
	if m.after, err = check(abi.ExportAfter, i32); err != nil {
		return err
	}
	if m.verifies, err = check(abi.ExportVerify, i32); err != nil {
		return err
	}
	if !m.before && !m.after && !m.verifies {
		return fmt.Errorf("not an Endpoints middleware module: it exports none of %q, %q and %q", abi.ExportBefore, abi.ExportAfter, abi.ExportVerify)
	}
	if _, ok := mems[abi.ExportMemory]; !ok {
		return fmt.Errorf("not an Endpoints middleware module: missing exported memory %q", abi.ExportMemory)
	}
	return nil
}

// lane is the share of m's instances the requests to rt use: a lane per
// route, each as large as the route's own pool, so that slow calls for one
// route never stall the middleware for another (engine.Lane).
func (m *middleware) lane(rt *route) *engine.Lane {
	key := ""
	if rt != nil {
		key = rt.file
	}
	return m.pool.Lane(key)
}

// middlewareNamed returns the loaded middleware of that name (its file
// name without .wasm), or nil.
func (t *table) middlewareNamed(name string) *middleware {
	for _, m := range t.middleware {
		if m.name == name {
			return m
		}
	}
	return nil
}

// chain lists the middleware that wrap a request to rt with method, in
// order.
func (t *table) chain(rt *route, method string) []*middleware {
	if len(t.middleware) == 0 {
		return nil
	}
	var out []*middleware
	pattern := rt.pattern
	for _, m := range t.middleware {
		if (m.before || m.after) && m.applies(pattern, method) {
			out = append(out, m)
		}
	}
	return out
}

// mwRunner runs a request's middleware chain for the host: the before and
// after exports around the handler, the verify export for a scheme, and the
// calls they are made with.
type mwRunner struct{ h requestSide }

// mwCall prepares a call of one middleware export for the request c
// serves. The response headers it sets go straight into header (the
// answer's), so set and add keep their meaning across middleware; nil
// gives it headers of its own. Give it back with putMWCall.
func (run mwRunner) mwCall(c *call, m *middleware, phase string, header http.Header) *call {
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
	lane := m.lane(mc.route)
	in, err := lane.Get(mc)
	if err != nil {
		h.logger.Warn("no instance for the request", "middleware", m.file, "error", err)
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
		h.logger.Error("middleware failed", "middleware", m.file, "export", export, "method", r.Method, "path", logtext.Cut(r.URL.Path), "reason", reason)
	}
	return 0, false
}

// runBefore runs the before export of each middleware of the chain, in
// order. It reports whether the request goes on to the handler; when it
// does not, the answer was written (a middleware's, or a 500).
func (run mwRunner) runBefore(w http.ResponseWriter, r *http.Request, c *call, chain []*middleware) bool {
	h := run.h
	for _, m := range chain {
		if !m.before {
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
			h.logger.Error("middleware failed", "middleware", m.file, "export", abi.ExportBefore, "reason", fmt.Sprintf("it returned %d; want %d (continue) or %d (answered)", res, abi.MiddlewareContinue, abi.MiddlewareAnswered))
			run.answerMiddlewareFailure(w, r, mc, fmt.Sprintf("%s returned %d", abi.ExportBefore, res))
			ok = false
		case mc.buf.Len() > 0 || mc.status != http.StatusOK:
			h.logger.Error("middleware failed", "middleware", m.file, "export", abi.ExportBefore, "reason", "it wrote an answer, then continued")
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
func (run mwRunner) runAfter(r *http.Request, c *call, chain []*middleware, status int, sent bool, hdr http.Header) {
	h := run.h
	for i := len(chain) - 1; i >= 0; i-- {
		m := chain[i]
		if !m.after {
			continue
		}
		target := hdr
		if sent {
			target = nil
		}
		mc := run.mwCall(c, m, abi.PhaseAfter, target)
		mc.afterStatus, mc.wroteHeader = status, sent
		if res, ok := run.callMiddleware(r, mc, abi.ExportAfter); ok && res != 0 {
			h.logger.Error("middleware failed", "middleware", m.file, "export", abi.ExportAfter, "reason", fmt.Sprintf("it returned %d", res))
		}
		run.putMWCall(mc)
	}
}

// verify runs a middleware's verify export for a security scheme.
func (m *middleware) verify(c *call, r *http.Request, scheme string) (*abi.Principal, *auth.Failure, error) {
	run := mwRunner{requestSide{c.host}}
	mc := run.mwCall(c, m, abi.PhaseVerify, nil)
	defer run.putMWCall(mc)
	mc.verify = &abi.VerifyRequest{Scheme: scheme}
	res, ok := run.callMiddleware(r, mc, abi.ExportVerify)
	switch {
	case !ok:
		return nil, nil, fmt.Errorf("%s: %s failed (see the log)", m.file, abi.ExportVerify)
	case res == abi.VerifyMissing:
		return nil, &auth.Failure{Missing: true}, nil
	case res == abi.VerifyRejected:
		return nil, &auth.Failure{Reason: "the credential was rejected"}, nil
	case res != abi.VerifyOK:
		return nil, nil, fmt.Errorf("%s: %s returned %d; want 0 (ok), 1 (missing) or 2 (rejected)", m.file, abi.ExportVerify, res)
	case mc.principal == nil:
		return nil, nil, fmt.Errorf("%s: %s returned ok without calling %s", m.file, abi.ExportVerify, abi.ImportPrincipalSet)
	}
	p := *mc.principal
	p.Scheme = scheme
	return &p, nil, nil
}

// answerMiddlewareFailure answers 500 for a failed middleware.
func (run mwRunner) answerMiddlewareFailure(w http.ResponseWriter, r *http.Request, mc *call, reason string) {
	h := run.h
	h.discardBody(w, r, mc.owner)
	if mc.dbWaits != nil {
		h.answerDatabaseWaits(w, r, mc.dbWaits, failureData{Middleware: mc.mw.file})
		return
	}
	var data any
	if h.opts.Mode == Development {
		if reason == "" {
			reason = "the middleware failed (see the log)"
		}
		data = failureData{Error: reason, Middleware: mc.mw.file, Output: mc.owner.output}
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
	mw   *middleware
	err  error
}

// middlewareFiles loads the modules of server/middleware into the table,
// reusing prev's for files whose bytes did not change. A module that
// fails keeps its previous version, as route modules do.
func (l *loading) middlewareFiles() {
	h, t, prev, report := l.h, l.t, l.prev, &l.report
	t.mwFiles = map[string]*loadedMiddleware{}
	files, err := findMiddleware(h.app)
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
			lm.mw, err = loadMiddleware(l.ctx, h.engine, data, f, limitInstances(h.opts.Limits))
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
