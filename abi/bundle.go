package abi

import "encoding/json"

// A bundle is one module that serves several routes (README §9): an app's
// Go routes linked into one module by endpoints build, so that they share
// one copy of the Go runtime, the SDK and their common code. It lives in
// [BundleDir]; its routes come from its declaration ([Bundle]), not from
// its file name. Added within ABI v1: a host before it ignores
// server/bundles.
const (
	// BundleDir is the directory of an app's bundle modules:
	// server/bundles/<name>.wasm. The name is free; it says nothing about
	// the routes.
	BundleDir = "server/bundles"

	// ExportHandleRoute is required in a bundle and only called there:
	// (route i32) -> i32. The host calls it once per request, after
	// validation, instead of [ExportHandle], with the index of the route
	// the request matched in the declaration's "routes" list (from 0).
	// Results as for [ExportHandle]. Any pooled instance of a bundle
	// serves any of its routes.
	//
	//	(func (export "endpoints_handle_route") (param $route i32) (result i32)
	//	  (call_indirect (type $handler) (local.get $route)))
	ExportHandleRoute = "endpoints_handle_route"

	// ExportOnValidationErrorRoute is the validation-error hook of a
	// bundle: (route i32) -> i32, called like [ExportOnValidationError]
	// for a route of the bundle whose contract says
	// "onValidationError": true, with the route's index.
	ExportOnValidationErrorRoute = "endpoints_on_validation_error_route"

	// ExportBeforeRoute, ExportAfterRoute and ExportVerifyRoute are a
	// bundle's middleware exports: (middleware i32) -> i32, called like
	// [ExportBefore], [ExportAfter] and [ExportVerify] for the middleware
	// of that index in the declaration's "middleware" list (from 0),
	// for each phase its declaration lists. Required when the list is
	// not empty; a bundle without middleware never needs them.
	ExportBeforeRoute = "endpoints_before_route"
	ExportAfterRoute  = "endpoints_after_route"
	ExportVerifyRoute = "endpoints_verify_route"

	// BundleMaxBytes bounds a bundle's declaration (16 MiB), in place of
	// [ContractMaxBytes], which bounds each of its routes' contracts, as
	// [ContractMaxObjects] does: a bundle of many routes is not one large
	// contract.
	BundleMaxBytes = 16 << 20
	// BundleMaxRoutes bounds the routes of one bundle.
	BundleMaxRoutes = 1000
)

// Bundle is the declaration of a bundle module: what its
// [ExportContract] returns and its [SectionContract] holds, in place of
// one route's contract.
//
//	{"routes": [
//	  {"route": "GET /api/users/:id", "contract": {"summary": "Get a user", ...}},
//	  {"route": "* /health"}
//	]}
type Bundle struct {
	// Routes are the routes the module serves, in the order of the
	// indexes [ExportHandleRoute] receives. At least one.
	Routes []BundleRoute `json:"routes"`
	// Middleware are middleware the module serves as well, in the order
	// of the indexes [ExportBeforeRoute] receives: modules of
	// [MiddlewareDir] linked into the bundle, so that they share its
	// code. Empty in a bundle of routes alone.
	Middleware []BundleMiddleware `json:"middleware,omitempty"`
}

// BundleMiddleware is one middleware of a [Bundle].
type BundleMiddleware struct {
	// Name is the name its module would have in [MiddlewareDir], without
	// .wasm ("10-audit"): it orders the middleware among the others, and
	// names it for a security scheme's verifier. No two middleware of an
	// app share one.
	Name string `json:"name"`
	// Declaration is what its [ExportMiddleware] would return, with
	// Phases listing each export it implements (at least one).
	Declaration Middleware `json:"declaration"`
}

// BundleRoute is one route of a [Bundle].
type BundleRoute struct {
	// Route is the method and path, in the form `endpoints routes` prints
	// and a Go route's //endpoints:route directive takes: "GET
	// /api/users/:id", "* /files/**:path". The route is the one the file
	// name the path maps to would give (server/api/users/[id].get.wasm);
	// "*" serves every method, like a file without a method suffix.
	Route string `json:"route"`
	// Contract is the route's contract, exactly as a single-route module
	// would return it (README §5); absent or null makes the route a
	// plain route.
	Contract json.RawMessage `json:"contract,omitempty"`
	// Error, when not empty, says why the module could not register the
	// route (a Go route whose init function panicked: the text names its
	// source file and the panic). The host refuses the route with it, as
	// it refuses a route whose contract is faulty, and serves the
	// bundle's other routes; `endpoints build` fails. Such an entry has
	// no contract.
	Error string `json:"error,omitempty"`
}
