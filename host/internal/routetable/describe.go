package routetable

import (
	"maps"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Info describes one method of a served route, for route tables (the
// fields of host.RouteInfo, which converts from it).
type Info struct {
	// Method is the upper-case method, "*" for a plain route serving all.
	Method string
	// Path is the route in client form: /api/users/:id.
	Path string
	// Kind is "endpoint" or "plain".
	Kind string
	// Summary is the contract's summary, or for a plain route the one the
	// routes configuration's "plainRoutes" gives it; "" when none does.
	Summary string
	// File is the module, relative to the app.
	File string
}

// Infos lists the methods of the served routes, sorted by path, then
// method.
func (t *Table) Infos() []Info {
	var out []Info
	for _, r := range t.Routes {
		infos := routeInfos(r)
		if r.Plain && t.RoutesConfig != nil {
			for i := range infos {
				infos[i].Summary = plainSummary(t.RoutesConfig, infos[i].Path, infos[i].Method)
			}
		}
		out = append(out, infos...)
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out
}

// plainSummary is the summary routes.config.json's "plainRoutes" gives a
// plain route's method, or "".
func plainSummary(cfg *openapi.RoutesConfig, path, method string) string {
	meta := cfg.PlainRoutes[path]
	if meta == nil {
		return ""
	}
	if m := meta.Methods[strings.ToLower(method)]; m != nil && m.Summary != "" {
		return m.Summary
	}
	return meta.Summary
}

// routeInfos describes the methods r serves.
func routeInfos(r *routemod.Route) []Info {
	if r.Plain {
		m := r.FileRoute.Method
		if m == "" {
			m = "*"
		}
		return []Info{{Method: m, Path: r.FileRoute.Pattern(), Kind: "plain", File: r.File}}
	}
	var out []Info
	for m, op := range r.Ops {
		out = append(out, Info{Method: m, Path: r.FileRoute.Pattern(), Kind: "endpoint", Summary: op.Contract.Summary, File: r.File})
	}
	return out
}

// DocRoutes are the served routes as the OpenAPI document sees them
// (package document): an endpoint's operations in method order, with
// what the host answers for them besides their guest (the body limit,
// bodyBytes unless the contract sets its own; the media types it
// accepts and offers; whether its module can use a database).
func (t *Table) DocRoutes(bodyBytes int64) []document.Route {
	routes := make([]document.Route, len(t.Routes))
	for i, r := range t.Routes {
		routes[i] = document.Route{Path: r.FileRoute, File: r.File, Plain: r.Plain}
		if r.Plain {
			continue
		}
		for _, m := range slices.Sorted(maps.Keys(r.Ops)) {
			op := r.Ops[m]
			dr := openapi.Route{
				Method:     m,
				Path:       r.FileRoute.OpenAPIPath(),
				File:       r.File,
				Contract:   op.Contract,
				Defs:       r.Module.Contract.Defs,
				Negotiates: op.Negotiates(),
				Database:   r.Module.Database,
				Offers:     op.Offers,
			}
			if op.Body != nil {
				dr.BodyLimit, dr.Accepts = op.Body.Limit(bodyBytes), op.Body.Supported()
			}
			routes[i].Operations = append(routes[i].Operations, dr)
		}
	}
	return routes
}
