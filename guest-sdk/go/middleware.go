package endpoints

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
)

// Middleware declares a middleware module: code that wraps the handlers of
// an app's routes, like nuxt-endpoints' wrapHandler, built from a main
// package marked //endpoints:middleware NAME into
// server/middleware/NAME.wasm. Modules run in name order: name them
// 10-request-log, 20-tenant. Set the functions it needs; the others cost
// nothing.
//
//	//endpoints:middleware 10-tenant
//	package main
//
//	func init() {
//		endpoints.DeclareMiddleware(endpoints.Middleware{
//			Routes: []string{"/api/**"},
//			Before: func(r *endpoints.MiddlewareRequest) (endpoints.Reply, bool) {
//				tenant := r.Header("X-Tenant")
//				if tenant == "" {
//					return endpoints.Respond(400, map[string]string{"error": "X-Tenant is required"}), true
//				}
//				r.SetContext("tenant", tenant) // the handler reads endpoints.Value("tenant")
//				return endpoints.Reply{}, false
//			},
//		})
//	}
type Middleware struct {
	// Routes are route patterns, as in server/routes.config.json:
	// "/api/users/:id", or "/api/**" for every route under /api. Empty:
	// every route.
	Routes []string
	// Methods are upper-case methods. Empty: every method.
	Methods []string
	// Before runs after routing and authentication, before validation
	// and the handler. It returns answered false to go on, or a Reply and
	// true to answer in the handler's place (a 429, a redirect).
	Before func(r *MiddlewareRequest) (reply Reply, answered bool)
	// After runs once the handler answered with status. Response headers
	// it sets are added while the answer is buffered (r.Sent() is false).
	After func(r *MiddlewareRequest, status int)
	// Responses declares the answers Before gives itself instead of
	// calling the handler (its 429, its 401), built like an operation's
	// with [JSON], [RawJSON] or [NoContent]: the document lists them on
	// every operation the middleware wraps, beside the operation's own.
	// A [JSON] response's schema is written whole, so its type cannot
	// contain itself; a [RawJSON] one cannot reference Operation.Defs.
	// The host does not check these answers. Nil: none.
	//
	//	Responses: endpoints.Responses{
	//		429: endpoints.JSON[Throttled]("Too many requests from this tenant"),
	//	},
	Responses Responses
	// Verify verifies the credentials of a security scheme whose
	// x-endpoints-verifier names this module: it returns the principal and
	// VerifyOK, or VerifyMissing, or VerifyRejected. The host checks the
	// scopes and answers 401 or 403 itself.
	Verify func(r *MiddlewareRequest, scheme string) (*Principal, VerifyResult)
}

// VerifyResult is what [Middleware.Verify] found.
type VerifyResult int32

// Results of [Middleware.Verify].
const (
	// VerifyOK: the credential is good; return the principal with it.
	VerifyOK VerifyResult = abi.VerifyOK
	// VerifyMissing: the request carries no credential for the scheme.
	VerifyMissing VerifyResult = abi.VerifyMissing
	// VerifyRejected: the credential is bad (expired, revoked, unknown).
	VerifyRejected VerifyResult = abi.VerifyRejected
)

// middleware is the declared middleware and its declaration JSON.
var middleware struct {
	m    *Middleware
	json []byte
}

