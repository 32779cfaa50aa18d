package routemod

import (
	"context"
	"fmt"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/host/internal/breaker"
	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// Module is a route module with its pool and, for an endpoint, the
// contract it declares.
type Module struct {
	// File is the module, relative to the app.
	File string
	// Pool runs its instances.
	Pool *engine.Pool
	// ContractJSON is the contract as the module declares it (a bundle's:
	// its whole declaration); nil for a plain route.
	ContractJSON []byte
	// Contract is the contract parsed; nil for a plain route and a bundle.
	Contract *abi.Contract
	// HookExported: the module exports abi.ExportOnValidationError (a
	// bundle: abi.ExportOnValidationErrorRoute).
	HookExported bool
	// Index is the route's place in a bundle's declaration, which
	// abi.ExportHandleRoute receives; -1 for a module of one route. The
	// modules of a bundle's routes share its pool.
	Index int
	// Middleware are those the bundle serves too (abi.Bundle.Middleware),
	// the same on each of its routes' modules; nil elsewhere.
	Middleware []*edge.Middleware
	// Lane is a bundle route's share of Pool, limits.instances of its own
	// as a module of one route has, so that slow calls of one route never
	// make another wait; nil elsewhere.
	Lane *engine.Lane
	// Breaker refuses a client's calls to a bundle route for a while
	// once that client's last calls to it all trapped, so that its
	// failures do not cost the bundle's other routes (package breaker);
	// nil elsewhere.
	Breaker *breaker.Breaker
	// Database: the module imports the host's database functions
	// (engine.UsesDatabase), so a call of it may be answered 503 while
	// its database is down or waits for its migrations. A bundle's
	// routes share their module's.
	Database bool
}

// Instances is where the module's calls take their instances: its lane in
// a bundle, else its pool.
func (m *Module) Instances() engine.Source {
	if m.Lane != nil {
		return m.Lane
	}
	return m.Pool
}

// Handle calls the handler of an instance of the module for one request,
// the call being ctx. Both handler exports take at most one parameter and
// return one result, in stack (the call's own, of length 1), which it
// returns: wazero's Call would allocate a slice for them at every call.
func (m *Module) Handle(ctx context.Context, in *engine.Instance, stack []uint64) ([]uint64, error) {
	if m.Index >= 0 {
		stack[0] = uint64(m.Index)
		return stack, in.HandleRoute.CallWithStack(ctx, stack)
	}
	return stack, in.Handle.CallWithStack(ctx, stack)
}

// Load reads, instruments and compiles one route module, checks its
// exports, instantiates the warm instance and reads its contract. With
// deferCode, on an engine that serves while compiling, a module that
// carries its contract and ABI version in custom sections (endpoints build
// writes them after loading it) is routed from the sections at once, and
// its code loads later (see deferModule); one without them that the
// interpreter ran to read its contract (the cache lacks it) then drops
// that code, and its code loads later the same way.
//
// A bundle (abi.BundleDir) must export abi.ExportHandleRoute; its
// ContractJSON is then its whole declaration, which BundleRoutes splits into
// its routes, and Contract stays nil.
func Load(ctx context.Context, e *engine.Engine, wasm []byte, rf routefile.Route, poolSize int, deferCode, isBundle bool) (*Module, error) {
	if deferCode && e.ServesWhileCompiling() {
		if m, ok, err := deferModule(e, wasm, rf, poolSize, isBundle); ok {
			return m, err
		}
	}
	m := &Module{File: rf.File, Pool: e.NewPool(nil, rf.File, poolSize, false), Index: -1, Database: engine.UsesDatabase(wasm)}
	in, b, err := e.OpenCode(ctx, m.Pool, wasm, rf, true)
	if err != nil {
		return nil, err
	}
	if isBundle {
		if in.HandleRoute == nil {
			in.Close(ctx)
			m.Pool.Retire(ctx)
			return nil, bundle.ErrNoHandleRoute(rf.File)
		}
		m.ContractJSON, m.HookExported = b, in.OnValidationRoute != nil
	} else if in.Handle == nil {
		in.Close(ctx)
		m.Pool.Retire(ctx)
		return nil, fmt.Errorf("%s: not an Endpoints route module: missing export %q; a module that exports %q alone serves several routes and lives in %s (abi/README.md §9)", rf.File, abi.ExportHandle, abi.ExportHandleRoute, abi.BundleDir)
	} else {
		if len(b) > 0 {
			c, err := contract.Parse(rf.File, b, contract.Options{Method: rf.Method})
			if err != nil {
				in.Close(ctx)
				m.Pool.Retire(ctx)
				return nil, err
			}
			m.ContractJSON, m.Contract = b, c
		}
		m.HookExported = in.OnValidation != nil
	}
	if deferCode && m.Pool.Interpreted() {
		// Its contract read, the module needs its code no more than one
		// routed from its sections does: release the interpreter's
		// code, about twenty times the module's bytes, and defer the
		// code like theirs. Kept until the compiler replaced it, the
		// interpreter's code of every module of a cold start was open at
		// once (10 GB for 50 Go routes; see RATIONALE.md).
		in.Close(ctx)
		m.Pool.Retire(ctx)
		m.Pool = e.DeferPool(wasm, rf, b, poolSize)
		return m, nil
	}
	m.Pool.Park(in)
	e.CompileLater(m.Pool)
	return m, nil
}

// deferModule makes the module of a route module whose code has not
// loaded yet, from what its custom sections declare: a start then costs
// reading the files and compiling the contracts, not compiling every
// module's code (wazero decodes and validates a whole module even when the
// compilation cache holds it, about 50 ms for a 4 MB Go module). It
// reports false, for the eager load to say what is wrong, when the module
// lacks an abi.SectionABIVersion section naming this host's version or
// its sections do not parse: endpoints build writes both sections only
// after loading the module as the host does, so a module with them has
// passed a full load once.
//
// The code loads in the background (Engine.StartCompiles) or at the first
// request, which waits for it, from the compilation cache or else in the
// interpreter, the compiler following in the background; either way it is
// then checked as an eager load checks it, and must declare the very
// contract of the section (engine.DeferPool). A
// module that fails then is logged, its route answers 500, and
// Host.WaitCompiled reports it.
func deferModule(e *engine.Engine, wasm []byte, rf routefile.Route, poolSize int, isBundle bool) (*Module, bool, error) {
	if v, ok, err := wasmbin.Custom(wasm, abi.SectionABIVersion); err != nil || !ok || string(v) != strconv.Itoa(abi.Version) {
		return nil, false, nil
	}
	section, err := engine.ReadSections(wasm, rf.File)
	if err != nil {
		return nil, false, nil
	}
	hookExport, handler := abi.ExportOnValidationError, abi.ExportHandle
	if isBundle {
		hookExport, handler = abi.ExportOnValidationErrorRoute, abi.ExportHandleRoute
	}
	if ok, err := wasmbin.ExportsFunction(wasm, handler); err != nil || !ok {
		return nil, false, nil // the eager load says what is missing
	}
	hook, err := wasmbin.ExportsFunction(wasm, hookExport)
	if err != nil {
		return nil, false, nil
	}
	m := &Module{File: rf.File, ContractJSON: section, HookExported: hook, Index: -1, Database: engine.UsesDatabase(wasm)}
	if section != nil && !isBundle {
		if err := engine.CheckContractSize(section, rf.File); err != nil {
			return nil, true, err
		}
		if m.Contract, err = contract.Parse(rf.File, section, contract.Options{Method: rf.Method}); err != nil {
			return nil, true, err
		}
	}
	m.Pool = e.DeferPool(wasm, rf, section, poolSize)
	return m, true, nil
}
