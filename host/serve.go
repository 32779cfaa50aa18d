package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/negotiate"
	"github.com/wasmendpoints/endpoints/internal/router"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// ServeHTTP routes the request and runs the pipeline of SPEC.md §4.
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := h.acquire()
	defer h.releaseTable(t)
	if t.set.served && r.URL.Path == t.set.docPath {
		if t.doc == nil {
			writeError(w, r, http.StatusInternalServerError, "", h.documentProblem(t))
			return
		}
		serveDocument(w, r, t.doc)
		return
	}
	if t.set.docs != nil && t.set.docs.serve(w, r) {
		return
	}
	res := t.router.Match(r.Method, r.URL.EscapedPath())
	if !res.Found {
		if h.opts.Fallback != nil {
			h.opts.Fallback.ServeHTTP(w, r)
			return
		}
		writeError(w, r, http.StatusNotFound, "", map[string]string{"path": r.URL.Path})
		return
	}
	if !res.Allowed {
		h.refuseMethod(w, r, res.Allow)
		return
	}
	rt := res.Value
	if rt.plain {
		h.servePlain(w, r, t, rt, &res)
		return
	}
	op := rt.ops[r.Method]
	if op == nil && r.Method == http.MethodHead {
		op = rt.ops[http.MethodGet]
	}
	if op == nil {
		h.refuseMethod(w, r, rt.allow)
		return
	}
	h.serveEndpoint(w, r, t, rt, op, &res)
}

// refuseMethod answers OPTIONS with 204 and any other method with 405, both
// with Allow (RFC 9110 §15.5.6).
func (h *Host) refuseMethod(w http.ResponseWriter, r *http.Request, allow []string) {
	w.Header().Set("Allow", strings.Join(allow, ", "))
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeError(w, r, http.StatusMethodNotAllowed, "", map[string]any{"method": r.Method, "allow": allow})
}

func (h *Host) getCall(w http.ResponseWriter, r *http.Request, set *settings, rt *route, op *operation) *call {
	c := h.calls.Get().(*call)
	c.reset(r.Context(), h, set, rt, op, r)
	return c
}

func (h *Host) putCall(c *call) {
	c.parent, c.req, c.w, c.bodySrc, c.route, c.op = nil, nil, nil, nil, nil, nil
	c.body, c.bodyRaw, c.out = nil, nil, nil
	if c.multipart != nil {
		if err := c.multipart.Close(); err != nil {
			h.logger.Warn("removing uploaded files failed", "error", err)
		}
		c.multipart = nil
	}
	c.failure = nil
	if c.buf.Cap() > 64<<10 {
		c.buf = bytes.Buffer{}
	}
	h.calls.Put(c)
}

// hasBody reports whether the request carries a body.
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// readBody reads the whole body up to limit; over it reports tooLarge.
func readBody(r *http.Request, limit int64) (body []byte, tooLarge bool, err error) {
	if r.ContentLength > limit {
		return nil, true, nil
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	n, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, false, err
	}
	if n > limit {
		return nil, true, nil
	}
	return buf.Bytes(), false, nil
}

