package host

import (
	"net/http"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/pace"
)

// edgeCall is what the edge policies (package edge) see of a call
// (edge.Request, and edge.GuardRequest for the guards). It holds the call
// alone, so it is passed as an interface without an allocation.
type edgeCall struct{ *call }

var _ edge.GuardRequest = edgeCall{}

func (c edgeCall) Principal() *abi.Principal { return c.rq.Principal }
func (c edgeCall) RequestID() string         { return c.rq.ID }
func (c edgeCall) ObserveStoreError(op string, err error) {
	c.host.opts.Observer.reportStoreError(op, err)
}

// Verify runs m's verify export for a scheme in a middleware call of its
// own (edge.GuardRequest).
func (c edgeCall) Verify(m *edge.Middleware, scheme string) (int32, *abi.Principal, bool) {
	run := mwRunner{requestSide{c.host}}
	mc := run.mwCall(c.call, m, abi.PhaseVerify, nil)
	defer run.putMWCall(mc)
	mc.verify = &abi.VerifyRequest{Scheme: scheme}
	res, ok := mwExport{mc}.Run()
	return res, mc.rq.Principal, ok
}

// limitRate applies the rate limits of the settings the request started
// on (edge.Limiter). It reports whether the request may go on; when it
// may not, it answered: 429, or 503 (500) when the store failed.
func (h requestSide) limitRate(w http.ResponseWriter, r *http.Request, c *call) bool {
	set := c.set
	if len(set.RateLimits) == 0 {
		return true
	}
	l := edge.Limiter{Policies: set.RateLimits, Trusted: set.TrustedProxies, Store: h.store, Namespace: h.namespace, Logger: h.logger}
	no := l.Take(r, c.route.Pattern, edgeCall{c}, w.Header())
	if no == nil {
		return true
	}
	if no.Discard {
		h.discardBody(w, r, c)
	}
	if no.RetryAfter != "" {
		w.Header().Set("Retry-After", no.RetryAfter)
	}
	if no.Status == http.StatusTooManyRequests {
		pace.Refused(r.Context()) // server.refusalPause
	}
	writeError(w, r, no.Status, "", no.Data)
	return false
}
