package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// Code is a module's code in one of the engine's runtimes: the compiler's,
// or the interpreter's while the compiler works (see CompileLater).
type Code struct {
	runtime  wazero.Runtime
	compiled wazero.CompiledModule
	// wasm is the instrumented module, kept for the compiler while the
	// interpreter runs it; nil once compiled. sum is its SHA-256, by
	// which the compiler's tier finds it (compiledMarks, Engine.compiling)
	// without hashing its megabytes again.
	wasm []byte
	sum  [sha256.Size]byte
	// use counts the interpreter's code while it is open (nil for the
	// compiler's code); closed makes Close count it once.
	use    *interpreterUse
	closed atomic.Bool
}

// interpreted reports whether the interpreter runs the code.
func (c *Code) interpreted() bool { return c.wasm != nil }

// Compiled is the compiled module, for reading its exports. Close the
// code with [Code.Close], not the compiled module.
func (c *Code) Compiled() wazero.CompiledModule { return c.compiled }

// Close closes the compiled module; instances made from it keep running
// until they close (wazero allows that). Closing twice is a no-op.
func (c *Code) Close(ctx context.Context) error {
	if c.closed.Swap(true) {
		return nil
	}
	if c.use != nil {
		c.use.codes.Add(-1)
	}
	return c.compiled.Close(ctx)
}

// interpreterUse counts what the interpreter's tier holds. The
// interpreter's code of a module is large, about twenty times its bytes
// (wazero lowers each instruction to a 56-byte operation: some 90 MB for
// a 4 MB Go module), so the engine keeps few of them open at once: see
// InterpreterUse.
type interpreterUse struct {
	codes, peakCodes, instances atomic.Int64
}

// openCode counts a module the interpreter compiled.
func (u *interpreterUse) openCode() {
	n := u.codes.Add(1)
	for {
		peak := u.peakCodes.Load()
		if n <= peak || u.peakCodes.CompareAndSwap(peak, n) {
			return
		}
	}
}

// InterpreterUse is what the interpreter's tier holds (Engine.InterpreterUse).
type InterpreterUse struct {
	// Codes counts the modules the interpreter compiled whose code is
	// still open, PeakCodes the most open at once since the engine
	// started.
	Codes, PeakCodes int
	// Instances counts the open instances of the interpreter's code.
	Instances int
}

// InterpreterUse says what the interpreter's tier holds now and held at
// most: once WaitCompiled returns, no code or instance of it is left.
func (e *Engine) InterpreterUse() InterpreterUse {
	return InterpreterUse{
		Codes:     int(e.interpreted.codes.Load()),
		PeakCodes: int(e.interpreted.peakCodes.Load()),
		Instances: int(e.interpreted.instances.Load()),
	}
}

// compiledMarks names the directory, under the cache directory, holding an
// empty file per module the compiler has compiled into the cache: a module
// with a mark compiles from the cache in milliseconds, so it skips the
// interpreter.
const compiledMarks = "compiled-v1"

// markPath is the mark of the instrumented module whose SHA-256 is sum,
// or "" without a cache directory.
func (e *Engine) markPath(sum [sha256.Size]byte) string {
	if e.cacheDir == "" {
		return ""
	}
	return filepath.Join(e.cacheDir, compiledMarks, hex.EncodeToString(sum[:]))
}

// inCache reports whether the compiler compiled the instrumented module
// whose SHA-256 is sum into the cache directory before.
func (e *Engine) inCache(sum [sha256.Size]byte) bool {
	p := e.markPath(sum)
	if p == "" {
		return false
	}
	_, err := os.Stat(p)
	return err == nil
}

// markCompiled records that the instrumented module whose SHA-256 is sum
// is in the compilation cache.
func (e *Engine) markCompiled(sum [sha256.Size]byte) {
	p := e.markPath(sum)
	if p == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
		_ = os.WriteFile(p, nil, 0o644)
	}
}

// codeFor compiles the instrumented module wasm: with the interpreter,
// which takes a fraction of the compiler's time, when mayInterpret, the
// engine tiers and the cache does not hold it (CompileLater then replaces
// that code); with the compiler otherwise. Its bytes are hashed once,
// here: a saved Go bundle is 12 MB, and each pass over them is some 10 ms
// the developer waits for.
func (e *Engine) codeFor(ctx context.Context, wasm []byte, mayInterpret bool) (*Code, error) {
	sum := sha256.Sum256(wasm)
	if !mayInterpret || e.interp == nil || e.inCache(sum) {
		compiled, err := e.compile(ctx, e.runtime, wasm, sum)
		if err != nil {
			return nil, err
		}
		e.markCompiled(sum)
		return &Code{runtime: e.runtime, compiled: compiled}, nil
	}
	compiled, err := e.compile(ctx, e.interp, wasm, sum)
	if err != nil {
		return nil, err
	}
	e.interpreted.openCode()
	return &Code{runtime: e.interp, compiled: compiled, wasm: wasm, sum: sum, use: &e.interpreted}, nil
}