// DeclareMiddleware makes the module a middleware; call it once, from init.
// In a bundle ([BundleMiddleware]) it declares one of the bundle's
// middleware instead.
//
// # Notes
//
//   - Called from a route's package of a bundle, it panics, which fails
//     that route (see [BundleInit]): the bundle declares only the
//     middleware of packages marked //endpoints:middleware, and a check
//     declared there would silently never run.
func DeclareMiddleware(m Middleware) {
	if bundleMW.pending != "" {
		decl := middlewareDeclaration(m)
		bundleMW.list = append(bundleMW.list, bundledMiddleware{name: bundleMW.pending, m: &m, decl: decl})
		bundleMW.pending = ""
		bundleJSON = nil
		return
	}
	if reg.middleware != "" {
		panic("endpoints: DeclareMiddleware called twice in the package of middleware " + reg.middleware + ": a package is one middleware")
	}
	if len(bundle) > 0 {
		panic("endpoints: DeclareMiddleware called from a route's package: the middleware would never run, for a bundle serves only those of packages marked //endpoints:middleware; move it to a package of its own with that line (Routes naming this route)")
	}
	if middleware.m != nil {
		panic("endpoints: DeclareMiddleware called twice: a module is one middleware")
	}
	b, err := json.Marshal(middlewareDeclaration(m))
	if err != nil {
		panic("endpoints: DeclareMiddleware: " + err.Error())
	}
	middleware.m, middleware.json = &m, b
}

// middlewareDeclaration is the declaration of m (abi.Middleware), with
// the phases it implements.
func middlewareDeclaration(m Middleware) abi.Middleware {
	decl := abi.Middleware{Routes: m.Routes, Methods: m.Methods}
	if m.Before != nil {
		decl.Phases = append(decl.Phases, abi.PhaseBefore)
	}
	if m.After != nil {
		decl.Phases = append(decl.Phases, abi.PhaseAfter)
	}
	if m.Verify != nil {
		decl.Phases = append(decl.Phases, abi.PhaseVerify)
	}
	if len(decl.Phases) == 0 {
		panic("endpoints: DeclareMiddleware: set at least one of Before, After and Verify")
	}
	for _, status := range slices.Sorted(maps.Keys(m.Responses)) {
		r, err := newBuilder().response(status, m.Responses[status], true)
		if err != nil {
			panic("endpoints: DeclareMiddleware: " + err.Error())
		}
		if decl.Responses == nil {
			decl.Responses = map[string]*abi.Response{}
		}
		decl.Responses[strconv.Itoa(status)] = r
	}
	return decl
}

func middlewareJSON() []byte { return middleware.json }

// MiddlewareRequest is the request a middleware sees: as the client sent
// it (raw path parameters, every header), before validation. Its methods
// act on the request and on its answer.
type MiddlewareRequest struct {
	// Method, Route (client form, "/api/users/:id"), Path (as received)
	// and RawQuery (without '?').
	Method, Route, Path, RawQuery string
	// Params are the path parameters as received.
	Params map[string]string
	// Headers are every request header by lower-case name.
	Headers map[string][]string
	sent    bool
}

// Header returns the first value of a request header (any case), or "".
// A header a previous middleware set is seen.
func (r *MiddlewareRequest) Header(name string) string {
	v, _ := Header(name)
	return v
}

// Sent reports, in After, that the answer already went out (a stream, a
// plain route's bytes): response headers can no longer change.
func (r *MiddlewareRequest) Sent() bool { return r.sent }

// SetRequestHeader replaces a request header for what follows: later
// middleware, the contract's validation and the handler. An empty value
// removes it. Only in Before.
func (r *MiddlewareRequest) SetRequestHeader(name, value string) error {
	return check(abi.ImportRequestSetHeader, requestSetHeader(name, value))
}

// SetContext passes a value to the handler, which reads it with [Value].
// Only in Before and Verify.
func (r *MiddlewareRequest) SetContext(name, value string) error {
	return check(abi.ImportContextSet, contextSet(name, value))
}

// SetResponseHeader replaces a header of the answer, whatever it is.
func (r *MiddlewareRequest) SetResponseHeader(name, value string) error {
	return check(abi.ImportResponseSetHeader, responseSetHeader(name, value))
}

// AddResponseHeader adds a value to a header of the answer.
func (r *MiddlewareRequest) AddResponseHeader(name, value string) error {
	return check(abi.ImportResponseAddHeader, responseAddHeader(name, value))
}

