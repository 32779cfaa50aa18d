package host

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// isBundle reports whether the module at file (relative to the app,
// forward slashes) is a bundle: a module of abi.BundleDir, whose routes
// come from its declaration rather than its name.
func isBundle(file string) bool {
	return strings.HasPrefix(file, abi.BundleDir+"/") && strings.HasSuffix(file, routefile.Extension)
}

// errNoHandleRoute is the load error of a bundle without its handler.
func errNoHandleRoute(file string) error {
	return fmt.Errorf("%s: a module in %s serves several routes and must export %q (route i32) -> i32 (abi/README.md §9); build it with endpoints build, or move a module of one route to server/api or server/routes", file, abi.BundleDir, abi.ExportHandleRoute)
}

// loadBundle loads a bundle module once and makes one route per entry of
// its declaration, all sharing its pool. deferCode: see loadModule.
func (h loadSide) loadBundle(ctx context.Context, file string, wasm []byte, deferCode bool) ([]*route, error) {
	mod, err := loadModule(ctx, h.engine, wasm, routefile.Route{File: file}, limitInstances(h.opts.Limits), deferCode, true)
	if err != nil {
		return nil, err
	}
	routes, err := bundleRoutes(file, mod)
	if err != nil {
		mod.pool.Retire(ctx)
		return nil, err
	}
	return routes, nil
}

// bundleRoutes splits a loaded bundle into its routes: each gets the
// bundle's pool, its own contract and its index. The routes must not
// claim one method and path twice.
func bundleRoutes(file string, mod *module) ([]*route, error) {
	decl, err := parseBundle(file, mod.contractJSON)
	if err != nil {
		return nil, err
	}
	mws, err := bundleMiddleware(file, decl, mod.pool)
	if err != nil {
		return nil, err
	}
	var scratch router.Router[*route]
	routes := make([]*route, 0, len(decl.Routes))
	for i, br := range decl.Routes {
		where := fmt.Sprintf("%s: /routes/%d", file, i)
		rf, err := routefile.FromRoute(br.Route)
		if err != nil {
			return nil, fmt.Errorf("%s/route: %w", where, err)
		}
		// Errors about the route name the bundle and the route, as a
		// single-route module's name its file.
		rf.File = fmt.Sprintf("%s (%s)", file, br.Route)
		m := &module{file: file, pool: mod.pool, hookExported: mod.hookExported, index: i, middleware: mws}
		if c := bytes.TrimSpace(br.Contract); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
			m.contractJSON = bytes.Clone(c)
			// Each route's contract is bounded as a module's is.
			if len(c) > abi.ContractMaxBytes {
				return nil, fmt.Errorf("%s: contract: %d bytes; the host accepts at most %d (%d KiB) per route: move shared schemas into fewer, smaller $defs", rf.File, len(c), abi.ContractMaxBytes, abi.ContractMaxBytes>>10)
			}
			if err := engine.CheckContractSize(c, rf.File); err != nil {
				return nil, err
			}
			if m.contract, err = contract.Parse(rf.File, m.contractJSON, contract.Options{Method: rf.Method}); err != nil {
				return nil, err
			}
		}
		r, err := newRoute(rf, m)
		if err != nil {
			return nil, err
		}
		if err := r.register(&scratch); err != nil {
			return nil, err
		}
		routes = append(routes, r)
	}
	return routes, nil
}

// parseBundle decodes a bundle's declaration strictly.
func parseBundle(file string, data []byte) (*abi.Bundle, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: a bundle declares its routes: its %s export (or %s section) returned nothing; build it with endpoints build (abi/README.md §9)", file, abi.ExportContract, abi.SectionContract)
	}
	var decl abi.Bundle
	if err := json.Unmarshal(data, &decl, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("%s: its declaration is not a bundle's ({\"routes\": [{\"route\": \"GET /api/users/:id\", \"contract\": {...}}, ...]}): %w", file, err)
	}
	if len(decl.Routes) == 0 {
		return nil, fmt.Errorf("%s: /routes: a bundle declares at least one route", file)
	}
	if len(decl.Routes) > abi.BundleMaxRoutes {
		return nil, fmt.Errorf("%s: /routes: %d routes; a bundle has at most %d: split it in two", file, len(decl.Routes), abi.BundleMaxRoutes)
	}
	return &decl, nil
}

// bundleMiddleware makes the middleware a bundle's declaration lists, each
// served by the bundle's pool with its index. Errors name the bundle and
// the entry.
func bundleMiddleware(file string, decl *abi.Bundle, pool *engine.Pool) ([]*edge.Middleware, error) {
	out := make([]*edge.Middleware, 0, len(decl.Middleware))
	for i, bm := range decl.Middleware {
		where := fmt.Sprintf("%s: /middleware/%d", file, i)
		for _, o := range out {
			if o.Name == bm.Name {
				return nil, fmt.Errorf("%s/name: %q names middleware %d already", where, bm.Name, o.Index)
			}
		}
		m, err := edge.BundledMiddleware(file, where, pool, i, bm)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// bundledMiddleware adds the middleware the table's bundles serve to those
// of server/middleware, in name order. One whose name another middleware
// of the app has already (a module an earlier build left in
// server/middleware, another bundle's) is a problem, and left out.
func (l *loading) bundledMiddleware() {
	t := l.t
	// Those of the previous table's bundles, kept with its middleware
	// when server/middleware could not be read, are this table's again.
	t.middleware = slices.DeleteFunc(slices.Clone(t.middleware), func(m *edge.Middleware) bool { return m.Index >= 0 })
	added := false
	for _, f := range slices.Sorted(maps.Keys(t.files)) {
		lf := t.files[f]
		for _, r := range slices.Concat(lf.routes, lf.held) {
			if r.mod == nil || r.mod.middleware == nil {
				continue
			}
			for _, m := range r.mod.middleware {
				if other := edge.MiddlewareNamed(t.middleware, m.Name); other != nil {
					l.problem(fmt.Errorf("%s: middleware %q: %s has that name already: remove one of them (endpoints build links Go middleware into the bundle)", m.File, m.Name, other.File), true)
					continue
				}
				t.middleware = append(t.middleware, m)
				added = true
			}
			break // the bundle's routes share one list
		}
	}
	if added {
		slices.SortStableFunc(t.middleware, func(a, b *edge.Middleware) int { return strings.Compare(a.Name, b.Name) })
	}
}
