package appversion

import (
	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/routes"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Security is what a version enforces of its document's security: the
// plan package edge made (edge.Security), and the guard of each endpoint
// operation that requires credentials.
type Security struct {
	*edge.Security
	// Guards are the guards of the operations that require credentials.
	Guards map[*routes.Operation]*edge.Guard
}

// PlanSecurity makes t's security plan (edge.PlanSecurity) from its
// document, routes, middleware and settings, reusing prev's verifiers
// where nothing changed; env is what the verifiers need of the host. t's
// document must be built.
func PlanSecurity(t *Version, prev *Security, env auth.Env) (*Security, []error) {
	cfg := edge.SecurityConfig{
		Doc:          t.Doc.Doc,
		Endpoints:    map[string]bool{},
		Plain:        map[string]bool{},
		Verifiers:    t.Set.Security,
		Middleware:   t.Middleware,
		AuthFailures: t.Set.Config.AuthFailures,
		RateLimits:   t.Set.RateLimits,
		Trusted:      t.Set.TrustedProxies,
		Env:          env,
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
	plan := &Security{Security: sec, Guards: map[*routes.Operation]*edge.Guard{}}
	for _, rt := range t.Routes {
		if rt.Plain {
			continue
		}
		for m, op := range rt.Ops {
			if g := sec.Guard(m, rt.FileRoute.OpenAPIPath()); g != nil {
				plan.Guards[op] = g
			}
		}
	}
	return plan, problems
}

// closeExcept stops the verifiers of p that next does not share; p and
// next may be nil.
func (p *Security) closeExcept(next *Security) {
	if p == nil {
		return
	}
	var n *edge.Security
	if next != nil {
		n = next.Security
	}
	p.CloseExcept(n)
}

// DocRoutes are the version's routes as the OpenAPI document sees them
// (routetable.Table.DocRoutes, with the version's limits.bodyBytes): an
// operation that a middleware able to use a database wraps can be
// answered 503 for that database too, as one whose own module can.
func (t *Version) DocRoutes() []document.Route {
	routes := t.Table.DocRoutes(t.Set.Limits.BodyBytes)
	for i := range routes {
		for j := range routes[i].Operations {
			op := &routes[i].Operations[j]
			for _, m := range t.Middleware {
				if m.Database && m.Applies(openapi.ClientPath(op.Path), op.Method) {
					op.Database = true
				}
			}
		}
	}
	return routes
}
