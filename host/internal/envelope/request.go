// Package envelope encodes what a guest reads of its request (abi.Envelope,
// ABI §3): the whole envelope as JSON (Append), or one validated value
// (Value, for request_value), from a [Request] the host fills from its
// call. It holds no state: the host keeps the bytes (and encodes the
// envelope once per call, on first use).
package envelope

import (
	"net/http"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/requestbody"
)

// Parts is a request's parts as the guest reads them one by one
// (request_value) and in the envelope.
type Parts struct {
	// Params, Query and Headers are the validated, coerced path
	// parameters, query parameters and headers (the contract's, in lower
	// case); a plain route's Params are its path parameters as routed.
	Params, Query, Headers map[string]any
	// Body is the request body as the host took it.
	Body *requestbody.Body
	// Plain: the parts were not validated (a plain route, or while a
	// module loads): only Params is there, and the envelope lists the raw
	// headers.
	Plain bool
	// Failure is set while an onValidationError hook runs: the parts did
	// not pass, and Value finds none.
	Failure *abi.ValidationFailure
}

// Request is everything the envelope says of a request.
type Request struct {
	Parts
	// HTTP is the request (its method, path, query string and, for a
	// plain route, its headers).
	HTTP *http.Request
	// Kind is abi.KindEndpoint, abi.KindMiddleware or abi.KindPlain.
	Kind string
	// Route is the route's pattern, as the routes table writes it.
	Route string
	// MediaType is the answer's negotiated media type ("" when the
	// operation does not negotiate).
	MediaType string
	// RequestID, TraceID, Principal and Values are what middleware and
	// security added to the request (requestId, traceId, auth, context).
	// Principal is left out of a verify call's envelope.
	RequestID, TraceID string
	Principal          *abi.Principal
	Values             map[string]string
	// Phase is a middleware call's phase (abi.PhaseBefore...), "" for an
	// endpoint or plain route; Verify the scheme it verifies (PhaseVerify);
	// AfterStatus and Sent the answer an after call sees (PhaseAfter):
	// its status, and whether it was sent already (streamed).
	Phase       string
	Verify      *abi.VerifyRequest
	AfterStatus int
	Sent        bool
}

// HeaderValues returns the values of the request header name, Host
// included: net/http moves Host from Header to Request.Host, but a guest
// reads every header the client sent (abi/README.md §3): request_header,
// a plain route's envelope.
func HeaderValues(r *http.Request, name string) []string {
	if r.Host != "" && strings.EqualFold(name, "host") {
		return []string{r.Host}
	}
	return r.Header.Values(name)
}
