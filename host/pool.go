package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// instance is one instantiated module. It serves one call at a time.
//
// An instance has one owner at a time, and only its owner closes it: its
// pool while it is idle, the goroutine that took it with pool.get until it
// gives it back with pool.put, and the loader while it reads the contract.
// Its linear memory is unmapped the moment it is closed (see
// internal/linearmem), so closing an instance a call is running on, or
// using a slice of its memory after the host function call that read it,
// crashes the process: host functions copy what they keep.
type instance struct {
	mod          api.Module
	handle       api.Function
	onValidation api.Function // nil when not exported
	// before, after and verify are a middleware's exports (nil when not
	// exported): cached, as wazero makes a new api.Function, with its
	// stack, at each ExportedFunction.
	before, after, verify api.Function
	idleSince             time.Time // when put back; guarded by the pool's mu
	// memBytes is the size of its linear memory when it was made or last
	// given back, measured by its owner then.
	memBytes int64
	// sys is what its WASI functions see of the call it serves now, set
	// by take and cleared by put.
	sys *guestSys
	// code is what it was instantiated from: an instance of code the pool
	// has since replaced is closed when it is given back.
	code *code
}

func (in *instance) close(ctx context.Context) { _ = in.mod.Close(ctx) }

// pool bounds the instances of one module. slots holds a token per
// instance taken by a call, so at most cap(slots) exist; idle holds the
// ones waiting for a request, most recently used last. An instance that
// failed in any way is closed and its slot freed, never put back: its
// memory may be half-updated.
//
// A bounded channel rather than sync.Pool: sync.Pool drops items at GC
// without closing them, which leaks wazero instances. The most recently
// used instance serves the next request, so after a burst the others stay
// idle and the host's janitor closes them (see trim).
type pool struct {
	engine *engine
	// code is what new instances are made from: the interpreter's code
	// until the compiler's replaces it (see engine.compileLater).
	code atomic.Pointer[code]
	file string
	// route is the template of the route the module serves, for
	// observers; "" for middleware and the runtime declaration.
	route string
	slots chan struct{}
	mu    sync.Mutex
	idle  []*instance
	// retired: the module left the app; guarded by mu.
	retired bool
	// noHandle: the module has no endpoints_handle (the runtime
	// declaration, a middleware).
	noHandle bool
	// deferred: the module's code loads on first use or in the
	// background (see engine.deferModule); nil when it loaded with the
	// pool.
	deferred *deferredCode
	// busyMemory sums the memBytes of the instances taken, for Stats.
	busyMemory atomic.Int64
}

func newPool(e *engine, c *code, file string, size int) *pool {
	p := &pool{
		engine: e,
		file:   file,
		slots:  make(chan struct{}, size),
		idle:   make([]*instance, 0, size),
	}
	if rf, err := routefile.Parse(file); err == nil {
		p.route = rf.Pattern()
	}
	p.code.Store(c)
	return p
}

// setCode gives a pool made without code its code; it reports false, and
// changes nothing, when the pool was retired.
func (p *pool) setCode(c *code) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.retired {
		return false
	}
	p.code.Store(c)
	return true
}

// dropCode closes the code openCode gave the pool when its load failed
// after all.
func (p *pool) dropCode(ctx context.Context) {
	p.mu.Lock()
	c := p.code.Swap(nil)
	p.mu.Unlock()
	if c != nil {
		_ = c.compiled.Close(ctx)
	}
}

// upgrade makes new instances from next, closing the idle instances of the
// code it replaces; the instances in use are closed when given back. It
// reports false, and changes nothing, when the pool was retired.
func (p *pool) upgrade(ctx context.Context, next *code) bool {
	p.mu.Lock()
	if p.retired {
		p.mu.Unlock()
		return false
	}
	prev := p.code.Swap(next)
	idle := p.idle
	p.idle = make([]*instance, 0, cap(p.slots))
	p.mu.Unlock()
	for _, in := range idle {
		in.close(ctx)
	}
	// wazero allows closing a compiled module while calls run on its
	// instances.
	_ = prev.compiled.Close(ctx)
	return true
}

// errClosing is the error of a get once the host is closing.
var errClosing = errors.New("the host is shutting down")

// get returns an idle instance or instantiates one, waiting for a free slot
// until ctx is done or its deadline passes. Only a wait creates a timer.
// The caller owns the instance until it gives it back with put.
func (p *pool) get(ctx context.Context) (*instance, error) {
	if !p.engine.enter() {
		return nil, fmt.Errorf("%s: %w", p.file, errClosing)
	}
	in, err := p.take(ctx)
	if err != nil {
		p.engine.leave()
	}
	return in, err
}

