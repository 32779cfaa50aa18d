package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/internal/apikeys"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
	"github.com/wasmendpoints/endpoints/openapi"
)

// A guard enforces an operation's effective security requirements, as the
// document shows them: alternatives, any one of which lets the request in,
// each needing every scheme it names, with their scopes (OpenAPI's
// Security Requirement Object). The host checks it before it validates
// the request or calls the guest.
type guard struct {
	alts []alternative
	// optional: an empty alternative ({}) lets in a request that carries
	// no credential at all; a bad credential is still refused.
	optional bool
	// schemes are the schemes the alternatives name, in order, for the
	// 401 body and its challenges.
	schemes []*scheme
	// scoped: some alternative requires scopes, so 403 is reachable.
	scoped bool
	// failures counts the failed credentials of the guard's clients
	// (shared by the whole app); basic: some scheme is a built-in basic
	// one, whose user name is counted too.
	failures *auth.Failures
	basic    bool
}

// alternative is one Security Requirement Object: every need must be met.
type alternative []need

type need struct {
	scheme *scheme
	scopes []string
}

// scheme is one security scheme of the document with what verifies it.
type scheme struct {
	name string
	// builtIn verifies with endpoints.json's configuration; mw is the
	// middleware named by x-endpoints-verifier. One of the two is set.
	builtIn auth.Verifier
	mw      *edge.Middleware
	spec    auth.Scheme
	// key identifies the scheme's definition and configuration, so that a
	// reload that changes neither reuses the verifier (and its JWKS
	// cache).
	key string
}

// verifierExtension names, on a security scheme, the middleware module
// that verifies it.
const verifierExtension = "x-endpoints-verifier"

// verdict is what a guard decided for one request.
type verdict struct {
	principal *abi.Principal
	// status is 0 when the request may go on, else 401, 403, 429 or 503.
	status    int
	data      any
	challenge []string
	// failed: the 401 is for a credential that was sent and refused
	// (not for none at all); it stays counted in the failure budget.
	failed bool
	// retryAfter is when a 429 (the failure budget spent) may try again.
	retryAfter time.Duration
}

// outcome is what verifying one scheme gave: a principal, a failure
// (missing or bad credential), or an error (the verifier could not tell).
type outcome struct {
	p    *abi.Principal
	fail *auth.Failure
	err  error
}

// check verifies the request against the guard, within the failure
// budget: an attempt is spent from the client address's budget (and the
// user name's, for basic credentials) before anything is verified, and
// given back unless a credential sent was refused. A client past its
// budget is answered 429 without a verification: guessing costs no
// bcrypt, and is not told whether a guess was right.
func (g *guard) check(c *call, r *http.Request) verdict {
	if g.failures == nil {
		return g.verify(c, r)
	}
	ip, user := ratelimit.ClientIP(r, c.set.trustedProxies), ""
	if g.basic {
		user, _ = auth.BasicUserName(r)
	}
	if wait := g.failures.Spend(ip, user); wait > 0 {
		return verdict{status: http.StatusTooManyRequests, retryAfter: wait,
			data: map[string]any{"policy": edge.FailurePolicy, "retryAfter": edge.RetrySeconds(wait)}}
	}
	v := g.verify(c, r)
	if !v.failed {
		g.failures.Refund(ip, user)
	}
	return v
}

