// Package engine turns route modules' bytes into running instances: the
// wazero runtime and its sandbox (no filesystem, network or environment;
// crypto/rand, real clocks, stdout and stderr to the log), the
// compilation cache, the rewriting of modules for deadlines
// (internal/interrupt), the compile tiers (the interpreter first, the
// compiler in the background, then a swap), the deferred loading of code,
// and the bounded pool of instances of each module.
//
// What the host asks of it:
//
//	e, err := engine.New(ctx, cfg)             // runtimes, cache, host functions
//	c, err := e.Prepare(ctx, wasm, file, true) // instrument, compile, check imports
//	p := e.NewPool(c, file, size, false)       // or OpenCode, DeferPool
//	in, err := p.Get(call)                     // an idle instance, or a new one
//	res, err := in.Handle.Call(call)
//	p.Put(ctx, in, healthy)                    // a failed instance is closed
//	e.StartCompiles()                          // the compiler's tier, in the background
//	err = e.WaitCompiled(ctx)
//	err = e.Close(ctx)
//
// What it needs of the pipeline is the [Call] that runs the guest: the
// host's call implements it and is the context handed to wazero.
//
// # Notes
//
//   - This package never imports package host: the host depends on it, not
//     the reverse.
//   - An instance has one owner at a time (see [Instance]); its memory is
//     unmapped when it closes.
package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/host/internal/codecache"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// Config is what the host decides of its engine, read once by [New].
type Config struct {
	// MemoryBytes caps the linear memory of each instance, in bytes; it
	// is rounded down to whole 64 KiB pages.
	MemoryBytes int64
	// RecycleMemoryBytes is the linear memory past which an instance is
	// closed when its call ends rather than kept (see Pool.Put); 0, or
	// MemoryBytes and more, for never.
	RecycleMemoryBytes int64
	// CacheDir is where compiled and instrumented modules are kept; ""
	// for none. Its entries are authenticated (package codecache): it
	// must belong to this user and be writable by no one else, or it is
	// not used (a warning says why).
	CacheDir string
	// CacheKeyFile holds the key that authenticates CacheDir's entries,
	// made when missing; it must be outside CacheDir. Without it the
	// cache is not used.
	CacheKeyFile string
	// ConfigFile names the file where MemoryBytes is set, for errors.
	ConfigFile string
	// ServeWhileCompiling adds the interpreter: modules the cache does
	// not hold run in it while the compiler works in the background.
	ServeWhileCompiling bool
	// MapMemory maps instances' memories outside the Go heap
	// (internal/linearmem); off keeps them in Go slices, wazero's
	// default.
	MapMemory bool
	// Logger receives the engine's warnings and what guests write outside
	// a call.
	Logger *slog.Logger
	// LoadCall makes the call that runs a module's code at load: its
	// start function, endpoints_abi_version and the contract or
	// declaration export, together bounded by limits.loadTimeout.
	LoadCall func(ctx context.Context, file string) Call
	// Progress, when set, is told of each background compilation or
	// deferred load that ends (stage StageCompile or StageCode), with the
	// number done and the total of the batch.
	Progress func(stage, file string, done, total int, took time.Duration, err error)
	// PoolWait, when set, is told of each get that waited for a free
	// instance: how long, and whether it got one.
	PoolWait func(module, route string, waited time.Duration, acquired bool)
	// InstanceDiscarded, when set, is told of each instance closed after
	// a failed call.
	InstanceDiscarded func(module, route string)
	// InstanceMade, when set, is told of each instance a call made
	// because none was idle (or, through a Lane, because the lane's last
	// call failed); not of the warm instance a load makes.
	InstanceMade func(module, route string)
	// InstanceRecycled, when set, is told of each instance closed after a
	// call of route because its memory passed RecycleMemoryBytes, with
	// that memory.
	InstanceRecycled func(module, route string, memoryBytes int64)
}

// Stages a [Config.Progress] reports: the values of host.StageCompile and
// host.StageCode.
const (
	// StageCompile: the compiler's code of a module that ran interpreted
	// is ready.
	StageCompile = "compile"
	// StageCode: a deferred module's code loaded, or failed to.
	StageCode = "code"
)

