package host

import (
	"context"
	"net/http"
	"strconv"

	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/observe"
	"github.com/wasmendpoints/endpoints/internal/apikeys"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// securityPlan is what a table enforces of its document's security: the
// plan package edge made (edge.Security), and the guard of each endpoint
// operation that requires credentials.
type securityPlan struct {
	*edge.Security
	guards map[*operation]*edge.Guard
}

// planSecurity makes the table's security plan (edge.PlanSecurity) from
// its document, routes, middleware and settings, reusing prev's
// verifiers where nothing changed.
func (h loadSide) planSecurity(t *table, prev *securityPlan) (*securityPlan, []error) {
	cfg := edge.SecurityConfig{
		Doc:          t.doc.Doc,
		Endpoints:    map[string]bool{},
		Plain:        map[string]bool{},
		Verifiers:    t.set.Security,
		Middleware:   t.middleware,
		AuthFailures: t.set.Config.AuthFailures,
		RateLimits:   t.set.RateLimits,
		Trusted:      t.set.TrustedProxies,
		Env: auth.Env{
			AppDir:    h.app,
			LookupKey: h.lookupAPIKey,
			Logger:    h.logger,
			// A build (SkipVariables) checks modules; it serves nothing.
			Production: h.opts.Mode == Production && !h.opts.SkipVariables,
		},
	}
	for _, op := range document.PlainOperations(t.DocRoutes()) {
		cfg.Plain[op.Path] = true
	}
	for _, rt := range t.Routes {
		if rt.Plain {
			continue
		}
		for m := range rt.Ops {
			cfg.Endpoints[m+" "+rt.FileRoute.OpenAPIPath()] = true
		}
	}
	var prevSec *edge.Security
	if prev != nil {
		prevSec = prev.Security
	}
	sec, problems := edge.PlanSecurity(cfg, prevSec)
	plan := &securityPlan{Security: sec, guards: map[*operation]*edge.Guard{}}
	for _, rt := range t.Routes {
		if rt.Plain {
			continue
		}
		for m, op := range rt.Ops {
			if g := sec.Guard(m, rt.FileRoute.OpenAPIPath()); g != nil {
				plan.guards[op] = g
			}
		}
	}
	return plan, problems
}

// closeExcept stops the verifiers of p that next does not share; p and
// next may be nil.
func (p *securityPlan) closeExcept(next *securityPlan) {
	if p == nil {
		return
	}
	var n *edge.Security
	if next != nil {
		n = next.Security
	}
	p.CloseExcept(n)
}

// refuseGuarded answers a request the guard refused. A 401 counts against
// the route's rate limits too, as a request of the client's address, so a
// limited route limits guessing: past the limit it answers 429 instead.
func (h requestSide) refuseGuarded(w http.ResponseWriter, r *http.Request, c *call, v edge.Verdict) {
	if v.Status == http.StatusUnauthorized && !h.limitRate(w, r, c) {
		return
	}
	h.discardBody(w, r, c)
	for _, ch := range v.Challenge {
		w.Header().Add("WWW-Authenticate", ch)
	}
	switch v.Status {
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "5")
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.FormatInt(edge.RetrySeconds(v.RetryAfter), 10))
	}
	writeError(w, r, v.Status, "", v.Data)
}

// lookupAPIKey reads an API key's entry from the app's store, in the host
// namespace no guest reaches (package apikeys).
func (h loadSide) lookupAPIKey(ctx context.Context, sha256hex string) ([]byte, bool, error) {
	var span func(error)
	if req, ok := ctx.(edge.Request); ok { // the verifier is given the request
		span = req.StoreSpan("get")
	}
	v, ok, err := apikeys.Lookup(ctx, h.store, h.namespace, sha256hex)
	endSpan(span, err)
	if err != nil {
		h.opts.Observer.reportStoreError("get", err)
	}
	return v, ok, err
}

// noteSecretQuery tells an observed request which query parameters carry
// credentials, for RequestEvent.Query.
func noteSecretQuery(w http.ResponseWriter, p *securityPlan) {
	if x := observe.Of(w); x != nil && p != nil {
		x.SecretQuery = p.SecretQuery
	}
}
