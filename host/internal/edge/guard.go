package edge

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/editdistance"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
	"github.com/wasmendpoints/endpoints/openapi"
)

// GuardRequest is what a guard needs of the request it judges, besides
// the *http.Request whose headers, query and address its verifiers read:
// the request's context, id and store spans ([Request]; built-in
// verifiers run under it), and the guest call of a middleware module's
// verify export.
type GuardRequest interface {
	Request
	// Verify runs m's verify export for the scheme named scheme
	// (abi.VerifyRequest) in a guest call of its own, and returns its
	// result (abi.VerifyOK, abi.VerifyMissing, abi.VerifyRejected) and the
	// principal it set (abi.ImportPrincipalSet), nil when it set none; ok
	// is false when the call failed (a trap, the deadline), which the
	// host logged.
	Verify(m *Middleware, scheme string) (result int32, p *abi.Principal, ok bool)
}

// A Guard enforces an operation's effective security requirements, as the
// document shows them: alternatives, any one of which lets the request in,
// each needing every scheme it names, with their scopes (OpenAPI's
// Security Requirement Object). The host checks it before it validates
// the request or calls the guest.
type Guard struct {
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
	// trusted are the proxies whose X-Forwarded-For names the client's
	// address; logger logs what could not be verified.
	trusted []netip.Prefix
	logger  *slog.Logger
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
	mw      *Middleware
	spec    auth.Scheme
	// key identifies the scheme's definition and configuration, so that a
	// reload that changes neither reuses the verifier (and its JWKS
	// cache).
	key string
}

// verifierExtension names, on a security scheme, the middleware module
// that verifies it.
const verifierExtension = "x-endpoints-verifier"

// Verdict is what a guard decided for one request.
type Verdict struct {
	// Principal is the client the guard let in; nil for an anonymous
	// request (an optional guard and no credential).
	Principal *abi.Principal
	// Status is 0 when the request may go on, else the refusal's 401,
	// 403, 429 (the failure budget spent) or 503 (a verifier could not
	// tell).
	Status int
	// Data is the refusal's error data.
	Data any
	// Challenge are the refusal's WWW-Authenticate challenges.
	Challenge []string
	// failed: the 401 is for a credential that was sent and refused
	// (not for none at all); it stays counted in the failure budget.
	failed bool
	// RetryAfter is when a 429 (the failure budget spent) may try again.
	RetryAfter time.Duration
}

// outcome is what verifying one scheme gave: a principal, a failure
// (missing or bad credential), or an error (the verifier could not tell).
type outcome struct {
	p    *abi.Principal
	fail *auth.Failure
	err  error
}

// Check verifies the request against the guard, within the failure
// budget: an attempt is spent from the client address's budget (and the
// user name's, for basic credentials) before anything is verified, and
// given back unless a credential sent was refused. A client past its
// budget is answered 429 without a verification: guessing costs no
// bcrypt, and is not told whether a guess was right.
func (g *Guard) Check(r *http.Request, req GuardRequest) Verdict {
	if g.failures == nil {
		return g.verify(r, req)
	}
	ip, user := ratelimit.ClientIP(r, g.trusted), ""
	if g.basic {
		user, _ = auth.BasicUserName(r)
	}
	if wait := g.failures.Spend(ip, user); wait > 0 {
		return Verdict{Status: http.StatusTooManyRequests, RetryAfter: wait,
			Data: map[string]any{"policy": FailurePolicy, "retryAfter": RetrySeconds(wait)}}
	}
	v := g.verify(r, req)
	if !v.failed {
		g.failures.Refund(ip, user)
	}
	return v
}

