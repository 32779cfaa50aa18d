package routemod

import (
	"context"
	"errors"

	"github.com/wasmendpoints/endpoints/host/internal/breaker"
	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// LoadRoutes loads the route module file (its bytes wasm) with a pool of
// poolSize instances and makes its routes: one, or one per entry of a
// bundle's declaration (abi.BundleDir), all on its pool. The module is
// closed when its routes cannot be made. deferCode: see Load.
func LoadRoutes(ctx context.Context, e *engine.Engine, file string, wasm []byte, poolSize int, deferCode bool) ([]*Route, error) {
	if bundle.IsModule(file) {
		mod, err := Load(ctx, e, wasm, routefile.Route{File: file}, poolSize, deferCode, true)
		if err != nil {
			return nil, err
		}
		routes, err := BundleRoutes(file, mod)
		if len(routes) == 0 {
			mod.Pool.Retire(ctx)
			return nil, err
		}
		return routes, err // some routes refused: the others serve
	}
	rf, err := routefile.Parse(file)
	if err != nil {
		return nil, err
	}
	mod, err := Load(ctx, e, wasm, rf, poolSize, deferCode, false)
	if err != nil {
		return nil, err
	}
	r, err := NewRoute(rf, mod)
	if err != nil {
		mod.Pool.Retire(ctx)
		return nil, err
	}
	return []*Route{r}, nil
}

// BundleRoutes splits a loaded bundle into its routes (package bundle
// reads its declaration): each gets the bundle's pool, a lane of it, its
// own contract and its index. The routes must not claim one method and
// path twice. A route whose contract is refused is left out, its error
// joined to the others' in err: the routes it returns serve, and none
// means the bundle failed as a whole (so does a broken declaration).
func BundleRoutes(file string, mod *Module) ([]*Route, error) {
	decl, err := bundle.Parse(file, mod.ContractJSON)
	if err != nil {
		return nil, err
	}
	mws, err := decl.Middleware(mod.Pool)
	if err != nil {
		return nil, err
	}
	for _, mw := range mws {
		mw.Database = mod.Database // the bundle's code runs it
	}
	var scratch router.Router[*Route]
	routes := make([]*Route, 0, decl.Len())
	refused := &RefusedError{}
	refuse := func(i int, err error) {
		refused.Errs = append(refused.Errs, err)
		if rf, err := routefile.FromRoute(decl.RouteName(i)); err == nil {
			refused.Routes = append(refused.Routes, rf.String())
		}
	}
	for i := range decl.Len() {
		br, err := decl.Route(i)
		if err != nil {
			refuse(i, err)
			continue
		}
		// The lane's key is not one a middleware's lane (keyed by the
		// route's name) takes: the handler's calls never wait for its
		// middleware's.
		m := &Module{File: file, Pool: mod.Pool, HookExported: mod.HookExported, Index: i, Middleware: mws, Database: mod.Database, ContractJSON: br.ContractJSON, Contract: br.Contract,
			Lane: mod.Pool.Lane("handler "+br.Route.String(), br.Route.Pattern()), Breaker: &breaker.Breaker{}}
		r, err := NewRoute(br.Route, m)
		if err != nil {
			refuse(i, err)
			continue
		}
		if err := r.Register(&scratch); err != nil {
			return nil, err
		}
		routes = append(routes, r)
	}
	if len(refused.Errs) == 0 {
		return routes, nil
	}
	return routes, refused
}

// RefusedError is the error of a bundle whose routes were refused, some
// or all (BundleRoutes): the errors, and the routes they concern, so that
// a reload can keep the previous version of each serving.
type RefusedError struct {
	// Routes are the refused routes, as routefile.Route.String gives them
	// ("GET /api/users/:id"); a route the declaration misspells is not
	// among them.
	Routes []string
	// Errs are the errors, one per refused route.
	Errs []error
}

// Error is the errors' texts, one per line.
func (e *RefusedError) Error() string { return errors.Join(e.Errs...).Error() }

// Unwrap is Errs.
func (e *RefusedError) Unwrap() []error { return e.Errs }
