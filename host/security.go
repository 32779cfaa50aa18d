package host

import (
	"context"
	"net/http"
	"strconv"

	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/observe"
	"github.com/wasmendpoints/endpoints/host/internal/pace"
	"github.com/wasmendpoints/endpoints/internal/apikeys"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// AuthEnv is what the verifiers of a version's security schemes need of
// the host (appversion.PlanSecurity).
func (h loadSide) AuthEnv() auth.Env {
	return auth.Env{
		AppDir:    h.app,
		LookupKey: h.lookupAPIKey,
		Logger:    h.logger,
		// A build (SkipVariables) checks modules; it serves nothing.
		Production: h.opts.Mode == Production && !h.opts.SkipVariables,
		// Nor does it verify a token: it fetches no key set.
		Offline: h.opts.SkipVariables,
	}
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
		pace.Refused(r.Context()) // the failure budget spent: server.refusalPause
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
