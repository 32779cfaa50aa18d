// Package routemod is a route module loaded into its routes: the module
// (its pool, the contract it declares, its exports) read, instrumented,
// compiled or deferred (Load), and the routes it serves, one for a module
// of one route (NewRoute) or one per entry of a bundle's declaration
// (BundleRoutes), each with its operations compiled (host/internal/routes)
// and claiming its methods and path in a router (Route.Register). The
// route table, and what a reload keeps of it, are packages routetable's
// and versionload's.
package routemod

import (
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/routes"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Route is one loaded module at its place in the route table. A route a
// table serves is never changed: requests read it.
type Route struct {
	// File is the module, relative to the app.
	File string
	// Name is what messages call the route: File for a module of one
	// route, and File with the route for a route of a bundle
	// ("server/bundles/go.wasm (GET /api/users/:id)"), as its load errors
	// name it: the bundle alone does not say which of its routes failed.
	Name string
	// Pattern is the route's template (/api/users/:id), made once: for
	// observers, the envelope, rate limits and Idempotency-Keys, which
	// would otherwise build it again for every request.
	Pattern string
	// FileRoute is what the module's file name says of the route: its
	// path, parameters and method suffix.
	FileRoute routefile.Route
	// Module is the module that serves it; a bundle's routes share its
	// pool.
	Module *Module
	// Plain: a plain route, whose module declares no contract.
	Plain bool
	// Ops holds an endpoint's operations by upper-case method.
	Ops   routes.Endpoint
	Allow []string // methods an endpoint serves, for 405 and OPTIONS
}

// NewRoute makes the route of mod at rf, its operations compiled from its
// contract when it is an endpoint.
func NewRoute(rf routefile.Route, mod *Module) (*Route, error) {
	r := &Route{File: mod.File, Name: mod.File, Pattern: rf.Pattern(), FileRoute: rf, Module: mod, Plain: mod.Contract == nil}
	if mod.Index >= 0 {
		r.Name = mod.File + " (" + rf.String() + ")"
	}
	if r.Plain {
		return r, nil
	}
	ops, err := routes.Compile(rf, routes.Module{File: mod.File, Contract: mod.Contract, JSON: mod.ContractJSON, HookExported: mod.HookExported, InBundle: mod.Index >= 0})
	if err != nil {
		return nil, err
	}
	r.Ops, r.Allow = ops, ops.Allow()
	return r, nil
}

// CheckTimeouts refuses a route whose operations ask for a timeout or an
// idle timeout over max (limits.maxTimeout).
func (r *Route) CheckTimeouts(limit time.Duration) error {
	return r.Ops.CheckTimeouts(r.Name, limit) // a bundle's file says not which route
}

// Register adds the route to rt. A module without a method suffix that
// declares its methods (an endpoint) claims each of them, so a module with
// a suffix claiming one of them at the same path fails the load, naming
// both; a plain route without a suffix serves the methods no other module
// of its path claims.
func (r *Route) Register(rt *router.Router[*Route]) error {
	if r.FileRoute.Method != "" || r.Plain {
		return rt.Add(r.FileRoute, r)
	}
	return rt.AddMethods(r.FileRoute, r.Ops.Methods(), r)
}

// AddConfigResponses applies the routes configuration rc, read from
// configFile, to every operation.
func (r *Route) AddConfigResponses(configFile string, rc *openapi.RoutesConfig) error {
	return r.Ops.AddConfigResponses(r.Name, configFile, rc, r.FileRoute.Pattern())
}
