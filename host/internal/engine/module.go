package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// OpenCode makes p's code from wasm, checks its exports, instantiates the
// warm instance, asks it its ABI version and reads its contract: from the
// abi.SectionContract section when it has one (the export, if any, must
// say the same) or from the export. It returns the warm instance, not yet
// parked, and the contract (nil for a plain route). On an error, p has no
// code again and nothing is left open. mayInterpret lets an engine that
// serves while compiling run a module the cache does not hold in the
// interpreter.
func (e *Engine) OpenCode(ctx context.Context, p *Pool, wasm []byte, rf routefile.Route, mayInterpret bool) (_ *Instance, _ []byte, err error) {
	c, err := e.Prepare(ctx, wasm, rf.File, mayInterpret)
	if err != nil {
		return nil, nil, err
	}
	if err := checkExports(c.compiled.ExportedFunctions(), c.compiled.ExportedMemories()); err != nil {
		_ = c.Close(ctx)
		return nil, nil, fmt.Errorf("%s: %w", rf.File, err)
	}
	if !p.setCode(c) {
		_ = c.Close(ctx)
		return nil, nil, errRetired
	}
	var in *Instance
	defer func() {
		if err != nil {
			if in != nil {
				in.Close(ctx)
			}
			p.dropCode(ctx)
		}
	}()
	lc := e.LoadCall(ctx, rf.File)
	if in, err = p.Warm(lc); err != nil {
		return nil, nil, err
	}
	if err := CheckVersion(in, lc, rf.File); err != nil {
		return nil, nil, err
	}
	section, err := ReadSections(wasm, rf.File)
	if err != nil {
		return nil, nil, err
	}
	var b []byte
	if in.Mod.ExportedFunction(abi.ExportContract) != nil {
		if b, err = ExportedBytes(in, lc, rf.File, abi.ExportContract, contractLimit(rf.File)); err != nil {
			return nil, nil, err
		}
	}
	if section != nil {
		if b != nil && !sameJSON(b, section) {
			return nil, nil, fmt.Errorf("%s: its %s section and its %s export disagree: rebuild the module (endpoints build writes the section from the export)", rf.File, abi.SectionContract, abi.ExportContract)
		}
		b = section
	}
	if !isBundle(rf.File) {
		// A bundle's routes are checked one by one, by the host.
		if err := CheckContractSize(b, rf.File); err != nil {
			return nil, nil, err
		}
	}
	return in, b, nil
}

// isBundle reports whether file is a bundle's (abi.BundleDir), whose
// contract is a declaration of routes.
func isBundle(file string) bool { return strings.HasPrefix(file, abi.BundleDir+"/") }

// contractLimit is the most bytes file's contract may have: a bundle's
// declaration holds many routes' contracts.
func contractLimit(file string) int {
	if isBundle(file) {
		return abi.BundleMaxBytes
	}
	return abi.ContractMaxBytes
}

// CheckContractSize refuses a contract of more JSON objects than the host
// accepts.
func CheckContractSize(b []byte, file string) error {
	if n := countObjects(b); n > abi.ContractMaxObjects {
		return fmt.Errorf("%s: its contract holds %d JSON objects (schemas); the host accepts at most %d: share schemas through $defs, or split the route", file, n, abi.ContractMaxObjects)
	}
	return nil
}

