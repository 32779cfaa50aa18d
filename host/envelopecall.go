package host

import (
	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/envelope"
	"github.com/wasmendpoints/endpoints/host/internal/observe"
)

// envelopeJSON encodes the request envelope (package envelope) on first
// use; a guest that reads single values with request_value never pays for
// it. A middleware call's envelope carries what its request's call holds
// of the request (its id, principal and context values).
func (c *call) envelopeJSON() []byte {
	if len(c.envelope) > 0 {
		return c.envelope
	}
	kind := abi.KindEndpoint
	switch {
	case c.mw != nil:
		kind = abi.KindMiddleware
	case c.op == nil:
		kind = abi.KindPlain
	}
	rc := c.requestCall()
	e := envelope.Request{
		Parts:       c.parts(),
		HTTP:        c.req,
		Kind:        kind,
		Route:       c.route.Pattern,
		MediaType:   c.resp.MediaType(),
		RequestID:   rc.requestID,
		TraceID:     observe.TraceID(c.req.Header),
		Principal:   rc.principal,
		Values:      rc.passed.Values(),
		Phase:       c.phase,
		Verify:      c.verify,
		AfterStatus: c.afterStatus,
		Sent:        c.resp.Sent(),
	}
	c.envelope = envelope.Append(c.envelope[:0], &e)
	return c.envelope
}

// parts is what the guest reads of the call's request, one value at a
// time or in the envelope.
func (c *call) parts() envelope.Parts {
	return envelope.Parts{Params: c.params, Query: c.query, Headers: c.headers, Body: &c.body, Plain: c.op == nil, Failure: c.failure}
}

// value encodes one validated value for request_value, in the call's
// scratch buffer.
func (c *call) value(part abi.Part, name string) ([]byte, abi.Errno) {
	p := c.parts()
	v, errno := envelope.Value(c.scratch[:0], &p, part, name)
	if v != nil {
		c.scratch = v
	}
	return v, errno
}
