package host

import (
	"context"
	"maps"
	"slices"

	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// loadBundle loads a bundle module once and makes one route per entry of
// its declaration, all sharing its pool. deferCode: see loadModule.
func (h loadSide) loadBundle(ctx context.Context, file string, wasm []byte, deferCode bool) ([]*route, error) {
	mod, err := routemod.Load(ctx, h.engine, wasm, routefile.Route{File: file}, limitInstances(h.opts.Limits), deferCode, true)
	if err != nil {
		return nil, err
	}
	routes, err := bundleRoutes(file, mod)
	if err != nil {
		mod.Pool.Retire(ctx)
		return nil, err
	}
	return routes, nil
}

// bundleRoutes splits a loaded bundle into its routes (package bundle
// reads its declaration): each gets the bundle's pool, its own contract
// and its index. The routes must not claim one method and path twice.
func bundleRoutes(file string, mod *module) ([]*route, error) {
	decl, err := bundle.Parse(file, mod.ContractJSON)
	if err != nil {
		return nil, err
	}
	mws, err := decl.Middleware(mod.Pool)
	if err != nil {
		return nil, err
	}
	var scratch router.Router[*route]
	routes := make([]*route, 0, decl.Len())
	for i := range decl.Len() {
		br, err := decl.Route(i)
		if err != nil {
			return nil, err
		}
		m := &module{File: file, Pool: mod.Pool, HookExported: mod.HookExported, Index: i, Middleware: mws, ContractJSON: br.ContractJSON, Contract: br.Contract}
		r, err := routemod.NewRoute(br.Route, m)
		if err != nil {
			return nil, err
		}
		if err := r.Register(&scratch); err != nil {
			return nil, err
		}
		routes = append(routes, r)
	}
	return routes, nil
}

// bundledMiddleware adds the middleware the table's bundles serve to those
// of server/middleware, in name order (bundle.MergeMiddleware). One whose
// name another middleware of the app has already is a problem, and left
// out.
func (l *loading) bundledMiddleware() {
	t := l.t
	var bundles [][]*edge.Middleware
	for _, f := range slices.Sorted(maps.Keys(t.files)) {
		lf := t.files[f]
		for _, r := range slices.Concat(lf.routes, lf.held) {
			if r.Module == nil || r.Module.Middleware == nil {
				continue
			}
			bundles = append(bundles, r.Module.Middleware)
			break // the bundle's routes share one list
		}
	}
	var problems []error
	t.middleware, problems = bundle.MergeMiddleware(t.middleware, bundles)
	for _, p := range problems {
		l.problem(p, true)
	}
}