// CompileLater queues the pool of a module the interpreter runs for the
// compiler; StartCompiles starts the queue once the load that made the
// pool is done, so that loading does not compete with compiling.
func (e *Engine) CompileLater(p *Pool) {
	if !p.code.Load().interpreted() {
		return
	}
	e.rest.busy()
	e.background.add()
	e.queueMu.Lock()
	e.queue = append(e.queue, p)
	e.queueMu.Unlock()
}

// ResumeCompiling queues again the compilation of p's code that
// Pool.StopCompiling stopped, when p still serves (its next version
// failed to load, or was refused) and runs interpreted code;
// StartCompiles starts it. Nothing happens for a pool that retired or
// whose compilation was not stopped.
func (e *Engine) ResumeCompiling(p *Pool) {
	p.mu.Lock()
	if p.retired || !isClosed(p.stopCompile) {
		p.mu.Unlock()
		return
	}
	p.stopCompile = make(chan struct{})
	p.mu.Unlock()
	if c := p.code.Load(); c != nil {
		// Without code yet (DeferPool), the load of the deferred code,
		// under way, compiles it once loaded.
		e.CompileLater(p)
	}
}

// StartCompiles compiles the queued pools' code in the background, at most
// GOMAXPROCS at once, and moves each pool to its compiled code. A module
// that the compiler fails on keeps running interpreted, with a warning. A
// compilation stopped before it ended (see compileContext) is not
// reported to Config.Progress: no compiled code serves.
func (e *Engine) StartCompiles() {
	e.queueMu.Lock()
	queue := e.queue
	e.queue = nil
	e.queueMu.Unlock()
	var mu sync.Mutex
	done := 0
	workers := compileWorkers(cap(e.compileSlots), len(queue))
	for _, p := range queue {
		e.compileInBackground(p, workers, func(stage string, took time.Duration, err error) {
			if e.progress == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			done++
			e.progress(stage, p.file, done, len(queue), took, err)
		})
	}
}

// compileWorkers is how many goroutines compile the functions of one
// module of a batch of n, with slots modules compiling at once: the cores
// a small batch leaves idle (a reload that changed one module, such as a
// saved Go bundle, compiles on every core), and at least 2 for a batch of
// one, since wazero stops a compilation it no longer needs only between
// the functions of a parallel one (see compileContext). A batch as large
// as the slots (a cold start) compiles each module on one goroutine, as
// before, so that it does not hold several modules' worth of compiler
// state at once.
func compileWorkers(slots, n int) int {
	w := max(1, slots/max(n, 1))
	if n == 1 {
		w = max(w, 2)
	}
	return w
}

// compileContext is the context of a background compilation of p's code:
// done once p retires (its module left the app, or a reload replaced it:
// a developer saving a Go bundle twice in a few seconds), a reload
// stops it to load the module's next version (Pool.StopCompiling), or
// the engine stops, so that the compiler stops instead of spending
// seconds of the cores on code no request may run, beside the load of
// the next version; with workers compiling the module's functions in
// parallel.
func (e *Engine) compileContext(p *Pool, workers int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := p.compileStopped()
	if isClosed(stop) || isClosed(p.gone) {
		cancel()
		return ctx, cancel
	}
	// Read before the goroutine starts: ctx is replaced below, and the
	// goroutine reading the variable raced with that (go test -race).
	done := ctx.Done()
	go func() {
		select {
		case <-p.gone:
		case <-stop:
		case <-e.stopBackground:
		case <-done:
		}
		cancel()
	}()
	if workers > 1 {
		ctx = experimental.WithCompilationWorkers(ctx, workers)
	}
	return ctx, cancel
}

