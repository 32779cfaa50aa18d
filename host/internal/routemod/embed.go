package routemod

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// Embed returns wasm, the route module file, with what it declares in
// custom sections: its contract into abi.SectionContract (endpoints only)
// and its ABI version into abi.SectionABIVersion, which a later load reads
// instead of running the module (see Load's deferCode). It loads the
// module as the host does, on e, and reads its exports: a module that
// would fail its load fails here with the same error, and so does an
// endpoint whose contract the host would refuse, a timeout over
// maxTimeout (limits.maxTimeout) included. keepFailed keeps the routes a
// bundle declares failed (abi.BundleRoute.Error: a Go route `endpoints
// dev` linked without its package, which does not compile) in its
// section as declared, where they fail Embed otherwise; the host refuses
// them at its load from the section as from the module.
func Embed(ctx context.Context, e *engine.Engine, file string, wasm []byte, maxTimeout time.Duration, keepFailed bool) ([]byte, error) {
	isBundle := bundle.IsModule(file)
	rf := routefile.Route{File: file}
	if !isBundle {
		var err error
		if rf, err = routefile.Parse(file); err != nil {
			return nil, err
		}
	}
	m, err := Load(ctx, e, wasm, rf, 1, false, isBundle)
	if err != nil {
		return nil, err
	}
	defer m.Pool.Retire(ctx)
	routes := []*Route{}
	if isBundle {
		// Each route's contract is checked as the host will check it.
		if routes, err = BundleRoutes(file, m); err != nil && (!keepFailed || !onlyFailed(err)) {
			return nil, err
		}
	} else {
		r, err := NewRoute(rf, m)
		if err != nil {
			return nil, err
		}
		routes = append(routes, r)
	}
	for _, r := range routes {
		if err := r.CheckTimeouts(maxTimeout); err != nil {
			return nil, err
		}
	}
	out, err := wasmbin.WithCustom(wasm, abi.SectionABIVersion, []byte(strconv.Itoa(abi.Version)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if m.ContractJSON != nil {
		if out, err = wasmbin.WithCustom(out, abi.SectionContract, m.ContractJSON); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return out, nil
}

// onlyFailed reports whether err, BundleRoutes' error, refuses nothing but
// routes the bundle declares failed.
func onlyFailed(err error) bool {
	var refused *RefusedError
	if !errors.As(err, &refused) {
		return false
	}
	for _, e := range refused.Errs {
		if fr := (*bundle.FailedRouteError)(nil); !errors.As(e, &fr) {
			return false
		}
	}
	return true
}
