package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// engine is the wazero runtime every module of a host shares, with the
// host functions instantiated once.
type engine struct {
	runtime wazero.Runtime
	// interp runs modules the compiler has not compiled yet, when the
	// host serves while compiling (Options.ServeWhileCompiling); nil
	// otherwise.
	interp wazero.Runtime
	// background counts the compilations compileLater runs;
	// compileSlots bounds them, and stopBackground, closed at shutdown,
	// stops those not started.
	background pending
	queueMu    sync.Mutex
	queue      []*pool // waiting for startCompiles
	// deferredFailed: the deferred loads that failed (deferModule),
	// guarded by queueMu.
	deferredFailed []error
	compileSlots   chan struct{}
	progress       func(Progress) // Options.Progress
	stopBackground chan struct{}
	// hold, from a test's context (testhook.WithHold), keeps background
	// work from starting until closed; nil otherwise.
	hold        <-chan struct{}
	stopOnce    sync.Once
	cache       wazero.CompilationCache
	cacheDir    string // where compiled and instrumented modules are kept; "" for none
	logger      *slog.Logger
	memoryBytes int64 // the cap of each instance's memory
	loadTimeout time.Duration
	// mapped: instances' memories are mapped outside the Go heap and
	// unmapped when they close (internal/linearmem); see memory.go.
	mapped bool
	life   lifecycle
	// compiling serialises the compilations of identical bytes (by
	// SHA-256): wazero shares one compiled module among them, and two
	// compiled at once were seen to leave an instance whose code was gone
	// (a panic in NewFunction, once in a few hundred runs of the suite).
	// The second waits and finds the first's in memory.
	compiling sync.Map // [sha256.Size]byte → *sync.Mutex
	// hostModules are the functions of the modules the host provides,
	// by module name: what a module may import.
	hostModules map[string]map[string]api.FunctionDefinition
	// observer is the host's (Options.Observer), for the pools' events;
	// nil when none.
	observer *Observer
}

func newEngine(ctx context.Context, opts *Options, logger *slog.Logger) (*engine, error) {
	cfg := wazero.NewRuntimeConfigCompiler().
		WithMemoryLimitPages(uint32(opts.Limits.memoryBytes() / 65536)).
		WithCloseOnContextDone(false)
	e := &engine{logger: logger, memoryBytes: opts.Limits.memoryBytes() / 65536 * 65536, loadTimeout: opts.Limits.loadTimeout(), mapped: mappedMemory, observer: opts.Observer}
	if dir := opts.cacheDir(); dir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			logger.Warn("compilation cache unavailable; modules compile from scratch at every start", "dir", dir, "error", err)
		} else {
			e.cache, e.cacheDir = cache, dir
			cfg = cfg.WithCompilationCache(cache)
		}
	}
	e.runtime = wazero.NewRuntimeWithConfig(ctx, cfg)
	e.compileSlots = make(chan struct{}, runtime.GOMAXPROCS(0))
	e.progress = opts.Progress
	e.stopBackground = make(chan struct{})
	e.hold = testhook.Hold(ctx)
	runtimes := []wazero.Runtime{e.runtime}
	if opts.ServeWhileCompiling {
		e.interp = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().
			WithMemoryLimitPages(uint32(opts.Limits.memoryBytes()/65536)).
			WithCloseOnContextDone(false))
		runtimes = append(runtimes, e.interp)
	}
	for _, r := range runtimes {
		if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
			return nil, fmt.Errorf("instantiating WASI: %w", err)
		}
		if err := instantiateHostFunctions(ctx, r); err != nil {
			return nil, err
		}
		if err := interrupt.NewHostModule(ctx, r, interrupt.DefaultPeriod); err != nil {
			return nil, err
		}
	}
	e.hostModules = map[string]map[string]api.FunctionDefinition{}
	for _, name := range []string{wasi_snapshot_preview1.ModuleName, abi.ImportModule, interrupt.ImportModule} {
		if m := e.runtime.Module(name); m != nil {
			e.hostModules[name] = m.ExportedFunctionDefinitions()
		}
	}
	return e, nil
}