// verify verifies the request against the guard. Each scheme is verified
// at most once, whichever alternatives name it.
func (g *guard) verify(c *call, r *http.Request) verdict {
	var done [4]*scheme
	var outs [4]outcome
	seen, results := done[:0], outs[:0]
	verify := func(s *scheme) outcome {
		if i := slices.Index(seen, s); i >= 0 {
			return results[i]
		}
		var o outcome
		o.p, o.fail, o.err = s.verify(c, r)
		seen, results = append(seen, s), append(results, o)
		return o
	}
	var (
		forbidden   *need
		missingAll  = true
		firstReason string
		unavailable error
	)
	for _, alt := range g.alts {
		var principal *abi.Principal
		passed, verified := true, true
		var lacksScope *need
		for i := range alt {
			n := &alt[i]
			o := verify(n.scheme)
			switch {
			case o.err != nil:
				unavailable, passed, verified = o.err, false, false
			case o.fail != nil:
				if !o.fail.Missing {
					missingAll = false
					if firstReason == "" {
						firstReason = o.fail.Reason
					}
				}
				passed, verified = false, false
			default:
				missingAll = false
				if len(auth.MissingScopes(o.p, n.scopes)) > 0 {
					if lacksScope == nil {
						lacksScope = n
					}
					passed = false
				} else if principal == nil {
					principal = o.p
				}
			}
		}
		if passed {
			return verdict{principal: principal}
		}
		if verified && lacksScope != nil && forbidden == nil {
			forbidden = lacksScope
		}
	}
	switch {
	case unavailable != nil:
		c.logger.Warn("a credential could not be verified", "error", unavailable, "requestId", c.requestID)
		return verdict{status: http.StatusServiceUnavailable, data: map[string]string{"error": "credentials cannot be verified now; try again later"}}
	case g.optional && missingAll:
		return verdict{}
	case forbidden != nil:
		o := verify(forbidden.scheme)
		missing := auth.MissingScopes(o.p, forbidden.scopes)
		v := verdict{status: http.StatusForbidden, data: map[string]any{"scheme": forbidden.scheme.name, "missingScopes": missing}}
		if forbidden.scheme.builtIn != nil {
			v.challenge = []string{auth.InsufficientScopeChallenge(forbidden.scheme.spec, forbidden.scopes)}
		}
		return v
	}
	names := make([]string, len(g.schemes))
	v := verdict{status: http.StatusUnauthorized}
	for i, s := range g.schemes {
		names[i] = s.name
		var fail *auth.Failure
		if j := slices.Index(seen, s); j >= 0 {
			fail = results[j].fail
		}
		v.challenge = append(v.challenge, s.challenge(fail))
	}
	data := map[string]any{"schemes": names}
	if firstReason != "" {
		data["error"] = firstReason
	}
	v.data, v.failed = data, !missingAll
	return v
}

// verify checks the request's credential for s.
func (s *scheme) verify(c *call, r *http.Request) (*abi.Principal, *auth.Failure, error) {
	if s.mw != nil {
		return mwRunner{requestSide{c.host}}.verify(c, s.mw, r, s.name)
	}
	p, err := s.builtIn.Verify(c, r)
	var fail *auth.Failure
	switch {
	case errors.As(err, &fail):
		return nil, fail, nil
	case err != nil:
		return nil, nil, err
	}
	return p, nil, nil
}

// challenge is the WWW-Authenticate challenge of s after fail (nil: no
// credential was sent).
func (s *scheme) challenge(fail *auth.Failure) string {
	if s.builtIn != nil {
		return s.builtIn.Challenge(fail)
	}
	return fmt.Sprintf("%s realm=%q", edge.ChallengeScheme(s.spec), s.name)
}

// refuseGuarded answers a request the guard refused. A 401 counts against
// the route's rate limits too, as a request of the client's address, so a
// limited route limits guessing: past the limit it answers 429 instead.
func (h requestSide) refuseGuarded(w http.ResponseWriter, r *http.Request, c *call, v verdict) {
	if v.status == http.StatusUnauthorized && !h.limitRate(w, r, c) {
		return
	}
	h.discardBody(w, r, c)
	for _, ch := range v.challenge {
		w.Header().Add("WWW-Authenticate", ch)
	}
	switch v.status {
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "5")
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.FormatInt(edge.RetrySeconds(v.retryAfter), 10))
	}
	writeError(w, r, v.status, "", v.data)
}

// securityPlan is what a table enforces: a guard per operation that
// requires credentials, and the schemes they share.
type securityPlan struct {
	guards  map[*operation]*guard
	schemes map[string]*scheme // by key
	// failures is the app's failure budgets, kept across reloads that
	// do not change their settings, failureCfg.
	failures   *auth.Failures
	failureCfg config.AuthFailures
	// secretQuery names the query parameters of the apiKey schemes sent
	// "in": "query", whose values the access log must not show.
	secretQuery []string
	// keyHeaders names the request headers of the apiKey schemes sent
	// "in": "header", which CORS lets pages send (cors.Policy.WithHeaders).
	keyHeaders []string
}

