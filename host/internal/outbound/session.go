package outbound

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/net/http/httpguts"

	"github.com/wasmendpoints/endpoints/abi"
)

// Limits bound one session.
type Limits struct {
	// Requests is the most requests the session may send; zero is none.
	Requests int
	// Bytes is the most bytes of one response body the guest may read,
	// unless the request asked to stream; zero is no bound.
	Bytes int64
	// HeaderBytes is the most bytes the heads of the session's open
	// responses (their status and headers, as http_response gives them)
	// may hold together: a response whose head would pass it is closed
	// and its http_send fails with the limit code. Zero is no bound.
	HeaderBytes int64
}

// Observe is called when a request is about to be sent, with the
// request (whose headers it may add to, as a tracer adds traceparent):
// it returns the function called once when the request is over, with the
// response's status (0 when none came) and its error. Nil observes
// nothing.
type Observe func(req *http.Request) (done func(status int, err *Error))

// Session is the outbound requests of one guest call: its open responses
// (by handle) and the bytes their heads hold, how many it sent, how long
// they took, its last error. The
// zero Session is not usable: [Session.Start] it. A session is owned by
// the goroutine of its call.
type Session struct {
	ctx     context.Context // the call's, ending a margin before its deadline: bounds every request
	cancel  context.CancelFunc
	client  *Client
	limits  Limits
	observe Observe
	open    []*response // by handle; nil once closed
	held    int64       // bytes of the open responses' heads
	sent    int
	elapsed time.Duration
	last    *Error
}

// response is an open response: its body, its bounds, and what releases
// it.
//
// It keeps the body and the status, not the *http.Response: Go's header
// map of a response costs several times its head's bytes (a map entry
// and a string a field), and the head JSON is all a guest reads of it.
type response struct {
	body   io.ReadCloser
	status int
	head   []byte // the abi.HTTPResponse JSON
	limit  int64  // bytes the guest may read; 0: no bound
	read   int64
	ctx    context.Context // the request's, for the errors of body reads
	// hostport is the host and port of the request, for the errors of
	// body reads.
	hostport string
	eof      bool
	err      *Error // why the body failed; every later read fails with it
	cancel   context.CancelFunc
	slot     func()
	done     func(int, *Error)
}

// Margins of a call's requests: they end a tenth of the time left at
// the call's first request before its deadline, at least
// MinDeadlineMargin and at most MaxDeadlineMargin, as an SQLite
// statement's wait for a lock does.
const (
	MinDeadlineMargin = 50 * time.Millisecond
	MaxDeadlineMargin = time.Second
)