// readMiddlewareRequest reads the envelope of a middleware call.
func readMiddlewareRequest() (*MiddlewareRequest, error) {
	envelope, err := readEnvelope()
	if err != nil {
		return nil, err
	}
	beginRequest(envelope)
	var env struct {
		Method   string               `json:"method"`
		Route    string               `json:"route"`
		Path     string               `json:"path"`
		RawQuery string               `json:"rawQuery"`
		Params   map[string]string    `json:"params"`
		Headers  map[string][]string  `json:"headers"`
		Response *abi.ResponseSummary `json:"response"`
	}
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, fmt.Errorf("the middleware envelope does not decode: %w", err)
	}
	r := &MiddlewareRequest{Method: env.Method, Route: env.Route, Path: env.Path, RawQuery: env.RawQuery, Params: env.Params, Headers: env.Headers}
	if env.Response != nil {
		r.sent = env.Response.Sent
	}
	return r, nil
}

// runMiddleware runs one phase of the declared middleware, recovering a
// panic as a failure (1 for Before and After, which the host answers
// with 500; -1 for Verify).
func runMiddleware(phase string, run func(r *MiddlewareRequest) (int32, error)) (code int32) {
	defer endRequest()
	defer func() {
		if v := recover(); v != nil {
			hostLog(abi.LogError, fmt.Sprintf("endpoints: middleware %s panicked: %v\n%s", phase, v, debug.Stack()))
			code = -1
		}
	}()
	if middleware.m == nil {
		hostLog(abi.LogError, "endpoints: the host called "+phase+", but the module declares no middleware: call endpoints.DeclareMiddleware from init")
		return -1
	}
	r, err := readMiddlewareRequest()
	if err == nil {
		code, err = run(r)
	}
	if err != nil {
		hostLog(abi.LogError, "endpoints: middleware "+phase+": "+err.Error())
		return -1
	}
	return code
}

func middlewareBefore() int32 {
	return runMiddleware(abi.PhaseBefore, func(r *MiddlewareRequest) (int32, error) {
		if middleware.m.Before == nil {
			return abi.MiddlewareContinue, nil
		}
		reply, answered := middleware.m.Before(r)
		if !answered {
			return abi.MiddlewareContinue, nil
		}
		if reply.status == 0 {
			return 0, errors.New("Before answered the zero Reply: build it with endpoints.Respond or Bytes")
		}
		if reply.kind == replyStream {
			return 0, errors.New("Before answered a stream: a middleware's answer is whole (Respond or Bytes)")
		}
		if err := writeReply(reply, request.envelope, 200); err != nil {
			return 0, err
		}
		return abi.MiddlewareAnswered, nil
	})
}

func middlewareAfter() int32 {
	return runMiddleware(abi.PhaseAfter, func(r *MiddlewareRequest) (int32, error) {
		if middleware.m.After != nil {
			var env struct {
				Response abi.ResponseSummary `json:"response"`
			}
			_ = json.Unmarshal(request.envelope, &env)
			middleware.m.After(r, env.Response.Status)
		}
		return 0, nil
	})
}

func middlewareVerify() int32 {
	return runMiddleware(abi.PhaseVerify, func(r *MiddlewareRequest) (int32, error) {
		if middleware.m.Verify == nil {
			return 0, errors.New("the module has no Verify")
		}
		var env struct {
			Verify abi.VerifyRequest `json:"verify"`
		}
		_ = json.Unmarshal(request.envelope, &env)
		p, res := middleware.m.Verify(r, env.Verify.Scheme)
		if res != VerifyOK {
			return int32(res), nil
		}
		if p == nil || p.Subject == "" {
			return 0, errors.New("Verify returned VerifyOK without a principal with a Subject")
		}
		b, err := json.Marshal(struct {
			Subject string          `json:"subject"`
			Scopes  []string        `json:"scopes,omitempty"`
			Claims  json.RawMessage `json:"claims,omitempty"`
		}{p.Subject, p.Scopes, p.Claims})
		if err != nil {
			return 0, err
		}
		if err := check(abi.ImportPrincipalSet, principalSet(b)); err != nil {
			return 0, err
		}
		return abi.VerifyOK, nil
	})
}
