// Package edge holds the policies the host applies at the edge of the
// request pipeline (docs/spec.md §4 steps 3 and 11, §12) around a
// request's endpoint: the size of its header fields, the request id,
// the security guards ([PlanSecurity], [Guard.Check]), the rate limits,
// and the middleware modules (loaded with [LoadMiddleware], run by
// [Before] and [After]) with the answers they declare, which the document
// lists on the operations they wrap. A policy decides; the host answers.
// What a policy needs of the request it judges is a small interface the
// host's per-request call implements: [Request], [GuardRequest] for a
// guard, and [Runner] for the guest calls of a middleware chain.
package edge

import (
	"context"

	"github.com/wasmendpoints/endpoints/abi"
)

// Request is what an edge policy needs of the request it judges: the
// host's call implements it. As a context it bounds the policy's store
// operations.
type Request interface {
	context.Context
	// Principal is the client the host verified; nil for an anonymous
	// request.
	Principal() *abi.Principal
	// StoreSpan begins the trace span of a store operation op; the
	// function it returns (nil when nothing traces the request) ends it.
	StoreSpan(op string) func(error)
	// ObserveStoreError reports a failed store operation op.
	ObserveStoreError(op string, err error)
	// RequestID is the request's id, for log lines.
	RequestID() string
}