// errGuestMemory is the trap raised when a guest passes memory it does not
// own to a host function.
type errGuestMemory struct {
	fn         string
	off, count uint32
}

func (e errGuestMemory) Error() string {
	return fmt.Sprintf("%s: guest passed memory [%d, %d) outside its linear memory", e.fn, e.off, uint64(e.off)+uint64(e.count))
}

func read(mod api.Module, fn string, off, n uint32) []byte {
	b, ok := mod.Memory().Read(off, n)
	if !ok {
		panic(errGuestMemory{fn, off, n})
	}
	return b
}

// deliver implements the buffer convention: write data when it fits and
// return its size either way.
func deliver(mod api.Module, fn string, data []byte, buf, bufLen uint32) uint64 {
	if uint32(len(data)) <= bufLen {
		if !mod.Memory().Write(buf, data) {
			panic(errGuestMemory{fn, buf, uint32(len(data))})
		}
	} else if _, ok := mod.Memory().Read(buf, bufLen); !ok {
		panic(errGuestMemory{fn, buf, bufLen})
	}
	return uint64(uint32(int32(len(data))))
}

func errno(e abi.Errno) uint64 { return uint64(uint32(int32(e))) }

var i32 = api.ValueTypeI32

// hostFunction is one function of the "endpoints" module (abi/README.md
// §3): its name, signature, parameter names (for wazero's stack traces and
// debuggers) and implementation.
type hostFunction struct {
	name            string
	params, results []api.ValueType
	paramNames      []string
	fn              api.GoModuleFunc
}

// hostFunctions are the functions a guest may import from "endpoints".
var hostFunctions = []hostFunction{
	{abi.ImportRequestRead, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostRequestRead},
	{abi.ImportRequestValue, []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"part", "name", "name_len", "buf", "buf_len"}, hostRequestValue},
	{abi.ImportRequestHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "buf", "buf_len"}, hostRequestHeader},
	{abi.ImportBodyRead, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostBodyRead},
	{abi.ImportFileRead, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, []string{"index", "buf", "buf_len"}, hostFileRead},
	{abi.ImportKVGet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"key", "key_len", "buf", "buf_len"}, hostKVGet},
	{abi.ImportKVSet, []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"key", "key_len", "value", "value_len", "ttl_seconds"}, hostKVSet},
	{abi.ImportKVDelete, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"key", "key_len"}, hostKVDelete},
	{abi.ImportKVIncr, []api.ValueType{i32, i32, api.ValueTypeI64, i32}, []api.ValueType{i32}, []string{"key", "key_len", "delta", "out"}, hostKVIncr},
	{abi.ImportKVList, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32}, []string{"prefix", "prefix_len", "after", "after_len", "buf", "buf_len"}, hostKVList},
	{abi.ImportResponseSetStatus, []api.ValueType{i32}, []api.ValueType{i32}, []string{"status"}, hostResponseSetStatus},
	{abi.ImportResponseSetHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, responseHeader(abi.ImportResponseSetHeader, false)},
	{abi.ImportResponseAddHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, responseHeader(abi.ImportResponseAddHeader, true)},
	{abi.ImportResponseWrite, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"buf", "buf_len"}, hostResponseWrite},
	{abi.ImportRequestSetHeader, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, hostRequestSetHeader},
	{abi.ImportContextSet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, []string{"name", "name_len", "value", "value_len"}, hostContextSet},
	{abi.ImportPrincipalSet, []api.ValueType{i32, i32}, []api.ValueType{i32}, []string{"json", "json_len"}, hostPrincipalSet},
	{abi.ImportLog, []api.ValueType{i32, i32, i32}, nil, []string{"level", "msg", "msg_len"}, hostLog},
}