// Engine is the wazero runtime every module of a host shares, with the
// host functions instantiated once.
type Engine struct {
	runtime wazero.Runtime
	// interp runs modules the compiler has not compiled yet, when the
	// host serves while compiling (Config.ServeWhileCompiling); nil
	// otherwise.
	interp wazero.Runtime
	// interpreted counts the interpreter's open code and instances.
	interpreted interpreterUse
	// background counts the compilations CompileLater queues;
	// compileSlots bounds them, and stopBackground, closed at shutdown,
	// stops those not started.
	background pending
	// compilers counts the background compilations past the point of no
	// return (the compiler running, then the swap to its code): Shutdown
	// does not wait for them, it leaves the runtime's close to the last.
	compilers pending
	queueMu   sync.Mutex
	queue     []*Pool // waiting for StartCompiles
	// deferredFailed: the deferred loads that failed (DeferPool),
	// guarded by queueMu.
	deferredFailed []error
	compileSlots   chan struct{}
	progress       func(stage, file string, done, total int, took time.Duration, err error) // Config.Progress
	stopBackground chan struct{}
	// hold, from a test's context (testhook.WithHold), keeps background
	// work from starting until closed; nil otherwise.
	hold <-chan struct{}
	// compilingHook, from a test's context (testhook.WithCompiling), runs
	// right before a background compilation; nil otherwise.
	compilingHook func()
	// loadingHook, from a test's context (testhook.WithLoadingCode), runs
	// right before deferred code loads; nil otherwise.
	loadingHook func()
	// closedHook, from a test's context (testhook.WithClosed), learns of
	// Shutdown with runtimesClosed; nil otherwise.
	closedHook func(<-chan struct{})
	// runtimesClosed is closed once closeRuntimes ran: no compilation of
	// the engine runs any more.
	runtimesClosed chan struct{}
	stopOnce       sync.Once
	// settled: the first batch of background work ended and gave its
	// memory back (see settle).
	settled atomic.Bool
	// rest gives the memory of later batches back once the engine rests
	// (see settle).
	rest heapRest
	// releasedHook, from a test's context (testhook.WithHeapReleased),
	// learns of each release of the heap; nil otherwise.
	releasedHook func()
	cache        wazero.CompilationCache
	cacheDir     string // where compiled and instrumented modules are kept; "" for none
	// codeCache authenticates cacheDir's entries; nil without a cache.
	codeCache   *codecache.Dir
	configFile  string // Config.ConfigFile
	logger      *slog.Logger
	memoryBytes int64 // the cap of each instance's memory
	// recycleBytes is the memory past which an instance is closed after
	// its call (Config.RecycleMemoryBytes); 0 for never.
	recycleBytes int64
	// loadCall makes the calls that run code at load (Config.LoadCall).
	loadCall func(ctx context.Context, file string) Call
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
	// poolWait, instanceDiscarded, instanceMade and instanceRecycled are
	// the host's observer's, for the pools' events (Config); nil when
	// none.
	poolWait          func(module, route string, waited time.Duration, acquired bool)
	instanceDiscarded func(module, route string)
	instanceMade      func(module, route string)
	instanceRecycled  func(module, route string, memoryBytes int64)
}