// Prepare instruments and compiles the module of file, and says what is
// wrong with it when it cannot. mayInterpret: see OpenCode.
func (e *Engine) Prepare(ctx context.Context, wasm []byte, file string, mayInterpret bool) (*Code, error) {
	// The sections endpoints build adds say what the code says: without
	// them, a module compiles to the same code, and the compilation cache
	// filled while building serves the first start.
	wasm, err := wasmbin.WithoutCustom(wasm, abi.SectionContract, abi.SectionABIVersion)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid WebAssembly module: %w", file, err)
	}
	wasm, stored, err := e.instrument(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid WebAssembly module: %w", file, err)
	}
	defer stored()
	if pages, ok, err := wasmbin.MemoryPages(wasm); err == nil && ok && uint64(pages)*65536 > uint64(e.memoryBytes) {
		return nil, fmt.Errorf("%s: its memory does not fit limits.memoryBytes (%d bytes): it starts at %d pages of 64 KiB (%d bytes); raise limits.memoryBytes in %s", file, e.memoryBytes, pages, uint64(pages)*65536, e.configFile)
	}
	c, err := e.codeFor(ctx, wasm, mayInterpret)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid WebAssembly module: %w", file, err)
	}
	if err := e.checkImports(c.compiled); err != nil {
		_ = c.Close(ctx)
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// checkImports refuses a module that imports what the host does not
// provide, naming the module and the function: wazero's own error
// ("module[env] not instantiated") names neither the function nor what to
// do. AssemblyScript's env.abort is the usual one.
func (e *Engine) checkImports(compiled wazero.CompiledModule) error {
	for _, f := range compiled.ImportedFunctions() {
		module, name, _ := f.Import()
		provided, known := e.hostModules[module]
		if !known {
			hint := ""
			if module == "env" && name == "abort" {
				hint = " (AssemblyScript: pass --use abort= to asc, or an abort function of your own)"
			}
			return fmt.Errorf("imports function %s.%s, but the host provides only the modules %s%s", module, name, e.hostModuleList(), hint)
		}
		def, ok := provided[name]
		if !ok {
			return fmt.Errorf("imports function %s.%s, which the %s module does not have in ABI v%d (abi/README.md §3 lists them)", module, name, module, abi.Version)
		}
		if !SameTypes(f.ParamTypes(), def.ParamTypes()) || !SameTypes(f.ResultTypes(), def.ResultTypes()) {
			return fmt.Errorf("imports function %s.%s with signature %s; the host's is %s", module, name, Signature(f.ParamTypes(), f.ResultTypes()), Signature(def.ParamTypes(), def.ResultTypes()))
		}
	}
	for _, m := range compiled.ImportedMemories() {
		module, name, _ := m.Import()
		return fmt.Errorf("imports memory %s.%s; a module exports its own memory as %q (AssemblyScript: build without --importMemory)", module, name, abi.ExportMemory)
	}
	return nil
}

// hostModuleList names the modules a guest may import from, for errors
// (the interrupt check's module is the instrumentation's, not theirs).
func (e *Engine) hostModuleList() string {
	names := make([]string, 0, len(e.hostModules))
	for n := range e.hostModules {
		if n != interrupt.ImportModule {
			names = append(names, strconv.Quote(n))
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// ReadSections returns the contract a module carries in its
// abi.SectionContract section (nil when it has none), after checking that
// its abi.SectionABIVersion section, if any, names this host's version.
func ReadSections(wasm []byte, file string) ([]byte, error) {
	if v, ok, err := wasmbin.Custom(wasm, abi.SectionABIVersion); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	} else if ok && string(v) != strconv.Itoa(abi.Version) {
		return nil, fmt.Errorf("%s: its %s section says ABI %q, this host speaks ABI v%d: rebuild it with a current SDK", file, abi.SectionABIVersion, v, abi.Version)
	}
	c, ok, err := wasmbin.Custom(wasm, abi.SectionContract)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", file, err)
	case !ok:
		return nil, nil
	case len(c) > contractLimit(file):
		return nil, fmt.Errorf("%s: its %s section holds %d bytes; the host accepts at most %d", file, abi.SectionContract, len(c), contractLimit(file))
	}
	return bytes.Clone(c), nil
}

// sameJSON reports whether a and b are the same JSON value, whatever their
// spacing and member order.
func sameJSON(a, b []byte) bool {
	ca, cb := jsontext.Value(bytes.Clone(a)), jsontext.Value(bytes.Clone(b))
	return ca.Canonicalize() == nil && cb.Canonicalize() == nil && bytes.Equal(ca, cb)
}

// callAtLoad calls an export of a module being loaded, with the load's
// deadline, and says in words why it failed.
func callAtLoad(in *Instance, lc Call, file, export string) (uint64, error) {
	res, err := in.Mod.ExportedFunction(export).Call(lc)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", file, export, GuestFailure(err, lc))
	}
	return res[0], nil
}

// CheckVersion asks a module being loaded which ABI it was built for.
func CheckVersion(in *Instance, lc Call, file string) error {
	v, err := callAtLoad(in, lc, file, abi.ExportABIVersion)
	if err != nil {
		return err
	}
	if v := int32(v); v != abi.Version {
		return fmt.Errorf("%s: built for ABI v%d, this host speaks ABI v%d: rebuild it with a current SDK", file, v, abi.Version)
	}
	return nil
}

// ExportedBytes calls an export returning offset << 32 | length (the
// contract, the runtime declaration) and copies those bytes, at most limit
// of them.
func ExportedBytes(in *Instance, lc Call, file, export string, limit int) ([]byte, error) {
	res, err := callAtLoad(in, lc, file, export)
	if err != nil {
		return nil, err
	}
	off, n := uint32(res>>32), uint32(res)
	if n == 0 {
		return nil, nil
	}
	if int64(n) > int64(limit) {
		return nil, fmt.Errorf("%s: %s returned %d bytes; the host accepts at most %d (%d KiB): split the module, or move shared schemas into fewer, smaller $defs", file, export, n, limit, limit>>10)
	}
	b, ok := in.Mod.Memory().Read(off, n)
	if !ok {
		return nil, fmt.Errorf("%s: %s returned memory [%d, %d) outside the module's memory", file, export, off, uint64(off)+uint64(n))
	}
	return bytes.Clone(b), nil
}

// countObjects counts the JSON objects in a JSON text, without decoding it:
// the '{' outside strings.
func countObjects(b []byte) int {
	n, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && c == '{':
			n++
		}
	}
	return n
}

