// Package guestrequest is the request side of a guest call: the request as
// the pipeline validated and coerced it (docs/spec.md §4 steps 5-7), its
// body as read or still to read, what its middleware and security added to
// it (its id, the principal, the context values and headers middleware
// passed on), and what the guest reads of it (abi/README.md §3 and §4): one
// value at a time (request_value, [Request.Value]) or the whole envelope
// ([Request.Envelope], encoded on first use).
//
// A [Request] is a field of the host's per-request call, reused from call
// to call ([Request.Reset]). It is owned by the goroutine serving the
// request: the pipeline fills it and the host functions of the call read
// it, on that goroutine. A middleware call's Request serves the request's
// ([Request.Serve]): what middleware pass on is the request's.
package guestrequest

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/envelope"
	"github.com/wasmendpoints/endpoints/host/internal/idempotency"
	"github.com/wasmendpoints/endpoints/host/internal/observe"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
)

// Request is the request of one guest call. The zero Request is a
// call's with no request (a module's code run at load, the runtime
// declaration's extend step); [Request.Reset] prepares it for one.
type Request struct {
	// HTTP is the request; nil for a call with none.
	HTTP *http.Request
	// Loading says the call reads a module's contract at load: it has no
	// request. LoadTimeout is its deadline's length, for errors.
	Loading     bool
	LoadTimeout time.Duration
	// Params, Query and Headers are the path parameters, query and
	// headers as validated and coerced (a plain route's Params as
	// routed); Body is the body as steps 5 and 6 took it, or as the guest
	// streams it (package requestbody).
	Params, Query, Headers map[string]any
	Body                   requestbody.Body
	// Plain says the parts were not validated (a plain route): the guest
	// reads the raw headers.
	Plain bool
	// Start is when the request began, for server.readTimeout.
	Start time.Time
	// Issues are what steps 6 and 7 found wrong with the parts; Failure
	// is set while an onValidationError hook runs.
	Issues  Issues
	Failure *abi.ValidationFailure
	// Idem is the Idempotency-Key claimed for the call, until the answer
	// is stored or the key released, and the streamed answer kept for the
	// store (package idempotency).
	Idem idempotency.Key

	// ID, Principal and Passed are what the request carries past its
	// middleware and security: the request id, the principal the host
	// verified (in a verify call, the one the middleware set), and what
	// middleware passed on. A middleware call reads and sets its
	// request's (Of), apart from a verify call's Principal.
	ID        string
	Principal *abi.Principal
	Passed    edge.Passed

	// owner is the request a middleware call serves; nil otherwise.
	owner *Request
	// envelope is the encoded envelope, once a guest asked for it;
	// scratch the buffer of single values and the Idempotency-Key step.
	envelope, scratch []byte
}

// Reset prepares a pooled request for r, which began at now, keeping its
// maps and buffers; plain says its parts are not validated.
func (q *Request) Reset(r *http.Request, plain bool, now time.Time) {
	*q = Request{
		HTTP:     r,
		Plain:    plain,
		Start:    now,
		Params:   reuse(q.Params),
		Query:    reuse(q.Query),
		Headers:  reuse(q.Headers),
		Idem:     q.Idem,
		envelope: q.envelope[:0],
		scratch:  q.scratch[:0],
	}
	q.Idem.Reset()
}

// reuse empties a map of a pooled request for the next one.
func reuse(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	clear(m)
	return m
}

// Release drops what the request holds once its call is over, the
// files of its uploads removed (the error says why that failed).
func (q *Request) Release() error {
	err := q.Body.Release()
	q.HTTP, q.Failure, q.owner, q.Issues = nil, nil, nil, Issues{}
	q.Principal, q.Passed = nil, edge.Passed{}
	return err
}

// Serve makes q a middleware call's request for owner, the request the
// middleware wraps: its path parameters as received (raw), and what it
// carries past middleware read and set in owner's.
func (q *Request) Serve(owner *Request, raw map[string]any) {
	q.owner, q.Start = owner, owner.Start
	for k, v := range raw {
		q.Params[k] = v
	}
}