func (h *Host) serveEndpoint(w http.ResponseWriter, r *http.Request, t *table, rt *route, op *operation, res *router.Result[*route]) {
	limit := t.set.opts.Limits.bodyBytes()
	if op.bodyLimit > 0 {
		limit = op.bodyLimit
	}
	var issues ValidationData

	c := h.getCall(w, r, t.set, rt, op)
	defer h.putCall(c)
	c.out = w

	// Step 2: content negotiation, for operations that offer several types.
	if op.negotiates() {
		w.Header().Add("Vary", "Accept")
		accept := strings.Join(r.Header.Values("Accept"), ", ")
		chosen, ok := negotiate.Choose(accept, op.offers)
		if !ok {
			h.refuse(w, r, c, t, &abi.ValidationFailure{Kind: abi.FailureAccept, Status: http.StatusNotAcceptable, Part: abi.PartHeaders.String(), Received: accept, SupportedMediaTypes: op.offers})
			return
		}
		c.mediaType = chosen
	}

	// Steps 3 and 4: media type, size, parse.
	switch {
	case op.body != nil && hasBody(r):
		ct := r.Header.Get("Content-Type")
		bt, mt := op.bodyTypeFor(ct)
		if bt == nil {
			h.refuse(w, r, c, t, &abi.ValidationFailure{Kind: abi.FailureMediaType, Status: http.StatusUnsupportedMediaType, Part: abi.PartBody.String(), Received: ct, SupportedMediaTypes: op.bodySupported})
			return
		}
		c.contentType = mt
		switch h.readDeclaredBody(w, r, c, bt, limit, &issues) {
		case bodyTooLarge:
			writeError(w, r, http.StatusRequestEntityTooLarge, "", map[string]int64{"limit": limit})
			return
		case bodyFailed:
			writeError(w, r, http.StatusBadRequest, "", map[string]string{"error": "the request body could not be read"})
			return
		case bodyUnstored:
			writeError(w, r, http.StatusInternalServerError, "", nil)
			return
		}
	case op.body == nil && hasBody(r) && op.contract.Idempotency != nil:
		// No body schema: an idempotent request counts by its raw bytes.
		raw, tooLarge, err := readBody(r, limit)
		if tooLarge {
			writeError(w, r, http.StatusRequestEntityTooLarge, "", map[string]int64{"limit": limit})
			return
		}
		if err != nil {
			writeError(w, r, http.StatusBadRequest, "", map[string]string{"error": "the request body could not be read"})
			return
		}
		c.bodyRaw = raw
	case op.body == nil && hasBody(r):
		if r.ContentLength > limit {
			writeError(w, r, http.StatusRequestEntityTooLarge, "", map[string]int64{"limit": limit})
			return
		}
		c.bodySrc = http.MaxBytesReader(w, r.Body, limit)
	}
	if op.body != nil && !c.bodyPresent && issues.Body == nil && op.bodyRequired {
		issues.Body = []validation.Issue{{Path: []any{}, Message: "a request body is required (" + strings.Join(op.bodySupported, ", ") + ")"}}
	}

	// Step 5: coerce, default and validate every part.
	for i, name := range res.Names {
		if op.params != nil {
			c.params[name] = op.params.CoerceString(name, res.Params[i])
		} else {
			c.params[name] = res.Params[i]
		}
	}
	if op.params != nil {
		op.params.ApplyDefaults(c.params)
		issues.Params = op.params.Validate(c.params)
	}
	if op.query != nil {
		for k, vs := range r.URL.Query() {
			c.query[k] = op.query.CoerceStrings(k, vs)
		}
		op.query.ApplyDefaults(c.query)
		issues.Query = op.query.Validate(c.query)
	}
	if op.headers != nil {
		for _, name := range op.headers.Properties() {
			if vs := r.Header.Values(name); len(vs) > 0 {
				c.headers[name] = op.headers.CoerceStrings(name, splitHeaderValues(vs))
			}
		}
		op.headers.ApplyDefaults(c.headers)
		issues.Headers = op.headers.Validate(c.headers)
	}
	if !issues.empty() {
		h.refuse(w, r, c, t, issues.failure())
		return
	}

	// Step 6: Idempotency-Key.
	if op.contract.Idempotency != nil {
		if !h.claimIdempotency(w, r, c) {
			return
		}
		// Whatever ends the call without a stored answer frees the key.
		defer h.releaseIdempotency(r, c)
	}

	// Step 7: the guest.
	if !h.callGuest(w, r, c) {
		return
	}

	// Step 8: check and send the answer (a streamed one is already out).
	if c.wroteHeader {
		h.completeIdempotency(w, r, c, c.status, c.header, c.idemTee.Bytes(), true)
		return
	}
	h.finishEndpoint(w, r, c, op)
}

// splitHeaderValues splits comma-separated header lines into values.
func splitHeaderValues(vs []string) []string {
	if len(vs) == 1 && !strings.Contains(vs[0], ",") {
		return vs
	}
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// jsonSyntaxMessage phrases a JSON syntax error for a client.
func jsonSyntaxMessage(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of input"
	}
	return err.Error()
}

// callGuest runs the handler on a pooled instance. It reports whether the
// guest answered; when it did not, the failure was answered and logged.
func (h *Host) callGuest(w http.ResponseWriter, r *http.Request, c *call) bool {
	pool := c.route.mod.pool
	in, err := pool.get(c)
	if err != nil {
		h.logger.Warn("no instance for the request", "route", c.route.file, "error", err)
		writeError(w, r, http.StatusServiceUnavailable, "", nil)
		return false
	}
	res, err := in.handle.Call(c)
	// Any failure discards the instance, a reported one too: the guest's
	// own state (a Go SDK that recovered a panic, a half-filled table) may
	// be half-updated, and a fresh instance costs milliseconds.
	var code int32 = -1
	if err == nil {
		code = int32(res[0])
	}
	ok := err == nil && code == 0
	pool.put(r.Context(), in, ok)
	if ok {
		return true
	}
	reason, gone := h.failureReason(c, r, err, code)
	if gone {
		h.logger.Info("client went away; guest stopped", "route", c.route.file, "method", r.Method, "path", r.URL.Path)
		return false
	}
	h.logger.Error("guest failed", "route", c.route.file, "method", r.Method, "path", r.URL.Path, "reason", reason)
	if c.wroteHeader {
		// Bytes already reached the client: the only honest end is to
		// abort the response so the client sees it truncated.
		panic(http.ErrAbortHandler)
	}
	var data any
	if h.opts.Mode == Development {
		data = map[string]string{"error": reason, "route": c.route.file}
	}
	status := http.StatusInternalServerError
	if interrupted(err) && h.engine.stopping() {
		status = http.StatusServiceUnavailable
	}
	writeError(w, r, status, "", data)
	return false
}