// instantiateHostFunctions registers hostFunctions in r as the module
// "endpoints"; each counts against the call's deadline (withinDeadline).
func instantiateHostFunctions(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder(abi.ImportModule)
	for _, f := range hostFunctions {
		b.NewFunctionBuilder().WithGoModuleFunction(withinDeadline(f.fn), f.params, f.results).WithParameterNames(f.paramNames...).Export(f.name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// hostRequestRead implements request_read (abi/README.md §3).
func hostRequestRead(ctx context.Context, mod api.Module, stack []uint64) {
	c := callFrom(ctx)
	if c == nil || c.loading {
		read(mod, abi.ImportRequestRead, uint32(stack[0]), uint32(stack[1]))
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = deliver(mod, abi.ImportRequestRead, c.envelopeJSON(), uint32(stack[0]), uint32(stack[1]))
}

// hostRequestValue implements request_value (abi/README.md §3).
func hostRequestValue(ctx context.Context, mod api.Module, stack []uint64) {
	part, name := abi.Part(int32(stack[0])), string(read(mod, abi.ImportRequestValue, uint32(stack[1]), uint32(stack[2])))
	buf, bufLen := uint32(stack[3]), uint32(stack[4])
	c := callFrom(ctx)
	if c == nil || c.loading {
		stack[0] = errno(abi.ErrState)
		return
	}
	v, e := c.value(part, name)
	if e != 0 {
		read(mod, abi.ImportRequestValue, buf, bufLen)
		stack[0] = errno(e)
		return
	}
	stack[0] = deliver(mod, abi.ImportRequestValue, v, buf, bufLen)
}

// hostRequestHeader implements request_header (abi/README.md §3).
func hostRequestHeader(ctx context.Context, mod api.Module, stack []uint64) {
	name := string(read(mod, abi.ImportRequestHeader, uint32(stack[0]), uint32(stack[1])))
	buf, bufLen := uint32(stack[2]), uint32(stack[3])
	c := callFrom(ctx)
	if c == nil || c.loading {
		stack[0] = errno(abi.ErrState)
		return
	}
	vals := requestHeaderValues(c.req, name)
	if len(vals) == 0 {
		read(mod, abi.ImportRequestHeader, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
		return
	}
	joined := vals[0]
	if len(vals) > 1 {
		joined = strings.Join(vals, ", ")
	}
	stack[0] = deliver(mod, abi.ImportRequestHeader, []byte(joined), buf, bufLen)
}

// hostBodyRead implements body_read (abi/README.md §3).
func hostBodyRead(ctx context.Context, mod api.Module, stack []uint64) {
	buf, bufLen := uint32(stack[0]), uint32(stack[1])
	dst := read(mod, abi.ImportBodyRead, buf, bufLen)
	c := callFrom(ctx)
	if c == nil || c.loading || c.mw != nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	n, e := c.readBody(dst)
	if e != 0 {
		stack[0] = errno(e)
		return
	}
	stack[0] = uint64(uint32(n))
}

// hostFileRead implements file_read (abi/README.md §3).
func hostFileRead(ctx context.Context, mod api.Module, stack []uint64) {
	index, buf, bufLen := int32(stack[0]), uint32(stack[1]), uint32(stack[2])
	dst := read(mod, abi.ImportFileRead, buf, bufLen)
	c := callFrom(ctx)
	if c == nil || c.loading || c.mw != nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	n, e := c.readFile(index, dst)
	if e != 0 {
		stack[0] = errno(e)
		return
	}
	stack[0] = uint64(uint32(n))
}

// hostKVGet implements kv_get (abi/README.md §3).
func hostKVGet(ctx context.Context, mod api.Module, stack []uint64) {
	key := string(read(mod, abi.ImportKVGet, uint32(stack[0]), uint32(stack[1])))
	buf, bufLen := uint32(stack[2]), uint32(stack[3])
	c := kvCall(ctx)
	if c == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	stored := c.startSpan(StepStore, "get")
	v, ok, err := c.host.store.Get(c, c.host.namespace, key)
	endSpan(stored, err)
	switch {
	case err != nil:
		stack[0] = errno(kvError(c, "get", err))
	case !ok:
		read(mod, abi.ImportKVGet, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
	default:
		stack[0] = deliver(mod, abi.ImportKVGet, v, buf, bufLen)
	}
}

// hostKVSet implements kv_set (abi/README.md §3).
func hostKVSet(ctx context.Context, mod api.Module, stack []uint64) {
	key := read(mod, abi.ImportKVSet, uint32(stack[0]), uint32(stack[1]))
	value := read(mod, abi.ImportKVSet, uint32(stack[2]), uint32(stack[3]))
	ttl := int32(stack[4])
	c := kvCall(ctx)
	switch {
	case c == nil:
		stack[0] = errno(abi.ErrState)
	case len(key) == 0 || len(key) > abi.KVMaxKey || len(value) > abi.KVMaxValue || ttl < 0:
		stack[0] = errno(abi.ErrInvalid)
	default:
		stored := c.startSpan(StepStore, "set")
		err := c.host.store.Set(c, c.host.namespace, string(key), value, time.Duration(ttl)*time.Second)
		endSpan(stored, err)
		if err != nil {
			stack[0] = errno(kvError(c, "set", err))
			return
		}
		stack[0] = 0
	}
}

// hostKVDelete implements kv_delete (abi/README.md §3).
func hostKVDelete(ctx context.Context, mod api.Module, stack []uint64) {
	key := string(read(mod, abi.ImportKVDelete, uint32(stack[0]), uint32(stack[1])))
	c := kvCall(ctx)
	if c == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	stored := c.startSpan(StepStore, "delete")
	existed, err := c.host.store.Delete(c, c.host.namespace, key)
	endSpan(stored, err)
	switch {
	case err != nil:
		stack[0] = errno(kvError(c, "delete", err))
	case !existed:
		stack[0] = errno(abi.ErrNotFound)
	default:
		stack[0] = 0
	}
}

// hostKVIncr implements kv_incr (abi/README.md §3).
func hostKVIncr(ctx context.Context, mod api.Module, stack []uint64) {
	key := read(mod, abi.ImportKVIncr, uint32(stack[0]), uint32(stack[1]))
	delta, out := int64(stack[2]), uint32(stack[3])
	read(mod, abi.ImportKVIncr, out, 8)
	c := kvCall(ctx)
	switch {
	case c == nil:
		stack[0] = errno(abi.ErrState)
	case len(key) == 0 || len(key) > abi.KVMaxKey:
		stack[0] = errno(abi.ErrInvalid)
	default:
		stored := c.startSpan(StepStore, "incr")
		n, err := c.host.store.Incr(c, c.host.namespace, string(key), delta)
		endSpan(stored, err)
		if err != nil {
			stack[0] = errno(kvError(c, "incr", err))
			return
		}
		mod.Memory().WriteUint64Le(out, uint64(n))
		stack[0] = 0
	}
}

// hostKVList implements kv_list (abi/README.md §3).
func hostKVList(ctx context.Context, mod api.Module, stack []uint64) {
	prefix := string(read(mod, abi.ImportKVList, uint32(stack[0]), uint32(stack[1])))
	after := string(read(mod, abi.ImportKVList, uint32(stack[2]), uint32(stack[3])))
	buf, bufLen := uint32(stack[4]), uint32(stack[5])
	c := kvCall(ctx)
	if c == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	stored := c.startSpan(StepStore, "list")
	keys, err := c.host.store.List(c, c.host.namespace, prefix, after, abi.KVListLimit)
	endSpan(stored, err)
	if err != nil {
		stack[0] = errno(kvError(c, "list", err))
		return
	}
	b := c.scratch[:0]
	b = append(b, '[')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = jsontext.AppendQuote(b, k)
	}
	b = append(b, ']')
	c.scratch = b
	stack[0] = deliver(mod, abi.ImportKVList, b, buf, bufLen)
}

// hostResponseSetStatus implements response_set_status (abi/README.md §3).
func hostResponseSetStatus(ctx context.Context, mod api.Module, stack []uint64) {
	status := int32(stack[0])
	c := callFrom(ctx)
	switch {
	case c == nil || c.loading:
		stack[0] = errno(abi.ErrState)
	case c.phase == abi.PhaseAfter || c.phase == abi.PhaseVerify:
		stack[0] = errno(abi.ErrState) // the status is the handler's
	case status < 100 || status > 599:
		stack[0] = errno(abi.ErrInvalid)
	case c.wroteHeader:
		stack[0] = errno(abi.ErrHeadersSent)
	default:
		c.status = int(status)
		stack[0] = 0
	}
}

// hostResponseWrite implements response_write (abi/README.md §3).
func hostResponseWrite(ctx context.Context, mod api.Module, stack []uint64) {
	data := read(mod, abi.ImportResponseWrite, uint32(stack[0]), uint32(stack[1]))
	c := callFrom(ctx)
	if c == nil || c.loading || c.phase == abi.PhaseAfter || c.phase == abi.PhaseVerify {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(c.write(data))
}

// hostRequestSetHeader implements request_set_header (abi/README.md §3).
func hostRequestSetHeader(ctx context.Context, mod api.Module, stack []uint64) {
	name := read(mod, abi.ImportRequestSetHeader, uint32(stack[0]), uint32(stack[1]))
	value := read(mod, abi.ImportRequestSetHeader, uint32(stack[2]), uint32(stack[3]))
	c := callFrom(ctx)
	if c == nil || c.phase != abi.PhaseBefore {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(c.setRequestHeader(name, value))
}

// hostContextSet implements context_set (abi/README.md §3).
func hostContextSet(ctx context.Context, mod api.Module, stack []uint64) {
	name := read(mod, abi.ImportContextSet, uint32(stack[0]), uint32(stack[1]))
	value := read(mod, abi.ImportContextSet, uint32(stack[2]), uint32(stack[3]))
	c := callFrom(ctx)
	if c == nil || (c.phase != abi.PhaseBefore && c.phase != abi.PhaseVerify) {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(c.setContext(name, value))
}

// hostPrincipalSet implements principal_set (abi/README.md §3).
func hostPrincipalSet(ctx context.Context, mod api.Module, stack []uint64) {
	b := read(mod, abi.ImportPrincipalSet, uint32(stack[0]), uint32(stack[1]))
	c := callFrom(ctx)
	if c == nil || c.phase != abi.PhaseVerify {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(c.setPrincipal(b))
}

// hostLog implements log (abi/README.md §3).
func hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	msg := read(mod, abi.ImportLog, uint32(stack[1]), uint32(stack[2]))
	if c := callFrom(ctx); c != nil {
		c.log(abi.LogLevel(int32(stack[0])), msg)
	}
}

// kvCall is the call a kv_* function serves, or nil outside a request
// (the store is the app's, in its namespace).
func kvCall(ctx context.Context) *call {
	c := callFrom(ctx)
	if c == nil || c.loading || c.host == nil {
		return nil
	}
	return c
}

// responseHeader implements response_set_header (add false) and
// response_add_header (add true), named fname in errors.
func responseHeader(fname string, add bool) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		name := read(mod, fname, uint32(stack[0]), uint32(stack[1]))
		value := read(mod, fname, uint32(stack[2]), uint32(stack[3]))
		c := callFrom(ctx)
		switch {
		case c == nil || c.loading || c.phase == abi.PhaseVerify:
			stack[0] = errno(abi.ErrState)
		case len(name)+len(value) > abi.ResponseHeaderMaxBytes || !validHeader(string(name), string(value)):
			stack[0] = errno(abi.ErrInvalid)
		case c.wroteHeader:
			stack[0] = errno(abi.ErrHeadersSent)
		default:
			stack[0] = errno(c.setHeader(string(name), string(value), add))
		}
	}
}

// Middleware (abi request_set_header, context_set, principal_set).

var forbidden = func() map[string]bool {
	m := map[string]bool{}
	for _, h := range abi.ForbiddenResponseHeaders {
		m[h] = true
	}
	return m
}()

// validHeader accepts a header name that is an RFC 9110 token and not owned
// by the host, and a value without CR, LF or NUL.
func validHeader(name, value string) bool {
	if name == "" || forbidden[http.CanonicalHeaderKey(name)] {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return false
		}
	}
	for i := 0; i < len(value); i++ {
		if b := value[i]; b == '\r' || b == '\n' || b == 0 {
			return false
		}
	}
	return true
}

func isTokenChar(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// moduleConfig is the sandbox of every instance: no filesystem, network,
// arguments or environment; real clocks; crypto/rand; output to the log;
// sleeps that end at the call's deadline (see [guestSys]).
func (e *engine) moduleConfig(g *guestSys) wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(). // _initialize is called by pool.instantiate
		WithSysWalltime().WithSysNanotime().
		WithNanosleep(g.sleep).
		WithRandSource(guestRand{g}).
		WithStdout(g).WithStderr(g)
}

// withinDeadline makes the time a host function takes count against the
// call's deadline: a guest whose host calls (a slow write, a large log
// line, a million header calls) carry it past the deadline, or whose
// client left, is stopped when the function returns, as the interrupt
// check stops guest code.
func withinDeadline(fn api.GoModuleFunc) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		fn(ctx, mod, stack)
		if c, ok := ctx.(*call); ok && c.Expired() {
			panic(interrupt.ErrInterrupted)
		}
	}
}

// guestSys is what the WASI functions of one instance see of the call it
// serves. wazero's own sleep (poll_oneoff with a clock subscription, Go's
// time.Sleep, C's nanosleep) sleeps the whole duration; this one wakes at
// the call's deadline, when the client leaves or when the host stops the
// call, and then stops the guest. What the guest writes to stdout and
// stderr becomes the call's log lines, cut and budgeted like those of the
// log function, and counts against the deadline too.
//
// It belongs to one instance, and so to one goroutine at a time: the pool
// sets the call before each call (and during instantiation, for the start
// function) and clears it after.
type guestSys struct {
	c      *call
	logger *slog.Logger
	file   string
}

func (g *guestSys) sleep(ns int64) {
	c := g.c
	if c == nil || ns <= 0 {
		return
	}
	d := time.Duration(ns)
	if left := time.Until(time.Unix(0, c.deadline)); d > left {
		d = max(left, 0)
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-c.Done():
		t.Stop()
	case <-c.stopped():
		t.Stop()
	}
	if c.Expired() {
		panic(interrupt.ErrInterrupted)
	}
}

// guestRand is the randomness of WASI's random_get: crypto/rand, and the
// time it takes counts against the call's deadline like any host call (a
// guest asking for 64 MiB in a loop is stopped at its deadline).
type guestRand struct{ g *guestSys }

func (r guestRand) Read(p []byte) (int, error) {
	n, err := rand.Read(p)
	if c := r.g.c; c != nil && c.Expired() {
		panic(interrupt.ErrInterrupted)
	}
	return n, err
}

// Write logs what the guest writes to stdout or stderr, a log line per
// line.
func (g *guestSys) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		line := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line, p = p[:i], p[i+1:]
		} else {
			p = nil
		}
		if len(line) == 0 {
			continue
		}
		if g.c != nil {
			g.c.log(abi.LogInfo, line, "stream", "guest output")
			g.c.keepOutput(logLine(line))
		} else {
			g.logger.Info(logLine(line), "route", g.file, "stream", "guest output")
		}
	}
	if g.c != nil && g.c.Expired() {
		panic(interrupt.ErrInterrupted)
	}
	return n, nil
}

// logLine turns a guest's log line into valid UTF-8 of at most
// abi.LogMaxLine bytes, saying so when it cut it.
func logLine(msg []byte) string {
	if len(msg) <= abi.LogMaxLine {
		if utf8.Valid(msg) {
			return string(msg)
		}
		return strings.ToValidUTF8(string(msg), "\uFFFD")
	}
	cut := strings.ToValidUTF8(string(msg[:abi.LogMaxLine]), "\uFFFD")
	return fmt.Sprintf("%s… [truncated: the line has %d bytes; log lines keep %d]", cut, len(msg), abi.LogMaxLine)
}

var _ io.Writer = (*guestSys)(nil)