// GuestFailure phrases a failed guest call for a load error or a log
// line: a stop at the deadline, an exit and a trap read differently. c
// may be nil.
func GuestFailure(err error, c Call) error {
	var exit *sys.ExitError
	switch {
	case interrupted(err) && c != nil && c.Err() != nil && c.Loading():
		// Not the guest's fault: whoever waited for the load gave up.
		return fmt.Errorf("was stopped because its load was canceled (%v): an interrupt (Ctrl-C, SIGTERM) or the caller that waited for it gave up", c.Err())
	case interrupted(err) && c != nil && c.Err() != nil:
		return fmt.Errorf("was stopped because its caller gave up (%v)", c.Err())
	case interrupted(err) && c != nil && isClosed(c.Stopped()):
		return errors.New("was stopped because the host is shutting down")
	case interrupted(err) && c != nil && c.Loading():
		return fmt.Errorf("ran past the %s load deadline (limits.loadTimeout) and was stopped: does it loop forever?", c.LoadTimeout())
	case interrupted(err):
		return errors.New("ran past its deadline and was stopped")
	case errors.As(err, &exit):
		return fmt.Errorf("the guest exited with code %d (a Go panic or fatal error exits with 2; see the guest output in the log)", exit.ExitCode())
	}
	return fmt.Errorf("the guest trapped: %w", err)
}

// startFailure phrases why instantiating a module failed: a WebAssembly
// start section that ran past the load deadline or exited reads like any
// other guest failure; other errors (a data segment that does not fit)
// are wazero's own.
func startFailure(err error, ctx context.Context) error {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("its start section: %w", GuestFailure(err, callFrom(ctx)))
	}
	return err
}

// compile compiles a module, whose SHA-256 is sum. wazero v1.12 can panic
// on some malformed modules instead of returning an error; a bad file must
// fail its own load, never the host.
func (e *Engine) compile(ctx context.Context, r wazero.Runtime, wasm []byte, sum [sha256.Size]byte) (compiled wazero.CompiledModule, err error) {
	mu, _ := e.compiling.LoadOrStore(sum, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	defer func() {
		if v := recover(); v != nil {
			compiled, err = nil, fmt.Errorf("the compiler failed on it: %v", v)
		}
	}()
	compiled, err = r.CompileModule(ctx, wasm)
	if err == nil && r == e.runtime && e.codeCache != nil {
		// Seal what wazero wrote, so the next start trusts it.
		if serr := e.codeCache.Seal(); serr != nil {
			e.logger.Warn("sealing the compilation cache's new entries failed; the next start recompiles them", "error", serr)
		}
	}
	return compiled, err
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
		// A bundle (abi.BundleDir) may have endpoints_handle_route alone.
		{abi.ExportHandle, fns[abi.ExportHandleRoute] == nil, nil, []api.ValueType{api.ValueTypeI32}},
		{abi.ExportContract, false, nil, []api.ValueType{api.ValueTypeI64}},
		{abi.ExportOnValidationError, false, nil, []api.ValueType{api.ValueTypeI32}},
		{abi.ExportHandleRoute, false, []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}},
		{abi.ExportOnValidationErrorRoute, false, []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}},
	}
	for _, w := range want {
		fn, ok := fns[w.name]
		if !ok {
			if w.required {
				return fmt.Errorf("not an Endpoints route module: missing export %q (ABI v%d); build it with an Endpoints SDK", w.name, abi.Version)
			}
			continue
		}
		if !SameTypes(fn.ParamTypes(), w.params) || !SameTypes(fn.ResultTypes(), w.results) {
			return fmt.Errorf("export %q has signature %s, ABI v%d wants %s", w.name, Signature(fn.ParamTypes(), fn.ResultTypes()), abi.Version, Signature(w.params, w.results))
		}
	}
	if _, ok := mems[abi.ExportMemory]; !ok {
		return fmt.Errorf("not an Endpoints route module: missing exported memory %q", abi.ExportMemory)
	}
	return nil
}

// SameTypes reports whether two lists of value types are the same.
func SameTypes(a, b []api.ValueType) bool {
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

// Signature writes a function type as errors show it: "(i32, i32) -> (i64)".
func Signature(params, results []api.ValueType) string {
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

// isClosed reports whether c is closed; a nil channel never is.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// dbImportPrefix begins the name of every database function of the host
// (abi.ImportDBQuery, abi.ImportDBBegin...).
const dbImportPrefix = "db_"

// UsesDatabase reports whether the module wasm can use a database: it
// imports one of the host's db_ functions. One that imports none cannot,
// so the host never answers 503 for a database on its behalf.
func UsesDatabase(wasm []byte) bool {
	ok, err := wasmbin.ImportsFunction(wasm, abi.ImportModule, dbImportPrefix)
	return ok && err == nil
}