// compileInBackground compiles p's code and moves p to it, then calls
// finished, unless the engine stopped first. A pool whose code was
// deferred (DeferPool) loads it first (from the cache, or in the
// interpreter), or waits for the request that started loading it. The
// compilation stops when p retires meanwhile (compileContext); workers is
// how many goroutines compile its functions (compileWorkers).
func (e *Engine) compileInBackground(p *Pool, workers int, finished func(stage string, took time.Duration, err error)) {
	go func() {
		defer e.settle()   // last: once the counts below are done
		compiling := false // the work moved to e.compilers
		defer func() {
			if !compiling {
				e.background.done()
			}
		}()
		if e.hold != nil {
			select {
			case <-e.hold:
			case <-e.stopBackground:
				return
			}
		}
		select {
		case e.compileSlots <- struct{}{}:
			defer func() { <-e.compileSlots }()
		case <-e.stopBackground:
			return
		}
		start := time.Now()
		stage := StageCompile
		if d := p.deferred; d != nil {
			// In the interpreter when the cache lacks the module, as a
			// request would: a request arriving meanwhile waits for this
			// load, which must take a fraction of a second, not the
			// compiler's seconds. The compiler follows below.
			stage = StageCode
			e.loadDeferred(p, true)
			<-d.done
			if d.err != nil {
				if errors.Is(d.err, errRetired) {
					finished(stage, time.Since(start), nil)
				} else {
					finished(stage, time.Since(start), d.err)
				}
				return
			}
		}
		c := p.code.Load()
		if c == nil || !c.interpreted() {
			finished(stage, time.Since(start), nil)
			return
		}
		// Interpreted: a request loaded the deferred code first, or the
		// load did. The compiler takes seconds and cannot be interrupted:
		// from here the work counts among the compilers, which Shutdown
		// abandons instead of waiting for (a SIGTERM during a cold start
		// must not wait for them).
		stage = StageCompile
		e.compilers.add()
		defer e.compilers.done()
		compiling = true
		e.background.done()
		if e.compilingHook != nil {
			e.compilingHook()
		}
		ctx, cancel := e.compileContext(p, workers)
		defer cancel()
		if ctx.Err() != nil {
			// Retired, or stopped for a reload, before the compiler
			// began: no compiled code to report (Config.Progress).
			return
		}
		compiled, err := e.compile(ctx, e.runtime, c.wasm, c.sum)
		if e.stopped() {
			if err == nil {
				_ = compiled.Close(context.Background())
			}
			return
		}
		if err != nil && ctx.Err() != nil {
			// Abandoned: the pool retired, or a reload stopped it, while
			// the compiler ran. Nothing is reported.
			return
		}
		if err != nil {
			e.logger.Warn("the compiler failed on a module; it keeps running in the interpreter", "module", p.file, "error", err)
			finished(stage, time.Since(start), err)
			return
		}
		e.markCompiled(c.sum)
		next := &Code{runtime: e.runtime, compiled: compiled}
		if !p.upgrade(context.Background(), next) {
			_ = next.Close(context.Background()) // the module left the app meanwhile
		} else if in, err := p.instantiate(e.loadCall(context.Background(), p.file)); err == nil {
			// The upgrade closed the idle instances of the old code: one
			// warm instance of the new, so the next request does not
			// pay for instantiating it.
			p.Park(in)
		}
		finished(stage, time.Since(start), nil)
	}()
}

// settle gives the memory the background work freed back to the system
// once none is left: the compiler's and the interpreter's garbage (some
// 900 MB for the users example's 12 MB bundle at a cold start, some 300
// MB for a saved 5.6 MB bundle) would otherwise stay in the process as
// free heap the Go runtime had not returned: a cold start of the example
// rested at 1 GB RSS, 51 MB of it heap in use, and endpoints dev at 400-500
// MB after a few saves. The start's work gives it back at once; a reload's
// RestAfter later, when no other work began meanwhile (heapRest): a
// reload's load takes that memory from the system again, which cost each
// save under endpoints dev about 180 ms when every batch released it at
// once.
func (e *Engine) settle() {
	if !e.idleNow() {
		return
	}
	if !e.settled.Swap(true) {
		e.releaseHeap()
		return
	}
	e.rest.rest(e.idleNow)
}

// WaitCompiled waits until no module runs in the interpreter any more, or
// ctx ends, and then returns ctx's error. DeferredFailed then says which
// deferred loads failed.
func (e *Engine) WaitCompiled(ctx context.Context) error {
	// In this order: work leaves background for compilers, never back.
	for _, w := range []*pending{&e.background, &e.compilers} {
		select {
		case <-w.idle():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// stopped reports whether the engine stopped its background work
// (Shutdown).
func (e *Engine) stopped() bool { return isClosed(e.stopBackground) }

// DeferredFailed returns the deferred loads that failed so far (DeferPool),
// nil when none did.
func (e *Engine) DeferredFailed() []error {
	e.queueMu.Lock()
	defer e.queueMu.Unlock()
	if len(e.deferredFailed) > 0 {
		return slices.Clone(e.deferredFailed)
	}
	return nil
}

// ServesWhileCompiling reports whether the engine has the interpreter's
// tier (Config.ServeWhileCompiling).
func (e *Engine) ServesWhileCompiling() bool { return e.interp != nil }

// HoldCompiler keeps background compilations from starting until release
// is called: for tests that need modules served by the interpreter.
func (e *Engine) HoldCompiler() (release func()) {
	for range cap(e.compileSlots) {
		e.compileSlots <- struct{}{}
	}
	return func() {
		for range cap(e.compileSlots) {
			<-e.compileSlots
		}
	}
}

// pending counts work in flight and says when there is none; unlike a
// sync.WaitGroup, work may start while someone waits.
type pending struct {
	mu   sync.Mutex
	n    int
	none chan struct{} // closed while n == 0
}

func (w *pending) add() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.none = make(chan struct{})
	}
	w.n++
}

func (w *pending) done() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.n == 0 {
		close(w.none)
	}
}

// idle returns a channel closed when nothing is in flight.
func (w *pending) idle() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return w.none
}
