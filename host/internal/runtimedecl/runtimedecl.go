// Package runtimedecl loads the app's runtime declaration
// (abi.RuntimeModule, abi/README.md §6): its module checked and its
// declaration decoded strictly ([Load]), the pool of instances that runs
// openApi.extend ([Module.Extend]) and the app-wide onValidationError hook
// ([Module.HookPool]), and the module closed between document builds when
// nothing else needs it ([Module.Release]).
//
// The call that carries a document to openApi.extend and back, and the
// hook's call, are the host's (host/runtime.go, host/hook.go).
package runtimedecl

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// Module is the app's runtime declaration loaded: its settings, and the
// pool of instances that run openApi.extend and the app-wide
// onValidationError hook. A nil *Module is an app without one: its
// methods then do nothing and report nothing.
//
// A declaration without the hook runs only while a document is built. In
// production its module is then closed (Release) and loaded again from its
// bytes for the next build (a reload's): a Go runtime declaration holds
// about 28 MiB (its machine code, decoded module and instance), which a
// server at rest has no use for. Development keeps it, as reloads there
// rebuild the document every few seconds.
type Module struct {
	decl abi.Runtime
	// mu guards pool, which is nil while a transient declaration is
	// closed.
	mu   sync.Mutex
	pool *engine.Pool
	// transient holds what reopens a declaration closed between document
	// builds; nil when the module stays loaded.
	transient *source
}

// source is what loads a transient runtime declaration again.
type source struct {
	engine *engine.Engine
	wasm   []byte
}

// Load loads server/endpoints/runtime.wasm (wasm) with a pool of poolSize
// instances. Errors name the file and what is wrong. keep: the module
// stays loaded even without a hook (development); otherwise such a module
// is closed by Release once the document is built.
func Load(ctx context.Context, e *engine.Engine, wasm []byte, poolSize int, keep bool) (*Module, error) {
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
	rm := &Module{pool: e.NewPool(c, file, poolSize, true)}
	in, err := rm.pool.Warm(lc)
	if err != nil {
		_ = c.Close(ctx)
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	mod := in.Mod
	fail := func(err error) (*Module, error) {
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
	exports := func(name string) bool {
		if name == abi.ExportOnValidationError {
			return in.OnValidation != nil
		}
		return mod.ExportedFunction(name) != nil
	}
	if rm.decl, err = decode(raw, exports); err != nil {
		return fail(err)
	}
	rm.pool.Park(in)
	if !keep && !rm.decl.OnValidationError {
		// Run by the interpreter, or by the compiler's code when the
		// cache holds it, for the document builds alone.
		rm.transient = &source{engine: e, wasm: wasm}
		return rm, nil
	}
	e.CompileLater(rm.pool)
	return rm, nil
}

// decode decodes the declaration raw the module's abi.ExportRuntime
// returned, strictly, and checks it against what the module exports
// (exports reports whether it exports a function of that name).
func decode(raw []byte, exports func(name string) bool) (abi.Runtime, error) {
	file := abi.RuntimeModule
	var decl abi.Runtime
	if len(raw) == 0 {
		return decl, fmt.Errorf("%s: %s returned no declaration: call endpoints.DeclareRuntime from init", file, abi.ExportRuntime)
	}
	if err := json.Unmarshal(raw, &decl, json.RejectUnknownMembers(true)); err != nil {
		return decl, fmt.Errorf("%s: runtime declaration: %v (allowed keys: openApi{document, extend}, onValidationError, responseValidation)", file, err)
	}
	switch config.ResponseValidation(decl.ResponseValidation) {
	case "", config.ValidateAlways, config.ValidateInDevelopment, config.ValidateNever:
	default:
		return decl, fmt.Errorf("%s: runtime declaration: /responseValidation: %q is not one of \"always\", \"development\", \"never\"", file, decl.ResponseValidation)
	}
	if o := decl.OpenAPI; o != nil {
		if len(o.Document) > 0 && o.Document[0] != '{' {
			return decl, fmt.Errorf("%s: runtime declaration: /openApi/document: must be a JSON object (an OpenAPI fragment)", file)
		}
		if o.Extend && !exports(abi.ExportOpenAPIExtend) {
			return decl, fmt.Errorf("%s: the declaration says openApi.extend, but the module does not export %q", file, abi.ExportOpenAPIExtend)
		}
	}
	if decl.OnValidationError && !exports(abi.ExportOnValidationError) {
		return decl, fmt.Errorf("%s: the declaration says onValidationError, but the module does not export %q", file, abi.ExportOnValidationError)
	}
	return decl, nil
}

// Declaration is what the module declares; the zero abi.Runtime for a nil
// Module.
func (rm *Module) Declaration() abi.Runtime {
	if rm == nil {
		return abi.Runtime{}
	}
	return rm.decl
}

// HasHook reports whether the app declares an onValidationError hook.
func (rm *Module) HasHook() bool { return rm != nil && rm.decl.OnValidationError }

// HookPool is the pool the app's onValidationError hook runs in, nil
// without a hook. A declaration with the hook stays loaded: its pool is
// the one Load made, until Close.
func (rm *Module) HookPool() *engine.Pool {
	if !rm.HasHook() {
		return nil
	}
	return rm.pool
}

// openPool gives a transient declaration closed by Release its pool again:
// one instance, run by the interpreter unless the compilation cache holds
// the compiler's code. Call it with rm.mu held.
func (rm *Module) openPool(ctx context.Context) error {
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

// Release closes a transient declaration's module once a load built its
// document; the next build loads it again (Extend). A declaration that
// stays loaded is left as it is.
func (rm *Module) Release(ctx context.Context) {
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

// LivePool is the declaration's pool, nil while a transient one is
// closed.
func (rm *Module) LivePool() *engine.Pool {
	if rm == nil {
		return nil
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	return rm.pool
}

// Extend runs the module's openApi.extend export in one of its instances
// (loading a transient declaration again first, under ctx) for the call
// c: the host's call, which hands the export the document and collects the
// one it writes back. Errors name the file and say what failed: a load, no free
// instance, the deadline, a trap, or the error code the export returned.
func (rm *Module) Extend(ctx, c context.Context) error {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.transient != nil {
		if err := rm.openPool(ctx); err != nil {
			return fmt.Errorf("%s: loading it again for openApi.extend: %w", abi.RuntimeModule, err)
		}
	}
	in, err := rm.pool.Get(c)
	if err != nil {
		return fmt.Errorf("%s: openApi.extend: %w", abi.RuntimeModule, err)
	}
	res, err := in.Mod.ExportedFunction(abi.ExportOpenAPIExtend).Call(c)
	rm.pool.Put(ctx, in, err == nil && int32(res[0]) == 0)
	switch {
	case errors.Is(err, interrupt.ErrInterrupted):
		return fmt.Errorf("%s: openApi.extend ran past its deadline and was stopped", abi.RuntimeModule)
	case err != nil:
		return fmt.Errorf("%s: openApi.extend failed: %w", abi.RuntimeModule, err)
	case int32(res[0]) != 0:
		return fmt.Errorf("%s: openApi.extend returned error code %d (see its log lines above)", abi.RuntimeModule, int32(res[0]))
	}
	return nil
}

// Close closes the declaration's pool, if loaded.
func (rm *Module) Close(ctx context.Context) {
	if p := rm.LivePool(); p != nil {
		p.Close(ctx)
	}
}