// Start prepares s for a call: requests run under parent (the request's
// context) until a margin before deadline (the call's: a tenth of the
// time left, within [MinDeadlineMargin] and [MaxDeadlineMargin]), so that
// a guest whose service is too slow gets its timeout while it can still
// answer it (a 504 of its own, not the host's 500 at the deadline), or
// until stop is closed (the host stopping its calls; nil for never), with
// the client, limits and observer given. A session that is started again
// is closed first.
func (s *Session) Start(parent context.Context, deadline time.Time, stop <-chan struct{}, c *Client, l Limits, o Observe) {
	s.Close()
	margin := min(max(time.Until(deadline)/10, MinDeadlineMargin), MaxDeadlineMargin)
	ctx, cancel := context.WithDeadline(parent, deadline.Add(-margin))
	if stop != nil {
		// A request waiting on a slow service ends when the host stops,
		// not at its deadline.
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	*s = Session{ctx: ctx, cancel: cancel, client: c, limits: l, observe: o, open: s.open[:0]}
}

// Started reports whether s serves a call.
func (s *Session) Started() bool { return s.client != nil }

// Stats are the requests the session sent and the time its calls spent
// on them (sending, waiting for headers, reading bodies).
func (s *Session) Stats() (requests int, elapsed time.Duration) { return s.sent, s.elapsed }

// LastError is the error of the session's last failed call, nil when none
// failed.
func (s *Session) LastError() *Error { return s.last }

// fail records err as the last error and returns it.
func (s *Session) fail(err *Error) *Error {
	s.last = err
	return err
}

// Send sends the request described by reqJSON ([abi.HTTPRequest]) with
// body, under the session's context (whose deadline bounds the whole
// exchange) and the request's own timeout when it has one (which ends it
// sooner, from now: its headers and every read of its body), and waits for the response's status and headers: it returns
// the response's handle. body is copied: the caller may reuse it.
func (s *Session) Send(reqJSON, body []byte) (int32, *Error) {
	began := time.Now()
	defer func() { s.elapsed += time.Since(began) }()
	if len(reqJSON) > abi.HTTPRequestMaxBytes {
		return -1, s.fail(errorf(abi.HTTPErrorInvalid, "the request JSON has %d bytes, more than %d", len(reqJSON), abi.HTTPRequestMaxBytes))
	}
	var r abi.HTTPRequest
	if err := json.Unmarshal(reqJSON, &r, json.RejectUnknownMembers(true)); err != nil {
		return -1, s.fail(errorf(abi.HTTPErrorInvalid, "the request is not the JSON http_send takes (method, url, headers, stream, timeout: an integer of milliseconds): %v", err))
	}
	req, bad := s.client.newRequest(r, body)
	if bad != nil {
		return -1, s.fail(bad)
	}
	if s.limits.Requests > 0 && s.sent >= s.limits.Requests {
		return -1, s.fail(errorf(abi.HTTPErrorLimit, "this call already sent %d requests (limits.outboundRequests)", s.limits.Requests))
	}
	host, port, _ := hostPort(req.URL)
	hostport := net.JoinHostPort(host, strconv.Itoa(int(port)))
	slot, ok := s.client.acquire(hostport)
	if !ok {
		return -1, s.fail(errorf(abi.HTTPErrorLimit, "%d requests to %s are in flight already (outbound.maxConcurrentPerHost)", s.client.maxPerHost, hostport))
	}
	s.sent++
	var rctx context.Context
	var cancel context.CancelFunc
	if r.Timeout > 0 {
		// The request's own bound, within the call's: a parent that ends
		// first keeps its own cause, so the error names which ended it.
		d := time.Duration(r.Timeout) * time.Millisecond
		rctx, cancel = context.WithTimeoutCause(s.ctx, d, &requestTimeout{d})
	} else {
		rctx, cancel = context.WithCancel(s.ctx)
	}
	req = req.WithContext(rctx)
	var done func(int, *Error)
	if s.observe != nil {
		done = s.observe(req)
	}
	resp, err := s.client.http.Do(req)
	if err != nil {
		cancel()
		slot()
		e := classify(rctx, hostport, err)
		if done != nil {
			done(0, e)
		}
		return -1, s.fail(e)
	}
	// The response does not keep its request (the body copied for it is
	// the transport's until written, then garbage), nor its header map,
	// which the transport's body reaches until its end: the head JSON
	// holds all the guest may read of them.
	rs := &response{body: resp.Body, status: resp.StatusCode, ctx: rctx, hostport: hostport, head: head(resp), cancel: cancel, slot: slot, done: done}
	resp.Request, resp.Header, resp.TLS = nil, nil, nil
	if limit := s.limits.HeaderBytes; limit > 0 && s.held+int64(len(rs.head)) > limit {
		e := errorf(abi.HTTPErrorLimit, "the response of %s has %d bytes of status and headers (as http_response gives them), and the call's open responses hold %d: "+
			"more than the %d of limits.outboundHeaderBytes; close the responses the call is done with (http_close) before sending more, or raise the limit",
			hostport, len(rs.head), s.held, limit)
		s.finish(rs, e)
		return -1, s.fail(e)
	}
	s.held += int64(len(rs.head))
	if !r.Stream {
		rs.limit = s.limits.Bytes
	}
	handle := slices.Index(s.open, nil)
	if handle < 0 {
		handle = len(s.open)
		s.open = append(s.open, rs)
	} else {
		s.open[handle] = rs
	}
	return int32(handle), nil
}

// newRequest checks r and makes its *http.Request.
func (c *Client) newRequest(r abi.HTTPRequest, body []byte) (*http.Request, *Error) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	if !httpguts.ValidHeaderFieldName(method) {
		return nil, errorf(abi.HTTPErrorInvalid, "method %q is not an HTTP token", method)
	}
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, errorf(abi.HTTPErrorInvalid, "url %q: %v", r.URL, err)
	}
	if e := c.checkURL(u, u.Redacted()); e != nil {
		return nil, e
	}
	if r.Timeout < 0 || r.Timeout > abi.HTTPTimeoutMax {
		return nil, errorf(abi.HTTPErrorInvalid, "timeout %d: want the request's bound in milliseconds, from 1 to %d (one hour), or 0 for none (the call's deadline alone)", r.Timeout, abi.HTTPTimeoutMax)
	}
	req, err := http.NewRequest(method, u.String(), bytes.NewReader(bytes.Clone(body)))
	if err != nil {
		return nil, errorf(abi.HTTPErrorInvalid, "%v", err)
	}
	if len(body) == 0 {
		req.Body, req.GetBody, req.ContentLength = http.NoBody, nil, 0
	}
	if len(r.Headers) > abi.HTTPRequestHeaderMaxCount {
		return nil, errorf(abi.HTTPErrorInvalid, "the request has %d header values, more than the %d a request may have (abi.HTTPRequestHeaderMaxCount)", len(r.Headers), abi.HTTPRequestHeaderMaxCount)
	}
	size := 0
	for _, kv := range r.Headers {
		size += len(kv[0]) + len(kv[1])
	}
	if size > abi.HTTPRequestHeaderMaxBytes {
		return nil, errorf(abi.HTTPErrorInvalid, "the request's header names and values hold %d bytes, more than the %d a request may have (abi.HTTPRequestHeaderMaxBytes)", size, abi.HTTPRequestHeaderMaxBytes)
	}
	for _, kv := range r.Headers {
		name, value := kv[0], kv[1]
		switch {
		case !httpguts.ValidHeaderFieldName(name):
			return nil, errorf(abi.HTTPErrorInvalid, "header name %q is not an HTTP token", name)
		case !httpguts.ValidHeaderFieldValue(value) || strings.ContainsAny(value, "\r\n\x00"):
			return nil, errorf(abi.HTTPErrorInvalid, "header %s: the value holds CR, LF, NUL or another control character", name)
		case slices.Contains(abi.ForbiddenRequestHeaders, http.CanonicalHeaderKey(name)):
			return nil, errorf(abi.HTTPErrorInvalid, "header %s is the host's (it frames the request)", name)
		}
		req.Header.Add(name, value)
	}
	return req, nil
}

