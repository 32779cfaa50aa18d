package host

import (
	"net/http"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/idempotency"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
)

// IdempotencyProblem is the Problem Details body (RFC 9457) of an
// Idempotency-Key failure, sent as application/problem+json (docs/spec.md
// §6), for clients to decode: the type the step sends, by another name.
//
//	{"type":"urn:endpoints:problem:idempotency-key-reused","title":"Idempotency-Key reused",
//	 "status":422,"detail":"...","code":"IDEMPOTENCY_KEY_REUSED"}
type IdempotencyProblem = idempotency.Problem

// writeIdempotencyError answers a request the Idempotency-Key step failed
// itself with the host's error body.
func writeIdempotencyError(w http.ResponseWriter, r *http.Request, status int) {
	writeError(w, r, status, "", nil)
}

// idemCall is what the Idempotency-Key step (package idempotency) sees of
// a call (idempotency.Call): each method serves it, on the goroutine of
// the call. It holds the call alone, so it is passed as an interface
// without an allocation.
type idemCall struct{ *call }

var _ idempotency.Call = idemCall{}

func (c idemCall) Key() *idempotency.Key               { return &c.rq.Idem }
func (c idemCall) Scratch() *[]byte                    { return c.rq.Scratch() }
func (c idemCall) Contract() *abi.Contract             { return c.op.Contract }
func (c idemCall) Operation() (method, pattern string) { return c.op.Method, c.route.Pattern }
func (c idemCall) File() string                        { return c.route.File }
func (c idemCall) Negotiates() bool                    { return c.op.Negotiates() }
func (c idemCall) Principal() *abi.Principal           { return c.rq.Principal }

func (c idemCall) ClientAddress() string {
	return auth.AddressKey(ratelimit.ClientIP(c.rq.HTTP, c.set.TrustedProxies))
}

func (c idemCall) Config() idempotency.Config {
	return c.set.Idempotency
}

func (c idemCall) Parts() idempotency.Parts {
	return idempotency.Parts{Params: c.rq.Params, Query: c.rq.Query, Body: c.rq.Body.Value(), BodyRaw: c.rq.Body.Raw(), Multipart: c.rq.Body.Multipart()}
}

func (c idemCall) ObserveIdempotency(r *http.Request, o idempotency.Outcome) {
	c.host.opts.Observer.reportIdempotency(r, c.call, o)
}

func (c idemCall) ObserveStoreError(op string, err error) {
	c.host.opts.Observer.reportStoreError(op, err)
}