// Of is the request a call serves: for a middleware call, its owner's.
func (q *Request) Of() *Request {
	if q.owner != nil {
		return q.owner
	}
	return q
}

// Scratch is the call's reusable buffer, for the host functions and the
// Idempotency-Key step alike.
func (q *Request) Scratch() *[]byte { return &q.scratch }

// parts is what the guest reads of the request.
func (q *Request) parts() envelope.Parts {
	return envelope.Parts{Params: q.Params, Query: q.Query, Headers: q.Headers, Body: &q.Body, Plain: q.Plain, Failure: q.Failure}
}

// Value encodes one validated value for request_value, in the call's
// scratch buffer.
func (q *Request) Value(part abi.Part, name string) ([]byte, abi.Errno) {
	p := q.parts()
	v, errno := envelope.Value(q.scratch[:0], &p, part, name)
	if v != nil {
		q.scratch = v
	}
	return v, errno
}

// Header returns the values of the request header name (request_header).
func (q *Request) Header(name []byte) []string {
	return envelope.HeaderValues(q.HTTP, string(name))
}

// ReadBody reads the body the guest streams (body_read).
func (q *Request) ReadBody(dst []byte) (int, abi.Errno) { return q.Body.ReadBody(dst) }

// ReadFile reads an upload of the body (file_read); file is the route's,
// for the log.
func (q *Request) ReadFile(index int32, dst []byte, logger *slog.Logger, file string) (int, abi.Errno) {
	return q.Body.ReadFile(index, dst, logger, file)
}

// Call is what the envelope says of the call beside its request.
type Call struct {
	// Kind is abi.KindEndpoint, abi.KindMiddleware or abi.KindPlain;
	// Route the route's pattern; MediaType the negotiated one.
	Kind, Route, MediaType string
	// Phase, Verify, AfterStatus and Sent are a middleware call's (see
	// envelope.Request).
	Phase       string
	Verify      *abi.VerifyRequest
	AfterStatus int
	Sent        bool
}

// Envelope encodes the request envelope (package envelope) on first use,
// c describing the call; a guest that reads single values with
// request_value never pays for it. A middleware call's envelope carries
// what its request holds of the request (its id, principal and context
// values).
func (q *Request) Envelope(c *Call) []byte {
	if len(q.envelope) > 0 {
		return q.envelope
	}
	rq := q.Of()
	e := envelope.Request{
		Parts:       q.parts(),
		HTTP:        q.HTTP,
		Kind:        c.Kind,
		Route:       c.Route,
		MediaType:   c.MediaType,
		RequestID:   rq.ID,
		TraceID:     observe.TraceID(q.HTTP.Header),
		Principal:   rq.Principal,
		Values:      rq.Passed.Values(),
		Phase:       c.Phase,
		Verify:      c.Verify,
		AfterStatus: c.AfterStatus,
		Sent:        c.Sent,
	}
	q.envelope = envelope.Append(q.envelope[:0], &e)
	return q.envelope
}

// SetEnvelope makes b what the guest reads as its envelope: the document
// the runtime declaration's extend step edits.
func (q *Request) SetEnvelope(b []byte) { q.envelope = b }

// SetContext records a context value a middleware passes on
// (context_set).
func (q *Request) SetContext(name, value []byte) abi.Errno {
	return q.Of().Passed.SetContext(name, value)
}

// SetRequestHeader replaces (or, with an empty value, removes) a request
// header for what follows a before middleware (request_set_header),
// within what the request's middleware may grow its headers by
// (edge.Passed); past that it returns the fault that fails the call.
func (q *Request) SetRequestHeader(name, value []byte) (abi.Errno, string) {
	return q.Of().Passed.SetRequestHeader(q.HTTP.Header, name, value)
}

// SetPrincipal records who a verify middleware says the client is
// (principal_set).
func (q *Request) SetPrincipal(b []byte) abi.Errno {
	p, errno := edge.ParsePrincipal(b)
	if errno == 0 {
		q.Principal = p
	}
	return errno
}
