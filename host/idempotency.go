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
// §6), for clients to decode.
//
//	{"type":"urn:endpoints:problem:idempotency-key-reused","title":"Idempotency-Key reused",
//	 "status":422,"detail":"...","code":"IDEMPOTENCY_KEY_REUSED"}
type IdempotencyProblem struct {
	// Type is a URN naming the problem: urn:endpoints:problem:...
	Type string `json:"type"`
	// Title is its short, human summary, the same for every occurrence.
	Title string `json:"title"`
	// Status is the answer's status: 400, 409, 422, 429 or 503.
	Status int `json:"status"`
	// Detail explains this occurrence.
	Detail string `json:"detail"`
	// Code is the machine-readable code clients branch on
	// ([openapi.CodeKeyReused]...).
	Code string `json:"code"`
}

// The Problem the idempotency step sends has the fields of IdempotencyProblem
// (TestProblemIsTheOneSent checks their names too).
var _ = IdempotencyProblem(idempotency.Problem{})

// writeIdempotencyError answers a request the Idempotency-Key step failed
// itself with the host's error body.
func writeIdempotencyError(w http.ResponseWriter, r *http.Request, status int) {
	writeError(w, r, status, "", nil)
}

// What the Idempotency-Key step (package idempotency) sees of a call
// (idempotency.Call): each method serves it, on the goroutine of the call.

var _ idempotency.Call = (*call)(nil)

func (c *call) Key() *idempotency.Key               { return &c.idem }
func (c *call) Contract() *abi.Contract             { return c.op.contract }
func (c *call) Operation() (method, pattern string) { return c.op.method, c.route.rf.Pattern() }
func (c *call) File() string                        { return c.route.file }
func (c *call) Negotiates() bool                    { return c.op.negotiates() }
func (c *call) Principal() *abi.Principal           { return c.principal }

func (c *call) ClientAddress() string {
	return auth.AddressKey(ratelimit.ClientIP(c.req, c.set.trustedProxies))
}

func (c *call) Config() idempotency.Config {
	o := c.set.opts.Idempotency
	return idempotency.Config{ScopeHeader: o.ScopeHeader, Lease: idempotencyLease(o), Replay: idempotencyReplay(o)}
}

func (c *call) Parts() idempotency.Parts {
	return idempotency.Parts{Params: c.params, Query: c.query, Body: c.body, BodyRaw: c.bodyRaw, Multipart: c.multipart}
}

func (c *call) ObserveIdempotency(r *http.Request, o idempotency.Outcome) {
	c.host.observeIdempotency(r, c, IdempotencyOutcome(o))
}

func (c *call) ObserveStoreError(op string, err error) { c.host.observeStoreError(op, err) }