func (p *pool) take(ctx context.Context) (*instance, error) {
	if p.deferred != nil {
		if err := p.awaitCode(ctx); err != nil {
			return nil, err
		}
	}
	select {
	case p.slots <- struct{}{}:
	default:
		began := time.Now()
		err := p.wait(ctx)
		if o := p.engine.observer; o != nil && o.PoolWait != nil {
			o.PoolWait(PoolEvent{Module: p.file, Route: p.route, Waited: time.Since(began), Acquired: err == nil})
		}
		if err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	var in *instance
	if n := len(p.idle); n > 0 {
		in, p.idle[n-1] = p.idle[n-1], nil
		p.idle = p.idle[:n-1]
	}
	p.mu.Unlock()
	if in != nil {
		in.sys.c = callFrom(ctx)
		p.busyMemory.Add(in.memBytes)
		return in, nil
	}
	in, err := p.instantiate(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	p.busyMemory.Add(in.memBytes)
	return in, nil
}

// wait waits for a free slot until ctx is done or its deadline passes.
// Only a wait creates a timer.
func (p *pool) wait(ctx context.Context) error {
	var expire <-chan time.Time
	if d, ok := ctx.Deadline(); ok {
		t := time.NewTimer(time.Until(d))
		defer t.Stop()
		expire = t.C
	}
	var halt <-chan struct{}
	if c := callFrom(ctx); c != nil {
		halt = c.stopped()
	}
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-halt:
		return fmt.Errorf("waiting for a free instance of %s: the host is shutting down", p.file)
	case <-ctx.Done():
		return fmt.Errorf("waiting for a free instance of %s: %w", p.file, ctx.Err())
	case <-expire:
		return fmt.Errorf("waiting for a free instance of %s: all %d busy until the deadline", p.file, cap(p.slots))
	}
}

// put gives back an instance taken with get; a broken one is closed, and
// its memory freed, now.
func (p *pool) put(ctx context.Context, in *instance, healthy bool) {
	in.sys.c = nil
	p.busyMemory.Add(-in.memBytes)
	if healthy {
		p.park(in)
	} else {
		in.close(ctx)
		if o := p.engine.observer; o != nil && o.InstanceDiscarded != nil {
			o.InstanceDiscarded(PoolEvent{Module: p.file, Route: p.route})
		}
	}
	<-p.slots
	p.engine.leave()
}

// park makes an instance idle: the warm one after loading, or one a call
// gave back.
func (p *pool) park(in *instance) {
	in.sys.c = nil
	in.idleSince = time.Now()
	in.memBytes = memorySize(in.mod)
	p.mu.Lock()
	if in.code != p.code.Load() || p.retired {
		p.mu.Unlock()
		in.close(context.Background()) // made from code the pool replaced
		return
	}
	p.idle = append(p.idle, in)
	p.mu.Unlock()
}

// warm instantiates the first instance, which the loader uses to read the
// contract and then parks, so the first request does not pay for
// instantiation.
func (p *pool) warm(ctx context.Context) (*instance, error) { return p.instantiate(ctx) }

func (p *pool) instantiate(ctx context.Context) (*instance, error) {
	g := &guestSys{c: callFrom(ctx), logger: p.engine.logger, file: p.file}
	c := p.code.Load()
	mod, err := p.engine.instantiate(ctx, c, p.engine.moduleConfig(g))
	if err != nil && p.code.Load() != c {
		// The compiler's code replaced c, and closed it, meanwhile: the
		// new code is the one to instantiate.
		c = p.code.Load()
		mod, err = p.engine.instantiate(ctx, c, p.engine.moduleConfig(g))
	}
	if err != nil {
		return nil, fmt.Errorf("instantiating %s: %w", p.file, startFailure(err, ctx))
	}
	// The WASI reactor initialiser runs as a call of its own, so that its
	// failure is told apart from the module's and said in words.
	if start := mod.ExportedFunction(abi.StartFunction); start != nil {
		if _, err := start.Call(ctx); err != nil {
			_ = mod.Close(ctx)
			return nil, fmt.Errorf("instantiating %s: %s: %w", p.file, abi.StartFunction, guestFailure(err, callFrom(ctx)))
		}
	}
	in := &instance{mod: mod, handle: mod.ExportedFunction(abi.ExportHandle), onValidation: mod.ExportedFunction(abi.ExportOnValidationError), sys: g, code: c, memBytes: memorySize(mod)}
	if p.noHandle {
		in.before, in.after, in.verify = mod.ExportedFunction(abi.ExportBefore), mod.ExportedFunction(abi.ExportAfter), mod.ExportedFunction(abi.ExportVerify)
	}
	if in.handle == nil && !p.noHandle {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("%s: missing export %q", p.file, abi.ExportHandle)
	}
	return in, nil
}

// trim closes the instances idle since before cutoff, except the most
// recently used one: a route keeps one warm instance, and gives back the
// memory of those a burst left behind. It reports how many it closed.
func (p *pool) trim(ctx context.Context, cutoff time.Time) int {
	p.mu.Lock()
	n := 0
	for n < len(p.idle)-1 && p.idle[n].idleSince.Before(cutoff) {
		n++
	}
	stale := make([]*instance, n)
	copy(stale, p.idle[:n])
	rest := copy(p.idle, p.idle[n:])
	clear(p.idle[rest:])
	p.idle = p.idle[:rest]
	p.mu.Unlock()
	for _, in := range stale {
		in.close(ctx)
	}
	return n
}

// memorySize is the size of a module's linear memory; 0 without one.
func memorySize(mod api.Module) int64 {
	if mod == nil {
		return 0 // a pool test's stand-in instance
	}
	if m := mod.Memory(); m != nil {
		return int64(m.Size())
	}
	return 0
}

// idleCount is the number of idle instances.
func (p *pool) idleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// retire closes every idle instance and the compiled module: the pool's
// module left the app and no request uses it any more.
func (p *pool) retire(ctx context.Context) {
	p.mu.Lock()
	p.retired = true
	p.mu.Unlock()
	p.close(ctx)
	if c := p.code.Load(); c != nil {
		_ = c.compiled.Close(ctx)
	}
}

// close closes every idle instance. Instances in use belong to their
// calls; the runtime's Close closes them once the calls gave them back
// (see engine.close).
func (p *pool) close(ctx context.Context) {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, in := range idle {
		in.close(ctx)
	}
}