// verify verifies the request against the guard. Each scheme is verified
// at most once, whichever alternatives name it.
func (g *Guard) verify(r *http.Request, req GuardRequest) Verdict {
	var done [4]*scheme
	var outs [4]outcome
	seen, results := done[:0], outs[:0]
	verify := func(s *scheme) outcome {
		if i := slices.Index(seen, s); i >= 0 {
			return results[i]
		}
		var o outcome
		o.p, o.fail, o.err = s.verify(r, req)
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
			return Verdict{Principal: principal}
		}
		if verified && lacksScope != nil && forbidden == nil {
			forbidden = lacksScope
		}
	}
	switch {
	case unavailable != nil:
		g.logger.Warn("a credential could not be verified", "error", unavailable, "requestId", req.RequestID())
		return Verdict{Status: http.StatusServiceUnavailable, Data: map[string]string{"error": "credentials cannot be verified now; try again later"}}
	case g.optional && missingAll:
		return Verdict{}
	case forbidden != nil:
		o := verify(forbidden.scheme)
		missing := auth.MissingScopes(o.p, forbidden.scopes)
		v := Verdict{Status: http.StatusForbidden, Data: map[string]any{"scheme": forbidden.scheme.name, "missingScopes": missing}}
		if forbidden.scheme.builtIn != nil {
			// A bearer scheme's challenge says which scopes (RFC 6750
			// §3.1); other schemes have none to send, and an empty
			// WWW-Authenticate says nothing.
			if ch := auth.InsufficientScopeChallenge(forbidden.scheme.spec, forbidden.scopes); ch != "" {
				v.Challenge = []string{ch}
			}
		}
		return v
	}
	names := make([]string, len(g.schemes))
	v := Verdict{Status: http.StatusUnauthorized}
	for i, s := range g.schemes {
		names[i] = s.name
		var fail *auth.Failure
		if j := slices.Index(seen, s); j >= 0 {
			fail = results[j].fail
		}
		v.Challenge = append(v.Challenge, s.challenge(fail))
	}
	data := map[string]any{"schemes": names}
	if firstReason != "" {
		data["error"] = firstReason
	}
	v.Data, v.failed = data, !missingAll
	return v
}

// verify checks the request's credential for s.
func (s *scheme) verify(r *http.Request, req GuardRequest) (*abi.Principal, *auth.Failure, error) {
	if s.mw != nil {
		return verifyWith(req, s.mw, s.name)
	}
	p, err := s.builtIn.Verify(req, r)
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
	return fmt.Sprintf("%s realm=%q", ChallengeScheme(s.spec), s.name)
}

// verifyWith verifies the request's credential for the scheme named
// scheme with m's verify export.
func verifyWith(req GuardRequest, m *Middleware, scheme string) (*abi.Principal, *auth.Failure, error) {
	res, principal, ok := req.Verify(m, scheme)
	switch {
	case !ok:
		return nil, nil, fmt.Errorf("%s: %s failed (see the log)", m.File, abi.ExportVerify)
	case res == abi.VerifyMissing:
		return nil, &auth.Failure{Missing: true}, nil
	case res == abi.VerifyRejected:
		return nil, &auth.Failure{Reason: "the credential was rejected"}, nil
	case res != abi.VerifyOK:
		return nil, nil, fmt.Errorf("%s: %s returned %d; want 0 (ok), 1 (missing) or 2 (rejected)", m.File, abi.ExportVerify, res)
	case principal == nil:
		return nil, nil, fmt.Errorf("%s: %s returned ok without calling %s", m.File, abi.ExportVerify, abi.ImportPrincipalSet)
	}
	p := *principal
	p.Scheme = scheme
	return &p, nil, nil
}

// Security is what a table enforces: a guard per operation that
// requires credentials, and the schemes they share. [PlanSecurity] makes
// it.
type Security struct {
	guards  map[string]*Guard  // by "METHOD /path" (OpenAPI form)
	schemes map[string]*scheme // by key
	// failures is the app's failure budgets, kept across reloads that
	// do not change their settings, failureCfg.
	failures   *auth.Failures
	failureCfg config.AuthFailures
	// SecretQuery names the query parameters of the apiKey schemes sent
	// "in": "query", whose values the access log must not show
	// ([RedactQuery]).
	SecretQuery []string
	// KeyHeaders names, in order, the request headers of the apiKey
	// schemes sent "in": "header", which CORS lets pages send
	// (cors.Policy.WithHeaders).
	KeyHeaders []string
}