// planSecurity reads the effective security of every operation of the
// document, makes the verifiers of the schemes they name (reusing prev's
// when the scheme and its configuration did not change), and documents
// the 401 and 403 answers where they are reachable. Every problem is
// returned: an operation whose scheme cannot be verified must not be
// served as if it required nothing.
func (h *Host) planSecurity(t *table, prev *securityPlan) (*securityPlan, []error) {
	plan := &securityPlan{guards: map[*operation]*guard{}, schemes: map[string]*scheme{}}
	plan.failureCfg = t.set.config.AuthFailures.WithDefaults()
	if prev != nil && prev.failures != nil && prev.failureCfg == plan.failureCfg {
		plan.failures = prev.failures
	} else {
		f := plan.failureCfg
		plan.failures = auth.NewFailures(f.PerAddress, f.PerUser, time.Duration(f.Window), nil)
	}
	doc := t.doc.doc
	ops := map[string]*operation{}
	plain := map[string]bool{}
	for _, op := range plainOperations(t) {
		plain[op.Path] = true
	}
	for _, rt := range t.routes {
		if rt.plain {
			continue
		}
		for m, op := range rt.ops {
			ops[m+" "+rt.rf.OpenAPIPath()] = op
		}
	}
	var problems []error
	byName := map[string]*scheme{}
	schemeFor := func(name string) (*scheme, error) {
		if s, ok := byName[name]; ok {
			return s, nil
		}
		s, err := loadSide{h}.newScheme(t, doc, name, prev)
		if err != nil {
			byName[name] = nil
			return nil, err
		}
		byName[name] = s
		plan.schemes[s.key] = s
		if s.spec.Type == "apiKey" && s.spec.In == "query" && !slices.Contains(plan.secretQuery, s.spec.ParamName) {
			plan.secretQuery = append(plan.secretQuery, s.spec.ParamName)
		}
		if s.spec.Type == "apiKey" && s.spec.In == "header" && !slices.Contains(plan.keyHeaders, s.spec.ParamName) {
			plan.keyHeaders = append(plan.keyHeaders, s.spec.ParamName)
		}
		return s, nil
	}
	doc.Operations(func(path, method string, oo *openapi.Operation) {
		reqs := doc.EffectiveSecurity(oo)
		if len(reqs) == 0 {
			return
		}
		where := method + " " + openapi.ClientPath(path)
		g := &guard{failures: plan.failures}
		ok := true
		for _, req := range reqs {
			if len(req) == 0 {
				g.optional = true
				continue
			}
			var alt alternative
			for _, name := range sortedKeys(req) {
				s, err := schemeFor(name)
				if err != nil {
					problems = append(problems, fmt.Errorf("%s requires security scheme %q: %w", where, name, err))
					ok = false
					continue
				}
				if s == nil {
					ok = false
					continue
				}
				alt = append(alt, need{scheme: s, scopes: req[name]})
				if s.builtIn != nil && s.spec.Type == "http" && strings.EqualFold(s.spec.HTTPScheme, "basic") {
					g.basic = true
				}
				if len(req[name]) > 0 {
					g.scoped = true
				}
				if !slices.Contains(g.schemes, s) {
					g.schemes = append(g.schemes, s)
				}
			}
			g.alts = append(g.alts, alt)
		}
		if len(g.alts) == 0 {
			return // only {}: anyone may call
		}
		if !ok {
			g.alts = nil // fail closed: nobody gets in
		}
		op := ops[method+" "+path]
		if op == nil && plain[path] {
			// A document never declares a check the host does not make.
			problems = append(problems, fmt.Errorf("%s is a plain route, on which the host checks no credentials, but the document gives it security %v; leave its \"security\": [] as built, or make it an endpoint", where, reqs))
			return
		}
		if op != nil {
			plan.guards[op] = g
		}
		var limits []string
		for _, rl := range t.set.rateLimits {
			if rl.Applies(openapi.ClientPath(path), method) {
				limits = append(limits, rl.Name)
			}
		}
		if err := edge.DocumentGuard(doc, oo, g.doc(), limits); err != nil {
			problems = append(problems, err)
		}
	})
	return plan, problems
}