// New makes the engine: the compiler's runtime (and the interpreter's,
// with cfg.ServeWhileCompiling), each with WASI, the ABI's host functions
// and the interrupt check instantiated, over the compilation cache in
// cfg.CacheDir when it opens (a warning otherwise).
func New(ctx context.Context, cfg Config) (*Engine, error) {
	logger := cfg.Logger
	rcfg := wazero.NewRuntimeConfigCompiler().
		WithMemoryLimitPages(uint32(cfg.MemoryBytes / 65536)).
		WithCloseOnContextDone(false)
	e := &Engine{logger: logger, memoryBytes: cfg.MemoryBytes / 65536 * 65536, loadCall: cfg.LoadCall, mapped: cfg.MapMemory, configFile: cfg.ConfigFile, poolWait: cfg.PoolWait, instanceDiscarded: cfg.InstanceDiscarded, instanceMade: cfg.InstanceMade, instanceRecycled: cfg.InstanceRecycled}
	if r := cfg.RecycleMemoryBytes; r > 0 && r < e.memoryBytes {
		e.recycleBytes = r
	}
	if dir := cfg.CacheDir; dir != "" {
		d, err := openCache(dir, cfg.CacheKeyFile)
		var cache wazero.CompilationCache
		if err == nil {
			cache, err = wazero.NewCompilationCacheWithDir(d.Path())
		}
		if err != nil {
			logger.Warn("compilation cache unavailable; modules compile from scratch at every start", "dir", dir, "error", err)
		} else {
			e.cache, e.cacheDir, e.codeCache = cache, d.Path(), d
			rcfg = rcfg.WithCompilationCache(cache)
		}
	}
	e.runtime = wazero.NewRuntimeWithConfig(ctx, rcfg)
	e.compileSlots = make(chan struct{}, runtime.GOMAXPROCS(0))
	e.progress = cfg.Progress
	e.stopBackground = make(chan struct{})
	e.hold = testhook.Hold(ctx)
	e.compilingHook = testhook.Compiling(ctx)
	e.loadingHook = testhook.LoadingCode(ctx)
	e.closedHook = testhook.Closed(ctx)
	e.rest = heapRest{after: RestAfter, release: e.releaseHeap}
	if rest, f := testhook.HeapReleased(ctx); f != nil {
		e.rest.after, e.releasedHook = rest, f
	}
	e.runtimesClosed = make(chan struct{})
	runtimes := []wazero.Runtime{e.runtime}
	if cfg.ServeWhileCompiling {
		e.interp = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().
			WithMemoryLimitPages(uint32(cfg.MemoryBytes/65536)).
			WithCloseOnContextDone(false))
		runtimes = append(runtimes, e.interp)
	}
	for _, r := range runtimes {
		if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
			return nil, fmt.Errorf("instantiating WASI: %w", err)
		}
		if err := abihost.Instantiate(ctx, r); err != nil {
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

// openCache opens the cache directory with the key in keyFile (see
// package codecache): before wazero reads anything of it, the native
// entries that do not verify are deleted.
func openCache(dir, keyFile string) (*codecache.Dir, error) {
	if keyFile == "" {
		return nil, errors.New("no file for its key (the user configuration directory is unknown: set $HOME or $XDG_CONFIG_HOME)")
	}
	key, err := codecache.LoadKey(keyFile)
	if err != nil {
		return nil, err
	}
	return codecache.Open(dir, key)
}

// LoadCall makes the call that runs a module's code at load
// (Config.LoadCall).
func (e *Engine) LoadCall(ctx context.Context, file string) Call { return e.loadCall(ctx, file) }

// moduleConfig is the sandbox of every instance: no filesystem, network,
// arguments or environment; real clocks; crypto/rand; output to the log;
// sleeps that end at the call's deadline (see [guestSys]).
func (e *Engine) moduleConfig(g *guestSys) wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(). // _initialize is called by Pool.instantiate
		WithSysWalltime().WithSysNanotime().
		WithNanosleep(g.sleep).
		WithRandSource(guestRand{g}).
		WithStdout(g).WithStderr(g)
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
	c      Call
	logger *slog.Logger
	file   string
	// partial is what the guest wrote of a line not ended yet: Go's
	// runtime writes a panic's message in pieces, one write each, which
	// are one line of the log.
	partial []byte
	// said keeps the first lines the start function writes (keepSaid),
	// up to a Go traceback, for the error of a start that fails: a Go
	// module's registration panics there, and its message says why.
	said     []string
	keepSaid bool
}

// saidLines is how many lines of the start function's output its error
// quotes.
const saidLines = 5

func (g *guestSys) sleep(ns int64) {
	c := g.c
	if c == nil || ns <= 0 {
		return
	}
	d := time.Duration(ns)
	deadline, _ := c.Deadline()
	if left := time.Until(deadline); d > left {
		d = max(left, 0)
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-c.Done():
		t.Stop()
	case <-c.Stopped():
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
// line; a line's pieces, written one by one, wait for its end (or for
// flush, when the call or the start function ends).
func (g *guestSys) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			g.partial = append(g.partial, p...)
			if len(g.partial) > abi.LogMaxLine {
				g.flush() // LogLine cuts it, saying so
			}
			break
		}
		line := p[:i]
		p = p[i+1:]
		if len(g.partial) > 0 {
			line = append(g.partial, line...)
			g.partial = g.partial[:0]
		}
		g.emit(line)
	}
	if g.c != nil && g.c.Expired() {
		panic(interrupt.ErrInterrupted)
	}
	return n, nil
}

// flush logs the line the guest left unfinished, if any.
func (g *guestSys) flush() {
	if len(g.partial) > 0 {
		g.emit(g.partial)
	}
	g.partial = g.partial[:0]
	if cap(g.partial) > 4<<10 {
		g.partial = nil // a long line's buffer is not kept with the instance
	}
}

// emit logs one line the guest wrote: the call's, or the module's outside
// a call.
func (g *guestSys) emit(line []byte) {
	if len(line) == 0 {
		return
	}
	if g.keepSaid && len(g.said) < saidLines {
		if bytes.HasPrefix(line, []byte("goroutine ")) {
			g.keepSaid = false // a Go traceback follows: no more of the message
		} else {
			g.said = append(g.said, LogLine(line))
		}
	}
	if g.c != nil {
		g.c.GuestOutput(line)
	} else {
		g.logger.Info(LogLine(line), "route", g.file, "stream", "guest output")
	}
}

// LogLine turns a guest's log line into valid UTF-8 of at most
// abi.LogMaxLine bytes, saying so when it cut it.
func LogLine(msg []byte) string {
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

// Logger is the engine's logger (Config.Logger).
func (e *Engine) Logger() *slog.Logger { return e.logger }