// head encodes a response's status and headers as abi.HTTPResponse,
// names in lower case and sorted. A value's bytes that are not UTF-8
// (HTTP lets a service send any but CR, LF and NUL) become U+FFFD, as in
// the incoming request's envelope: the head is always whole, valid JSON.
//
// It writes the JSON itself, into a buffer of the size the fields need
// unescaped, rather than marshal an abi.HTTPResponse: that made a copy
// of every field, a lower-case name a value and a grown buffer, more
// than Go's parsing of the head allocates (BenchmarkOpenResponse).
func head(resp *http.Response) []byte {
	names := make([]string, 0, len(resp.Header))
	size := len(`{"status":000,"headers":[]}`)
	for name, values := range resp.Header {
		names = append(names, name)
		for _, v := range values {
			size += len(`["",""],`) + len(name) + len(v)
		}
	}
	slices.Sort(names)
	b := make([]byte, 0, size)
	b = append(b, `{"status":`...)
	b = strconv.AppendInt(b, int64(resp.StatusCode), 10)
	b = append(b, `,"headers":[`...)
	var lower []byte
	first := true
	for _, name := range names {
		// A field name is a token: ASCII, so lower case is ASCII's.
		lower = append(lower[:0], name...)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		for _, v := range resp.Header[name] {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '[')
			b, _ = jsontext.AppendQuote(b, lower)
			b = append(b, ',')
			// Bytes that are not UTF-8 are written as U+FFFD; the error
			// only says there were some.
			b, _ = jsontext.AppendQuote(b, v)
			b = append(b, ']')
		}
	}
	b = append(b, "]}"...)
	if len(b) > size {
		// Escapes grew the buffer past its size: keep what it holds, not
		// its spare capacity.
		b = bytes.Clone(b)
	}
	return b
}