// sortedKeys returns the scheme names of a requirement in order.
func sortedKeys(req openapi.SecurityRequirement) []string {
	names := make([]string, 0, len(req))
	for n := range req {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// doc is what the document says of g (edge.DocumentGuard).
func (g *guard) doc() edge.GuardDoc {
	names := make([]string, len(g.schemes))
	for i, s := range g.schemes {
		names[i] = s.name
	}
	return edge.GuardDoc{Schemes: names, Budget: g.failures != nil, Scoped: g.scoped}
}

// newScheme makes the verifier of one security scheme of the document:
// the middleware its x-endpoints-verifier names, or a built-in one
// configured in endpoints.json's "security".
func (h loadSide) newScheme(t *table, doc *openapi.Document, name string, prev *securityPlan) (*scheme, error) {
	var def *openapi.SecurityScheme
	if doc.Components != nil {
		def = doc.Components.SecuritySchemes[name]
	}
	if def == nil {
		return nil, fmt.Errorf("neither %s nor the document declares it: configure its verifier in %s, \"security\": {%q: {...}} (jwt, apiKey or basic), which declares it too", config.File, config.File, name)
	}
	spec := auth.Scheme{Name: name, Type: def.Type, HTTPScheme: def.Scheme, In: def.In, ParamName: def.Name}
	if raw, ok := def.Extra[verifierExtension]; ok {
		var mwName string
		if err := json.Unmarshal(raw, &mwName); err != nil {
			return nil, fmt.Errorf("%s: want the name of a module in %s, such as \"auth\" for %s/auth.wasm", verifierExtension, abi.MiddlewareDir, abi.MiddlewareDir)
		}
		mw := edge.MiddlewareNamed(t.middleware, mwName)
		switch {
		case mw == nil:
			return nil, fmt.Errorf("%s names %q, but %s/%s.wasm is not loaded", verifierExtension, mwName, abi.MiddlewareDir, mwName)
		case !mw.Has(abi.PhaseVerify):
			return nil, fmt.Errorf("%s names %s/%s.wasm, which does not export %s", verifierExtension, abi.MiddlewareDir, mwName, abi.ExportVerify)
		}
		return &scheme{name: name, mw: mw, spec: spec, key: "mw\x00" + name + "\x00" + mw.File}, nil
	}
	cfg, ok := t.set.security[name]
	if !ok {
		return nil, fmt.Errorf("%s configures no verifier for it: add \"security\": {%q: {...}} (jwt, apiKey or basic), or name a middleware in the scheme's %s", config.File, name, verifierExtension)
	}
	defJSON, _ := json.Marshal(def, json.Deterministic(true))
	cfgJSON, _ := json.Marshal(cfg, json.Deterministic(true))
	key := name + "\x00" + string(defJSON) + "\x00" + string(cfgJSON)
	if prev != nil {
		if s := prev.schemes[key]; s != nil {
			return s, nil
		}
	}
	v, err := auth.New(spec, cfg, auth.Env{
		AppDir:    h.app,
		LookupKey: h.lookupAPIKey,
		Logger:    h.logger.With(slog.String("security", name)),
		// A build (SkipVariables) checks modules; it serves nothing.
		Production: h.opts.Mode == Production && !h.opts.SkipVariables,
	})
	if err != nil {
		return nil, err
	}
	return &scheme{name: name, builtIn: v, spec: spec, key: key}, nil
}

// lookupAPIKey reads an API key's entry from the app's store, in the host
// namespace no guest reaches (package apikeys).
func (h loadSide) lookupAPIKey(ctx context.Context, sha256hex string) ([]byte, bool, error) {
	var span func(error)
	if c, ok := ctx.(*call); ok { // the verifier is given the call
		span = c.startSpan(StepStore, "get")
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
	if x, ok := w.(*exchange); ok && p != nil {
		x.secretQuery = p.secretQuery
	}
}

// close stops the verifiers of the plan that next does not share.
func (p *securityPlan) closeExcept(next *securityPlan) {
	if p == nil {
		return
	}
	for key, s := range p.schemes {
		if next != nil && next.schemes[key] == s {
			continue
		}
		if s.builtIn != nil {
			_ = s.builtIn.Close()
		}
	}
}
