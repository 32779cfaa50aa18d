package host

import (
	"context"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// module is a route module with its pool and, for an endpoint, the
// contract it declares.
type module struct {
	file         string
	pool         *engine.Pool
	contractJSON []byte // nil for a plain route
	contract     *abi.Contract
	// hookExported: the module exports abi.ExportOnValidationError.
	hookExported bool
}

// loadModule reads, instruments and compiles one route module, checks its
// exports, instantiates the warm instance and reads its contract. With
// deferCode, on an engine that serves while compiling, a module that
// carries its contract and ABI version in custom sections (endpoints build
// writes them after loading it) is routed from the sections at once, and
// its code loads later (see deferModule); one without them that the
// interpreter ran to read its contract (the cache lacks it) then drops
// that code, and its code loads later the same way.
func loadModule(ctx context.Context, e *engine.Engine, wasm []byte, rf routefile.Route, poolSize int, deferCode bool) (*module, error) {
	if deferCode && e.ServesWhileCompiling() {
		if m, ok, err := deferModule(e, wasm, rf, poolSize); ok {
			return m, err
		}
	}
	m := &module{file: rf.File, pool: e.NewPool(nil, rf.File, poolSize, false)}
	in, b, err := e.OpenCode(ctx, m.pool, wasm, rf, true)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 {
		c, err := contract.Parse(rf.File, b, contract.Options{Method: rf.Method})
		if err != nil {
			in.Close(ctx)
			m.pool.Retire(ctx)
			return nil, err
		}
		m.contractJSON, m.contract = b, c
	}
	m.hookExported = in.OnValidation != nil
	if deferCode && m.pool.Interpreted() {
		// Its contract read, the module needs its code no more than one
		// routed from its sections does: release the interpreter's
		// code, about twenty times the module's bytes, and defer the
		// code like theirs. Kept until the compiler replaced it, the
		// interpreter's code of every module of a cold start was open at
		// once (10 GB for 50 Go routes; see RATIONALE.md).
		in.Close(ctx)
		m.pool.Retire(ctx)
		m.pool = e.DeferPool(wasm, rf, b, poolSize)
		return m, nil
	}
	m.pool.Park(in)
	e.CompileLater(m.pool)
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
func deferModule(e *engine.Engine, wasm []byte, rf routefile.Route, poolSize int) (*module, bool, error) {
	if v, ok, err := wasmbin.Custom(wasm, abi.SectionABIVersion); err != nil || !ok || string(v) != strconv.Itoa(abi.Version) {
		return nil, false, nil
	}
	section, err := engine.ReadSections(wasm, rf.File)
	if err != nil {
		return nil, false, nil
	}
	hook, err := wasmbin.ExportsFunction(wasm, abi.ExportOnValidationError)
	if err != nil {
		return nil, false, nil
	}
	m := &module{file: rf.File, contractJSON: section, hookExported: hook}
	if section != nil {
		if err := engine.CheckContractSize(section, rf.File); err != nil {
			return nil, true, err
		}
		if m.contract, err = contract.Parse(rf.File, section, contract.Options{Method: rf.Method}); err != nil {
			return nil, true, err
		}
	}
	m.pool = e.DeferPool(wasm, rf, section, poolSize)
	return m, true, nil
}