// SecurityConfig is what [PlanSecurity] enforces, and with what.
type SecurityConfig struct {
	// Doc is the app's document: the effective security of its
	// operations is enforced, and the answers their guards give are
	// added to it.
	Doc *openapi.Document
	// Endpoints are the operations the host serves as endpoints, as
	// "METHOD /path" (OpenAPI form); Plain the paths of the plain routes,
	// on which the host checks no credentials.
	Endpoints, Plain map[string]bool
	// Verifiers is endpoints.json's "security" (config.App.Verifiers): the
	// configuration of the built-in verifier of
	// each scheme, by name.
	Verifiers auth.Configs
	// Middleware are the loaded middleware modules, which a scheme's
	// x-endpoints-verifier names.
	Middleware []*Middleware
	// AuthFailures is endpoints.json's failure budget; RateLimits the
	// rate limits, which a 429's description names too.
	AuthFailures config.AuthFailures
	RateLimits   []*RateLimit
	// Trusted are the proxies whose X-Forwarded-For names the client's
	// address, for the failure budget.
	Trusted []netip.Prefix
	// Env is what the built-in verifiers need of the host; its Logger
	// logs, per scheme, and for the guards.
	Env auth.Env
}

// Guard returns the guard of the operation method path (OpenAPI form),
// nil when it requires no credential.
func (p *Security) Guard(method, path string) *Guard { return p.guards[method+" "+path] }

