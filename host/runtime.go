package host

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
)

// runtimeModule is the app's runtime declaration (abi.RuntimeModule): its
// settings, and the pool of instances that run openApi.extend and the
// app-wide onValidationError hook.
//
// A declaration without the hook runs only while a document is built. In
// production its module is then closed (release) and loaded again from its
// bytes for the next build (a reload's): a Go runtime declaration holds
// about 28 MiB (its machine code, decoded module and instance), which a
// server at rest has no use for. Development keeps it, as reloads there
// rebuild the document every few seconds.
type runtimeModule struct {
	decl   abi.Runtime
	logger *slog.Logger
	// mu guards pool, which is nil while a transient declaration is
	// closed.
	mu   sync.Mutex
	pool *engine.Pool
	// transient holds what reopens a declaration closed between document
	// builds; nil when the module stays loaded.
	transient *runtimeSource
}

// runtimeSource is what loads a transient runtime declaration again.
type runtimeSource struct {
	engine *engine.Engine
	wasm   []byte
}

// loadRuntime loads server/endpoints/runtime.wasm; an app without one gets
// nil. Errors name the file and what is wrong. keep: the module stays
// loaded even without a hook (development); otherwise such a module is
// closed by release once the document is built.
func loadRuntime(ctx context.Context, e *engine.Engine, wasm []byte, poolSize int, keep bool) (*runtimeModule, error) {
	file := abi.RuntimeModule
	c, err := e.Prepare(ctx, wasm, file, true)
	if err != nil {
		return nil, err
	}
	compiled := c.Compiled()
	fns := compiled.ExportedFunctions()
	for _, name := range []string{abi.ExportABIVersion, abi.ExportRuntime} {
		if _, ok := fns[name]; !ok {
			_ = c.Close(ctx)
			return nil, fmt.Errorf("%s: not a runtime declaration module: missing export %q (build it from a Go package with //endpoints:runtime, or from server/endpoints/runtime.{c,wat,ts,rs} exporting what ABI §6 lists)", file, name)
		}
	}
	if fn, ok := fns[abi.ExportOnValidationError]; ok && (len(fn.ParamTypes()) != 0 || !engine.SameTypes(fn.ResultTypes(), []api.ValueType{api.ValueTypeI32})) {
		_ = c.Close(ctx)
		return nil, fmt.Errorf("%s: export %q has signature %s, ABI v%d wants %s", file, abi.ExportOnValidationError, engine.Signature(fn.ParamTypes(), fn.ResultTypes()), abi.Version, engine.Signature(nil, []api.ValueType{api.ValueTypeI32}))
	}
	lc := e.LoadCall(ctx, file)
	rm := &runtimeModule{logger: e.Logger(), pool: e.NewPool(c, file, poolSize, true)}
	in, err := rm.pool.Warm(lc)
	if err != nil {
		_ = c.Close(ctx)
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	mod := in.Mod
	fail := func(err error) (*runtimeModule, error) {
		in.Close(ctx)
		_ = c.Close(ctx)
		return nil, err
	}
	if err := engine.CheckVersion(in, lc, file); err != nil {
		return fail(err)
	}
	raw, err := engine.ExportedBytes(in, lc, file, abi.ExportRuntime, abi.ContractMaxBytes)
	if err != nil {
		return fail(err)
	}
	if len(raw) == 0 {
		return fail(fmt.Errorf("%s: %s returned no declaration: call endpoints.DeclareRuntime from init", file, abi.ExportRuntime))
	}
	if err := json.Unmarshal(raw, &rm.decl, json.RejectUnknownMembers(true)); err != nil {
		return fail(fmt.Errorf("%s: runtime declaration: %v (allowed keys: openApi{document, extend}, onValidationError, responseValidation)", file, err))
	}
	switch config.ResponseValidation(rm.decl.ResponseValidation) {
	case "", config.ValidateAlways, config.ValidateInDevelopment, config.ValidateNever:
	default:
		return fail(fmt.Errorf("%s: runtime declaration: /responseValidation: %q is not one of \"always\", \"development\", \"never\"", file, rm.decl.ResponseValidation))
	}
	if o := rm.decl.OpenAPI; o != nil {
		if len(o.Document) > 0 && o.Document[0] != '{' {
			return fail(fmt.Errorf("%s: runtime declaration: /openApi/document: must be a JSON object (an OpenAPI fragment)", file))
		}
		if o.Extend && mod.ExportedFunction(abi.ExportOpenAPIExtend) == nil {
			return fail(fmt.Errorf("%s: the declaration says openApi.extend, but the module does not export %q", file, abi.ExportOpenAPIExtend))
		}
	}
	if rm.decl.OnValidationError && in.OnValidation == nil {
		return fail(fmt.Errorf("%s: the declaration says onValidationError, but the module does not export %q", file, abi.ExportOnValidationError))
	}
	rm.pool.Park(in)
	if !keep && !rm.decl.OnValidationError {
		// Run by the interpreter, or by the compiler's code when the
		// cache holds it, for the document builds alone.
		rm.transient = &runtimeSource{engine: e, wasm: wasm}
		return rm, nil
	}
	e.CompileLater(rm.pool)
	return rm, nil
}

// openPool gives a transient declaration closed by release its pool again:
// one instance, run by the interpreter unless the compilation cache holds
// the compiler's code. Call it with rm.mu held.
func (rm *runtimeModule) openPool(ctx context.Context) error {
	if rm.pool != nil {
		return nil
	}
	file, e := abi.RuntimeModule, rm.transient.engine
	c, err := e.Prepare(ctx, rm.transient.wasm, file, true)
	if err != nil {
		return err
	}
	rm.pool = e.NewPool(c, file, 1, true)
	return nil
}

// release closes a transient declaration's module once a load built its
// document; the next build loads it again (runExtend). A declaration that
// stays loaded is left as it is.
func (rm *runtimeModule) release(ctx context.Context) {
	if rm == nil || rm.transient == nil {
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.pool != nil {
		rm.pool.Retire(ctx)
		rm.pool = nil
	}
}

// livePool is the declaration's pool, nil while a transient one is
// closed.
func (rm *runtimeModule) livePool() *engine.Pool {
	if rm == nil {
		return nil
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	return rm.pool
}

// hasHook reports whether the app declares an onValidationError hook.
func (rm *runtimeModule) hasHook() bool { return rm != nil && rm.decl.OnValidationError }

// documentMaxBytes bounds the document openApi.extend writes back.
const documentMaxBytes = 64 << 20

// runExtend hands doc to the module's openApi.extend and returns the
// document it wrote.
func (rm *runtimeModule) runExtend(ctx context.Context, doc []byte, timeout int64) ([]byte, error) {
	c := &call{parent: ctx, logger: rm.logger, route: &route{file: abi.RuntimeModule}, answerPart: answerPart{status: 200, maxBuffer: documentMaxBytes}}
	c.clock.Bound(time.Unix(0, timeout))
	c.envelope = doc
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.transient != nil {
		if err := rm.openPool(ctx); err != nil {
			return nil, fmt.Errorf("%s: loading it again for openApi.extend: %w", abi.RuntimeModule, err)
		}
	}
	in, err := rm.pool.Get(c)
	if err != nil {
		return nil, fmt.Errorf("%s: openApi.extend: %w", abi.RuntimeModule, err)
	}
	res, err := in.Mod.ExportedFunction(abi.ExportOpenAPIExtend).Call(c)
	rm.pool.Put(ctx, in, err == nil && int32(res[0]) == 0)
	switch {
	case interrupted(err):
		return nil, fmt.Errorf("%s: openApi.extend ran past its deadline and was stopped", abi.RuntimeModule)
	case err != nil:
		return nil, fmt.Errorf("%s: openApi.extend failed: %w", abi.RuntimeModule, err)
	case int32(res[0]) != 0:
		return nil, fmt.Errorf("%s: openApi.extend returned error code %d (see its log lines above)", abi.RuntimeModule, int32(res[0]))
	case c.buf.Len() == 0:
		return nil, fmt.Errorf("%s: openApi.extend wrote no document: it must write the edited document whole", abi.RuntimeModule)
	}
	return append([]byte(nil), c.buf.Bytes()...), nil
}

func (rm *runtimeModule) close(ctx context.Context) {
	if p := rm.livePool(); p != nil {
		p.Close(ctx)
	}
}
