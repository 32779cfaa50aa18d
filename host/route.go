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
	file string
	// pattern is the route's template (/api/users/:id), made once: for
	// observers, the envelope, rate limits and Idempotency-Keys, which
	// would otherwise build it again for every request.
	pattern string
	rf      routefile.Route
	mod     *module
	plain   bool
	// ops holds an endpoint's operations by upper-case method.
	ops   routes.Endpoint
	allow []string // methods an endpoint serves, for 405 and OPTIONS
}

// operation is one method of an endpoint, compiled from its contract by
// host/internal/routes.
type operation = routes.Operation

func newRoute(rf routefile.Route, mod *module) (*route, error) {
	r := &route{file: mod.file, pattern: rf.Pattern(), rf: rf, mod: mod, plain: mod.contract == nil}
	if r.plain {
		return r, nil
	}
	ops, err := routes.Compile(rf, routes.Module{File: mod.file, Contract: mod.contract, JSON: mod.contractJSON, HookExported: mod.hookExported, InBundle: mod.index >= 0})
	if err != nil {
		return nil, err
	}
	r.ops, r.allow = ops, ops.Allow()
	return r, nil
}

// checkTimeouts refuses a route whose operations ask for a timeout or an
// idle timeout over max (limits.maxTimeout).
func (r *route) checkTimeouts(limit time.Duration) error {
	return r.ops.CheckTimeouts(r.file, limit)
}

// register adds the route to rt. A module without a method suffix that
// declares its methods (an endpoint) claims each of them, so a module with
// a suffix claiming one of them at the same path fails the load, naming
// both; a plain route without a suffix serves the methods no other module
// of its path claims.
func (r *route) register(rt *router.Router[*route]) error {
	if r.rf.Method != "" || r.plain {
		return rt.Add(r.rf, r)
	}
	return rt.AddMethods(r.rf, r.ops.Methods(), r)
}

// addConfigResponses applies the routes configuration to every operation.
func (r *route) addConfigResponses(rc *openapi.RoutesConfig) error {
	return r.ops.AddConfigResponses(r.file, RoutesConfigFile, rc, r.rf.Pattern())
}