// failureReason phrases why a guest call failed, for the log and the
// development 500; gone reports a call stopped because its client left.
// code is the guest's result when err is nil.
func (h *Host) failureReason(c *call, r *http.Request, err error, code int32) (reason string, gone bool) {
	timeout := c.set.opts.Limits.timeout()
	switch {
	case err == nil:
		return fmt.Sprintf("the handler returned error code %d", code), false
	case interrupted(err) && r.Context().Err() != nil:
		return "", true
	case interrupted(err) && h.engine.stopping():
		return "the host shut down while the handler ran; it was stopped", false
	case interrupted(err):
		return fmt.Sprintf("the handler ran past its %s deadline and was stopped", timeout), false
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return fmt.Sprintf("the guest exited with code %d (a Go panic or fatal error exits with 2; see the guest output above)", exit.ExitCode()), false
	}
	return "the guest trapped: " + err.Error(), false
}

// finishEndpoint checks the buffered answer against the contract and sends
// it.
func (h *Host) finishEndpoint(w http.ResponseWriter, r *http.Request, c *call, op *operation) {
	status, body := c.status, c.buf.Bytes()
	if c.set.checked && op.responses != nil {
		if issues := op.checkAnswer(status, body); issues != nil {
			h.logger.Error("answer breaks the contract", "route", c.route.file, "status", status, "issues", fmt.Sprint(issues))
			writeError(w, r, http.StatusInternalServerError, MessageResponseContract, ContractErrorData{Status: status, Issues: issues})
			return
		}
	}
	hdr := w.Header()
	for k, vs := range c.header {
		hdr[k] = vs
	}
	bodyless := status == http.StatusNoContent || status == http.StatusNotModified || status < 200
	if len(body) > 0 && !bodyless && hdr.Get("Content-Type") == "" {
		ct := "application/json"
		if d := op.responses[status]; d != nil && d.contentType != "" {
			ct = d.contentType
		}
		hdr.Set("Content-Type", ct)
	}
	if !bodyless {
		hdr.Set("Content-Length", strconv.Itoa(len(body)))
	}
	if !h.completeIdempotency(w, r, c, status, hdr, body, false) {
		return
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead && !bodyless {
		_, _ = w.Write(body)
	}
}

// checkAnswer returns what is wrong with an answer, or nil.
func (op *operation) checkAnswer(status int, body []byte) []validation.Issue {
	d, ok := op.responses[status]
	if !ok {
		return []validation.Issue{{Path: []any{}, Message: fmt.Sprintf("status %d is not declared in the contract (declared: %s)", status, op.statuses)}}
	}
	if d.schema == nil {
		return nil
	}
	if len(body) == 0 {
		return []validation.Issue{{Path: []any{}, Message: fmt.Sprintf("the body is empty, but the contract declares a JSON body for status %d", status)}}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return []validation.Issue{{Path: []any{}, Message: "the body is not valid JSON: " + err.Error()}}
	}
	return d.schema.Validate(v)
}

func (h *Host) servePlain(w http.ResponseWriter, r *http.Request, t *table, rt *route, res *router.Result[*route]) {
	limit := t.set.opts.Limits.bodyBytes()
	if r.ContentLength > limit {
		writeError(w, r, http.StatusRequestEntityTooLarge, "", map[string]int64{"limit": limit})
		return
	}
	c := h.getCall(w, r, t.set, rt, nil)
	defer h.putCall(c)
	c.w = w
	if hasBody(r) {
		c.bodySrc = http.MaxBytesReader(w, r.Body, limit)
		// A plain route may answer while it still reads the body (an echo,
		// a transform); HTTP/1 servers otherwise stop the body at the
		// first write.
		_ = http.NewResponseController(w).EnableFullDuplex()
	}
	for i, name := range res.Names {
		c.params[name] = res.Params[i]
	}
	if !h.callGuest(w, r, c) {
		return
	}
	if !c.wroteHeader {
		c.commit()
	}
}
