package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
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
