package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// module is a compiled route module with its pool and, for an endpoint, the
// contract it exported.
type module struct {
	file         string
	pool         *pool
	contractJSON []byte // nil for a plain route
	contract     *abi.Contract
}

// loadModule reads, instruments and compiles one route module, checks its
// exports, instantiates the warm instance and reads its contract.
func (e *engine) loadModule(ctx context.Context, wasm []byte, rf routefile.Route, poolSize int) (*module, error) {
	wasm, err := e.instrument(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid WebAssembly module: %w", rf.File, err)
	}
	compiled, err := e.compile(ctx, wasm)
	if err != nil && strings.Contains(err.Error(), "over limit of") {
		return nil, fmt.Errorf("%s: its memory does not fit limits.memoryBytes (%d bytes): %w; raise limits.memoryBytes in %s", rf.File, e.memoryBytes, err, AppConfigFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid WebAssembly module: %w", rf.File, err)
	}
	if err := checkExports(compiled.ExportedFunctions(), compiled.ExportedMemories()); err != nil {
		_ = compiled.Close(ctx)
		return nil, fmt.Errorf("%s: %w", rf.File, err)
	}
	m := &module{file: rf.File, pool: newPool(e, compiled, rf.File, poolSize)}
	lc := &call{parent: ctx, loading: true, logger: e.logger, deadline: loadDeadline()}
	lc.route = &route{file: rf.File}
	in, err := m.pool.warm(lc)
	if err != nil {
		_ = compiled.Close(ctx)
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			in.close(ctx)
			_ = compiled.Close(ctx)
		}
	}()
	res, err := in.mod.ExportedFunction(abi.ExportABIVersion).Call(lc)
	if err != nil {
		return nil, fmt.Errorf("%s: calling %s: %w", rf.File, abi.ExportABIVersion, err)
	}
	if v := int32(res[0]); v != abi.Version {
		return nil, fmt.Errorf("%s: built for ABI v%d, this host speaks ABI v%d: rebuild it with a current SDK", rf.File, v, abi.Version)
	}
	if fn := in.mod.ExportedFunction(abi.ExportContract); fn != nil {
		res, err := fn.Call(lc)
		if err != nil {
			return nil, fmt.Errorf("%s: calling %s: %w", rf.File, abi.ExportContract, err)
		}
		off, n := uint32(res[0]>>32), uint32(res[0])
		if n > 0 {
			b, okRead := in.mod.Memory().Read(off, n)
			if !okRead {
				return nil, fmt.Errorf("%s: %s returned memory [%d, %d) outside the module's memory", rf.File, abi.ExportContract, off, uint64(off)+uint64(n))
			}
			m.contractJSON = append([]byte(nil), b...)
			c, err := contract.Parse(rf.File, m.contractJSON, contract.Options{Method: rf.Method})
			if err != nil {
				return nil, err
			}
			m.contract = c
		}
	}
	m.pool.park(in)
	ok = true
	return m, nil
}

// compile compiles a module. wazero v1.12 can panic on some malformed
// modules instead of returning an error; a bad file must fail its own load,
// never the host.
func (e *engine) compile(ctx context.Context, wasm []byte) (compiled wazero.CompiledModule, err error) {
	defer func() {
		if v := recover(); v != nil {
			compiled, err = nil, fmt.Errorf("the compiler failed on it: %v", v)
		}
	}()
	return e.runtime.CompileModule(ctx, wasm)
}

// checkExports verifies the exports ABI v1 requires, with their signatures.
func checkExports(fns map[string]api.FunctionDefinition, mems map[string]api.MemoryDefinition) error {
	want := []struct {
		name     string
		required bool
		params   []api.ValueType
		results  []api.ValueType
	}{
		{abi.ExportABIVersion, true, nil, []api.ValueType{api.ValueTypeI32}},
		{abi.ExportHandle, true, nil, []api.ValueType{api.ValueTypeI32}},
		{abi.ExportContract, false, nil, []api.ValueType{api.ValueTypeI64}},
		{abi.ExportOnValidationError, false, nil, []api.ValueType{api.ValueTypeI32}},
	}
	for _, w := range want {
		fn, ok := fns[w.name]
		if !ok {
			if w.required {
				return fmt.Errorf("not an Endpoints route module: missing export %q (ABI v%d); build it with an Endpoints SDK", w.name, abi.Version)
			}
			continue
		}
		if !sameTypes(fn.ParamTypes(), w.params) || !sameTypes(fn.ResultTypes(), w.results) {
			return fmt.Errorf("export %q has signature %s, ABI v%d wants %s", w.name, signature(fn.ParamTypes(), fn.ResultTypes()), abi.Version, signature(w.params, w.results))
		}
	}
	if _, ok := mems[abi.ExportMemory]; !ok {
		return fmt.Errorf("not an Endpoints route module: missing exported memory %q", abi.ExportMemory)
	}
	return nil
}

func sameTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func signature(params, results []api.ValueType) string {
	s := "("
	for i, p := range params {
		if i > 0 {
			s += ", "
		}
		s += api.ValueTypeName(p)
	}
	s += ") -> ("
	for i, r := range results {
		if i > 0 {
			s += ", "
		}
		s += api.ValueTypeName(r)
	}
	return s + ")"
}