// PlanSecurity reads the effective security of every operation of the
// document, makes the verifiers of the schemes they name (reusing prev's
// when the scheme and its configuration did not change), and documents
// the 401 and 403 answers where they are reachable. Every problem is
// returned: an operation whose scheme cannot be verified must not be
// served as if it required nothing.
func PlanSecurity(cfg SecurityConfig, prev *Security) (*Security, []error) {
	plan := &Security{guards: map[string]*Guard{}, schemes: map[string]*scheme{}}
	plan.failureCfg = cfg.AuthFailures.WithDefaults()
	if prev != nil && prev.failures != nil && prev.failureCfg == plan.failureCfg {
		plan.failures = prev.failures
	} else {
		f := plan.failureCfg
		plan.failures = auth.NewFailures(f.PerAddress, f.PerUser, time.Duration(f.Window), nil)
	}
	doc := cfg.Doc
	var problems []error
	byName := map[string]*scheme{}
	schemeFor := func(name string) (*scheme, error) {
		if s, ok := byName[name]; ok {
			return s, nil
		}
		s, err := cfg.newScheme(name, prev)
		if err != nil {
			byName[name] = nil
			return nil, err
		}
		byName[name] = s
		plan.schemes[s.key] = s
		if s.spec.Type == "apiKey" && s.spec.In == "query" && !slices.Contains(plan.SecretQuery, s.spec.ParamName) {
			plan.SecretQuery = append(plan.SecretQuery, s.spec.ParamName)
		}
		if s.spec.Type == "apiKey" && s.spec.In == "header" && !slices.Contains(plan.KeyHeaders, s.spec.ParamName) {
			plan.KeyHeaders = append(plan.KeyHeaders, s.spec.ParamName)
		}
		return s, nil
	}
	doc.Operations(func(path, method string, oo *openapi.Operation) {
		reqs := doc.EffectiveSecurity(oo)
		if len(reqs) == 0 {
			return
		}
		where := method + " " + openapi.ClientPath(path)
		g := &Guard{failures: plan.failures, trusted: cfg.Trusted, logger: cfg.Env.Logger}
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
		endpoint := cfg.Endpoints[method+" "+path]
		if !endpoint && cfg.Plain[path] {
			// A document never declares a check the host does not make.
			problems = append(problems, fmt.Errorf("%s is a plain route, on which the host checks no credentials, but the document gives it security %v; leave its \"security\": [] as built, or make it an endpoint", where, reqs))
			return
		}
		if endpoint {
			plan.guards[method+" "+path] = g
		}
		var limits []string
		for _, rl := range cfg.RateLimits {
			if rl.Applies(openapi.ClientPath(path), method) {
				limits = append(limits, rl.Name)
			}
		}
		if err := DocumentGuard(doc, oo, g.doc(), limits); err != nil {
			problems = append(problems, err)
		}
	})
	slices.Sort(plan.KeyHeaders)
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
func (g *Guard) doc() GuardDoc {
	names := make([]string, len(g.schemes))
	for i, s := range g.schemes {
		names[i] = s.name
	}
	unavailable := false
	for _, s := range g.schemes {
		unavailable = unavailable || s.mw != nil || auth.MayBeUnavailable(s.builtIn)
	}
	d := GuardDoc{Schemes: names, Budget: g.failures != nil, Scoped: g.scoped, Unavailable: unavailable}
	if g.failures != nil {
		d.BudgetWait = g.failures.AddressWait()
	}
	for _, alt := range g.alts {
		for _, n := range alt {
			if len(n.scopes) > 0 && d.ScopeScheme == "" {
				d.ScopeScheme, d.Scopes = n.scheme.name, n.scopes
			}
			if len(n.scopes) > 0 && n.scheme.builtIn != nil && auth.InsufficientScopeChallenge(n.scheme.spec, n.scopes) != "" {
				d.ScopeChallenge = true
			}
		}
	}
	return d
}

// newScheme makes the verifier of one security scheme of the document:
// the middleware its x-endpoints-verifier names, or a built-in one
// configured in endpoints.json's "security".
func (cfg *SecurityConfig) newScheme(name string, prev *Security) (*scheme, error) {
	var def *openapi.SecurityScheme
	if doc := cfg.Doc; doc.Components != nil {
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
		mw := MiddlewareNamed(cfg.Middleware, mwName)
		switch {
		case mw == nil:
			return nil, fmt.Errorf("%s names %q, but %s/%s.wasm is not loaded", verifierExtension, mwName, abi.MiddlewareDir, mwName)
		case !mw.verifies:
			return nil, fmt.Errorf("%s names %s/%s.wasm, which does not export %s", verifierExtension, abi.MiddlewareDir, mwName, abi.ExportVerify)
		}
		return &scheme{name: name, mw: mw, spec: spec, key: "mw\x00" + name + "\x00" + mw.File}, nil
	}
	if !cfg.Verifiers.Has(name) {
		if near := cfg.misspelled(name); near != "" {
			// Not left to the deployment: endpoints.json names the
			// scheme wrong, which no environment corrects.
			return nil, fmt.Errorf("%[1]s configures no verifier for it, but configures %[2]q, which no route requires: rename %[2]q to %[3]q in %[1]s's \"security\"", config.File, near, name)
		}
		return nil, unconfigured(name)
	}
	defJSON, _ := json.Marshal(def, json.Deterministic(true))
	key := name + "\x00" + string(defJSON) + "\x00" + cfg.Verifiers.Key(name)
	if prev != nil {
		if s := prev.schemes[key]; s != nil {
			return s, nil
		}
	}
	env := cfg.Env
	env.Logger = env.Logger.With(slog.String("security", name))
	v, err := cfg.Verifiers.New(spec, env)
	if err != nil {
		return nil, err
	}
	return &scheme{name: name, builtIn: v, spec: spec, key: key}, nil
}

// misspelled returns the name of a verifier endpoints.json configures
// that looks like name misspelled: within two edits of it, and required
// by no operation, so that it verifies nothing. "" when none does.
func (cfg *SecurityConfig) misspelled(name string) string {
	required := map[string]bool{}
	cfg.Doc.Operations(func(_, _ string, oo *openapi.Operation) {
		for _, req := range cfg.Doc.EffectiveSecurity(oo) {
			for n := range req {
				required[n] = true
			}
		}
	})
	best, bestDist := "", 3
	for configured := range auth.ConfigMap(cfg.Verifiers) {
		if required[configured] {
			continue
		}
		if d := editdistance.Levenshtein(name, configured); d < bestDist || d == bestDist && configured < best {
			best, bestDist = configured, d
		}
	}
	return best
}

// unconfigured is the error of a scheme the document declares that
// nothing verifies: an *auth.UnsetError, since the deployment may give
// its verifier (the "security" setting, from its environment variable or
// --set) where endpoints.json has none.
func unconfigured(name string) error {
	s, _ := config.SettingAt("/security")
	return &auth.UnsetError{Setting: s.Name + "." + name, Env: s.Env,
		Err: fmt.Errorf("%[1]s configures no verifier for it: add \"%[2]s\": {%[3]q: {...}} (jwt, apiKey or basic) to %[1]s, or give that %[2]q object whole in %[4]s (--set %[2]s=...) where the app is deployed; or name a middleware in the scheme's %[5]s",
			config.File, s.Name, name, s.Env, verifierExtension)}
}

// CloseExcept stops the verifiers of p that next does not share; next
// may be nil.
func (p *Security) CloseExcept(next *Security) {
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