// get is the open response of handle.
func (s *Session) get(handle int32) (*response, *Error) {
	if handle < 0 || int(handle) >= len(s.open) || s.open[handle] == nil {
		return nil, s.fail(errorf(abi.HTTPErrorInvalid, "handle %d is not an open response", handle))
	}
	return s.open[handle], nil
}

// Open reports whether handle is an open response of s.
func (s *Session) Open(handle int32) bool {
	return handle >= 0 && int(handle) < len(s.open) && s.open[handle] != nil
}

// Response is the status and headers of handle's response
// ([abi.HTTPResponse] JSON), false for a handle that is not open.
func (s *Session) Response(handle int32) ([]byte, bool) {
	rs, err := s.get(handle)
	if err != nil {
		return nil, false
	}
	return rs.head, true
}

// Read reads the next bytes of handle's response body into dst: 0 at its
// end. Past the session's Bytes (for a request that did not ask to
// stream) it fails with the limit code; a closed handle fails as invalid.
func (s *Session) Read(handle int32, dst []byte) (int, *Error) {
	rs, e := s.get(handle)
	if e != nil {
		return 0, e
	}
	if rs.err != nil {
		return 0, s.fail(rs.err)
	}
	if rs.eof || len(dst) == 0 {
		return 0, nil
	}
	began := time.Now()
	defer func() { s.elapsed += time.Since(began) }()
	if rs.limit > 0 {
		left := rs.limit - rs.read
		if left <= 0 {
			// At the bound: one byte more is one too many.
			var one [1]byte
			n, err := io.ReadFull(rs.body, one[:])
			if n == 0 && (err == io.EOF || err == io.ErrUnexpectedEOF) {
				s.finish(rs, nil)
				return 0, nil
			}
			rs.err = errorf(abi.HTTPErrorLimit, "the response body of %s is larger than %d bytes (limits.outboundBytes); ask to stream it to read it all, or raise the limit", rs.hostport, rs.limit)
			s.finish(rs, rs.err)
			return 0, s.fail(rs.err)
		}
		dst = dst[:min(int64(len(dst)), left)]
	}
	n, err := rs.body.Read(dst)
	rs.read += int64(n)
	switch {
	case err == io.EOF:
		s.finish(rs, nil)
	case err != nil && n == 0:
		rs.err = classify(rs.ctx, rs.hostport, err)
		s.finish(rs, rs.err)
		return 0, s.fail(rs.err)
	}
	return n, nil
}

// finish releases what a response holds once its body is over (read
// whole, failed or closed); its handle stays open for http_response.
func (s *Session) finish(rs *response, err *Error) {
	if rs.eof {
		return
	}
	rs.eof = true
	rs.body.Close()
	rs.cancel()
	rs.slot()
	if rs.done != nil {
		rs.done(rs.status, err)
	}
}

// CloseHandle releases handle's response, its head's bytes given back to
// the session's HeaderBytes: false for a handle that is not open.
func (s *Session) CloseHandle(handle int32) bool {
	rs, e := s.get(handle)
	if e != nil {
		return false
	}
	s.finish(rs, nil)
	s.open[handle] = nil
	s.held -= int64(len(rs.head))
	return true
}

// Close releases every open response, when the call ends.
func (s *Session) Close() {
	for i, rs := range s.open {
		if rs != nil {
			s.finish(rs, nil)
			s.open[i] = nil
		}
	}
	s.open = s.open[:0]
	s.held = 0
	if s.cancel != nil {
		s.cancel()
	}
}
