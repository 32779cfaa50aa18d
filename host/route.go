package host

import (
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/routes"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
	"github.com/wasmendpoints/endpoints/openapi"
)

// route is one loaded module at its place in the route table.
type route struct {
	File string
	// Pattern is the route's template (/api/users/:id), made once: for
	// observers, the envelope, rate limits and Idempotency-Keys, which
	// would otherwise build it again for every request.
	Pattern   string
	FileRoute routefile.Route
	Module    *module
	Plain     bool
	// Ops holds an endpoint's operations by upper-case method.
	Ops   routes.Endpoint
	Allow []string // methods an endpoint serves, for 405 and OPTIONS
}

// operation is one method of an endpoint, compiled from its contract by
// host/internal/routes.
type operation = routes.Operation

func NewRoute(rf routefile.Route, mod *module) (*route, error) {
	r := &route{File: mod.File, Pattern: rf.Pattern(), FileRoute: rf, Module: mod, Plain: mod.Contract == nil}
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
func (r *route) CheckTimeouts(limit time.Duration) error {
	return r.Ops.CheckTimeouts(r.File, limit)
}

// Register adds the route to rt. A module without a method suffix that
// declares its methods (an endpoint) claims each of them, so a module with
// a suffix claiming one of them at the same path fails the load, naming
// both; a plain route without a suffix serves the methods no other module
// of its path claims.
func (r *route) Register(rt *router.Router[*route]) error {
	if r.FileRoute.Method != "" || r.Plain {
		return rt.Add(r.FileRoute, r)
	}
	return rt.AddMethods(r.FileRoute, r.Ops.Methods(), r)
}

// AddConfigResponses applies the routes configuration to every operation.
func (r *route) AddConfigResponses(rc *openapi.RoutesConfig) error {
	return r.Ops.AddConfigResponses(r.File, RoutesConfigFile, rc, r.FileRoute.Pattern())
}
