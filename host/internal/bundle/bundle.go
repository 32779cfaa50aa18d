// Package bundle reads a bundle's declaration (abi.Bundle, abi/README.md
// §9): the routes and middleware one module of abi.BundleDir serves. It
// decodes the declaration strictly, and turns each route entry into the
// route and contract a module of one route would have, and the middleware
// entries into the middleware the bundle's pool serves.
//
// Loading the module, the route table and the app's other middleware are
// packages routemod's, routetable's and versionload's.
package bundle

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// IsModule reports whether the module at file (relative to the app,
// forward slashes) is a bundle: a module of abi.BundleDir, whose routes
// come from its declaration rather than its name.
func IsModule(file string) bool {
	return strings.HasPrefix(file, abi.BundleDir+"/") && strings.HasSuffix(file, routefile.Extension)
}

// ErrNoHandleRoute is the load error of the bundle at file when it does
// not export abi.ExportHandleRoute.
func ErrNoHandleRoute(file string) error {
	return fmt.Errorf("%s: a module in %s serves several routes and must export %q (route i32) -> i32 (abi/README.md §9); build it with endpoints build, or move a module of one route to server/api or server/routes", file, abi.BundleDir, abi.ExportHandleRoute)
}

// Declaration is a bundle's declaration, decoded and checked as a whole
// (Parse); its entries are turned into routes one at a time (Route), so
// that the first error of the first faulty entry is the one reported.
type Declaration struct {
	file string
	decl abi.Bundle
}

// Parse decodes the declaration data of the bundle at file strictly
// (unknown members are errors), and checks it declares between one and
// abi.BundleMaxRoutes routes. Errors name the file and the JSON pointer.
func Parse(file string, data []byte) (*Declaration, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: a bundle declares its routes: its %s export (or %s section) returned nothing; build it with endpoints build (abi/README.md §9)", file, abi.ExportContract, abi.SectionContract)
	}
	d := &Declaration{file: file}
	if err := json.Unmarshal(data, &d.decl, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("%s: its declaration is not a bundle's ({\"routes\": [{\"route\": \"GET /api/users/:id\", \"contract\": {...}}, ...]}): %w", file, err)
	}
	if len(d.decl.Routes) == 0 {
		return nil, fmt.Errorf("%s: /routes: a bundle declares at least one route", file)
	}
	if len(d.decl.Routes) > abi.BundleMaxRoutes {
		return nil, fmt.Errorf("%s: /routes: %d routes; a bundle has at most %d: split it in two", file, len(d.decl.Routes), abi.BundleMaxRoutes)
	}
	return d, nil
}

// Len is the number of routes the bundle declares: Route takes 0 to
// Len()-1, the indexes abi.ExportHandleRoute receives.
func (d *Declaration) Len() int { return len(d.decl.Routes) }

// RouteName is the route entry i declares (0 <= i < Len), as written:
// "GET /api/users/:id".
func (d *Declaration) RouteName(i int) string { return d.decl.Routes[i].Route }

// Route is one route entry of a bundle, as a module of one route would
// give it.
type Route struct {
	// Route is the entry's method and path; its File names the bundle and
	// the route ("server/bundle/app.wasm (GET /api/users/:id)"), so that
	// errors about the route name both.
	Route routefile.Route
	// ContractJSON is the entry's contract, nil for a plain route (none,
	// or null).
	ContractJSON []byte
	// Contract is ContractJSON parsed for the route's method; nil with it.
	Contract *abi.Contract
}

// Route reads route entry i (0 <= i < Len): its route, and its contract,
// bounded as a module's is (abi.ContractMaxBytes, the schema limits of
// engine.CheckContractSize) and parsed. Errors name the bundle and the
// entry's JSON pointer, or the route.
func (d *Declaration) Route(i int) (Route, error) {
	br := d.decl.Routes[i]
	rf, err := routefile.FromRoute(br.Route)
	if err != nil {
		return Route{}, fmt.Errorf("%s: /routes/%d/route: %w", d.file, i, err)
	}
	rf.File = fmt.Sprintf("%s (%s)", d.file, br.Route)
	r := Route{Route: rf}
	if br.Error != "" {
		return Route{}, &FailedRouteError{Route: rf, Text: br.Error}
	}
	c := bytes.TrimSpace(br.Contract)
	if len(c) == 0 || bytes.Equal(c, []byte("null")) {
		return r, nil
	}
	if len(c) > abi.ContractMaxBytes {
		return Route{}, fmt.Errorf("%s: contract: %d bytes; the host accepts at most %d (%d KiB) per route: move shared schemas into fewer, smaller $defs", rf.File, len(c), abi.ContractMaxBytes, abi.ContractMaxBytes>>10)
	}
	if err := engine.CheckContractSize(c, rf.File); err != nil {
		return Route{}, err
	}
	r.ContractJSON = bytes.Clone(c)
	if r.Contract, err = contract.Parse(rf.File, r.ContractJSON, contract.Options{Method: rf.Method}); err != nil {
		return Route{}, err
	}
	return r, nil
}

// FailedRouteError is the error of a bundle's route that the module
// declares failed (abi.BundleRoute.Error: a Go route whose init function
// panicked).
type FailedRouteError struct {
	// Route is the route; its File names the bundle and the route.
	Route routefile.Route
	// Text is the module's word on it, which names the route's source.
	Text string
}

func (e *FailedRouteError) Error() string {
	return e.Route.File + ": " + e.Text
}

// Middleware makes the middleware the declaration lists, in its order,
// each served by pool (the bundle's) with its index. Two entries of one
// name are refused. Errors name the bundle and the entry's JSON pointer.
func (d *Declaration) Middleware(pool *engine.Pool) ([]*edge.Middleware, error) {
	out := make([]*edge.Middleware, 0, len(d.decl.Middleware))
	for i, bm := range d.decl.Middleware {
		where := fmt.Sprintf("%s: /middleware/%d", d.file, i)
		for _, o := range out {
			if o.Name == bm.Name {
				return nil, fmt.Errorf("%s/name: %q names middleware %d already", where, bm.Name, o.Index)
			}
		}
		m, err := edge.BundledMiddleware(d.file, where, pool, i, bm)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// MergeMiddleware adds the middleware the app's bundles serve (bundles:
// each bundle's list, in the order of their files) to the app's (app:
// those of server/middleware, in name order), and returns them all in
// name order. Entries of app that a bundle served (a previous table's,
// kept when server/middleware could not be read) are dropped first: the
// bundles give them again. A bundle's middleware whose name another has
// already (a module an earlier build left in server/middleware, another
// bundle's) is left out, with a problem that names both. app is not
// changed.
func MergeMiddleware(app []*edge.Middleware, bundles [][]*edge.Middleware) ([]*edge.Middleware, []error) {
	out := slices.DeleteFunc(slices.Clone(app), func(m *edge.Middleware) bool { return m.Index >= 0 })
	var problems []error
	added := false
	for _, list := range bundles {
		for _, m := range list {
			if other := edge.MiddlewareNamed(out, m.Name); other != nil {
				problems = append(problems, fmt.Errorf("%s: middleware %q: %s has that name already: remove one of them (endpoints build links Go middleware into the bundle)", m.File, m.Name, other.File))
				continue
			}
			out = append(out, m)
			added = true
		}
	}
	if added {
		slices.SortStableFunc(out, func(a, b *edge.Middleware) int { return strings.Compare(a.Name, b.Name) })
	}
	return out, problems
}
