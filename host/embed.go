package host

import (
	"context"
	"fmt"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/sections"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

func init() { sections.Embed = embedSections }

// embedSections is sections.Embed: the app's limits, the interpreter for
// modules the cache lacks.
func embedSections(ctx context.Context, appDir, file string, wasm []byte, overrides ...config.Override) ([]byte, error) {
	cfg, err := config.Load(appDir, overrides...)
	if err != nil {
		return nil, err
	}
	return embedContract(ctx, file, wasm, Options{Limits: cfg.Limits, ServeWhileCompiling: true})
}

// embedContract returns wasm with what the module declares in custom
// sections: its contract into abi.SectionContract (endpoints only) and its
// ABI version into abi.SectionABIVersion. It loads the module as the host
// does, in the same sandbox and with opts' limits, and reads its exports;
// a module that would fail its load fails here with the same error, and so
// does an endpoint whose contract the host would refuse. With
// opts.ServeWhileCompiling a module the compilation cache lacks runs in
// wazero's interpreter, which reads the exports in a fraction of the
// compiler's time.
func embedContract(ctx context.Context, file string, wasm []byte, opts Options) ([]byte, error) {
	isBundle := bundle.IsModule(file)
	rf := routefile.Route{File: file}
	if !isBundle {
		var err error
		if rf, err = routefile.Parse(file); err != nil {
			return nil, err
		}
	}
	e, err := newEngine(ctx, &opts, opts.logger())
	if err != nil {
		return nil, err
	}
	defer e.Shutdown(ctx)
	m, err := routemod.Load(ctx, e, wasm, rf, 1, false, isBundle)
	if err != nil {
		return nil, err
	}
	defer m.Pool.Retire(ctx)
	routes := []*route{}
	if isBundle {
		// Each route's contract is checked as the host will check it.
		if routes, err = routemod.BundleRoutes(file, m); err != nil {
			return nil, err
		}
	} else {
		r, err := routemod.NewRoute(rf, m)
		if err != nil {
			return nil, err
		}
		routes = append(routes, r)
	}
	for _, r := range routes {
		if err := r.CheckTimeouts(limitMaxTimeout(opts.Limits)); err != nil {
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
