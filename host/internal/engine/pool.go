package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// Instance is one instantiated module. It serves one call at a time.
//
// An instance has one owner at a time, and only its owner closes it: its
// pool while it is idle, the goroutine that took it with Pool.Get until it
// gives it back with Pool.Put, and the loader while it reads the contract.
// Its linear memory is unmapped the moment it is closed (see
// internal/linearmem), so closing an instance a call is running on, or
// using a slice of its memory after the host function call that read it,
// crashes the process: host functions copy what they keep.
type Instance struct {
	// Mod is the module instance; Handle its endpoints_handle (nil for a
	// middleware and the runtime declaration) and OnValidation its
	// onValidationError hook (nil when not exported).
	Mod          api.Module
	Handle       api.Function
	OnValidation api.Function
	// HandleRoute and OnValidationRoute are a bundle's
	// endpoints_handle_route and endpoints_on_validation_error_route (nil
	// when not exported): they take the index of the route the request
	// matched.
	HandleRoute, OnValidationRoute api.Function
	// Before, After and Verify are a middleware's exports (nil when not
	// exported): cached, as wazero makes a new api.Function, with its
	// stack, at each ExportedFunction.
	Before, After, Verify api.Function
	// BeforeRoute, AfterRoute and VerifyRoute are a bundle's middleware
	// exports (nil when not exported): they take the index of the
	// middleware in its declaration.
	BeforeRoute, AfterRoute, VerifyRoute api.Function
	idleSince                            time.Time // when put back; guarded by the pool's mu
	// memBytes is the size of its linear memory when it was made or last
	// given back, measured by its owner then.
	memBytes int64
	// served: a call gave it back healthy (Pool.Put); bornLarge: the
	// first one left its memory past the engine's recycleBytes, so it is
	// kept past them (see Pool.recycle). Its owner's.
	served, bornLarge bool
	// sys is what its WASI functions see of the call it serves now, set
	// by take and cleared by Put.
	sys *guestSys
	// code is what it was instantiated from: an instance of code the pool
	// has since replaced is closed when it is given back.
	code *Code
	// closed makes Close count the instance once (interpreterUse).
	closed atomic.Bool
}

// Close closes the instance and unmaps its memory; only its owner may.
func (in *Instance) Close(ctx context.Context) {
	if in.closed.Swap(true) {
		return
	}
	if c := in.code; c != nil && c.use != nil {
		c.use.instances.Add(-1)
	}
	_ = in.Mod.Close(ctx)
}

// Pool bounds the instances of one module. slots holds a token per
// instance taken by a call, so at most cap(slots) exist; idle holds the
// ones waiting for a request, most recently used last. An instance that
// failed in any way is closed and its slot freed, never put back: its
// memory may be half-updated. One a call left with more linear memory
// than the engine's recycleBytes is closed too (see Pool.recycle).
//
// A bounded channel rather than sync.Pool: sync.Pool drops items at GC
// without closing them, which leaks wazero instances. The most recently
// used instance serves the next request, so after a burst the others stay
// idle and the host's janitor closes them (see Trim).
type Pool struct {
	engine *Engine
	// code is what new instances are made from: the interpreter's code
	// until the compiler's replaces it (see Engine.CompileLater).
	code atomic.Pointer[Code]
	file string
	// route is the template of the route the module serves, for
	// observers; "" for middleware and the runtime declaration.
	route string
	slots chan struct{}
	mu    sync.Mutex
	idle  []*Instance
	// retired: the module left the app; guarded by mu.
	retired bool
	// gone is closed when the pool retires: a background compilation of
	// its code stops then (Engine.compileContext).
	gone chan struct{}
	// stopCompile is closed by StopCompiling, and replaced by
	// Engine.ResumeCompiling; guarded by mu.
	stopCompile chan struct{}
	// noHandle: the module has no endpoints_handle (the runtime
	// declaration, a middleware).
	noHandle bool
	// deferred: the module's code loads on first use or in the
	// background (see Engine.DeferPool); nil when it loaded with the
	// pool.
	deferred *deferredCode
	// busyMemory sums the memBytes of the instances taken, for Stats.
	busyMemory atomic.Int64
	// lanes are the pool's lanes by key (see Lane): string → *Lane.
	lanes sync.Map
}

// Lane is a share of a pool with slots of its own, as many as the pool's:
// calls through one lane wait for each other only, never for the pool's
// other lanes nor for calls through the pool itself. Idle instances are
// shared. A bundle's pool has a lane per route, and a middleware's a lane
// per route it wraps, so that slow
// calls for one route never stall the others': each route then gets the
// same bound from the middleware as from its own pool, and the
// middleware's instances number at most its size times the routes it
// wraps (those beyond one idle are closed by Trim).
//
// A lane whose last call failed (its instance discarded) takes a fresh
// instance for its next call rather than an idle one: the idle instances
// are shared, and a route that fails every request would otherwise take
// and discard, one call after another, the warm instance its healthy
// neighbours gave back, each of whose next calls would then pay for a
// fresh instance (milliseconds for a Go bundle) in its place. The
// failing route pays for its own instances; its first failure still
// costs the pool the instance it took.
type Lane struct {
	p     *Pool
	slots chan struct{}
	// route is the template observers are given for the lane's waits and
	// discards: a bundle's route's, whose pool has none of its own.
	route string
	// failed: the lane's last call given back failed; its next call
	// takes a fresh instance.
	failed atomic.Bool
}

// Lane returns the lane named key, made on first use. route is the
// template of the route whose calls take it, which observers are given
// for its waits and discards (a bundle's pool serves many, so its own
// template is ""); "" keeps the pool's (a middleware's lanes: its events
// name no route). Lanes live as long as the pool, each with the route of
// its first call; a key that no longer comes (a route removed by a
// reload) costs an empty channel.
func (p *Pool) Lane(key, route string) *Lane {
	if l, ok := p.lanes.Load(key); ok {
		return l.(*Lane)
	}
	if route == "" {
		route = p.route
	}
	l, _ := p.lanes.LoadOrStore(key, &Lane{p: p, slots: make(chan struct{}, cap(p.slots)), route: route})
	return l.(*Lane)
}

// Source is where a call takes an instance and gives it back: a pool, or a
// lane of one.
type Source interface {
	Get(ctx context.Context) (*Instance, error)
	Put(ctx context.Context, in *Instance, healthy bool)
	// File is the module's file.
	File() string
}

var (
	_ Source = (*Pool)(nil)
	_ Source = (*Lane)(nil)
)

// File is the file of the lane's module.
func (l *Lane) File() string { return l.p.file }

// Get is Pool.Get within the lane's slots; after a failed call of the
// lane, it makes a fresh instance rather than take an idle one.
func (l *Lane) Get(ctx context.Context) (*Instance, error) {
	return l.p.get(ctx, l.slots, l.route, l.failed.Load())
}

// Put is Pool.Put for an instance taken with the lane's Get.
func (l *Lane) Put(ctx context.Context, in *Instance, healthy bool) {
	l.failed.Store(!healthy)
	l.p.put(ctx, in, healthy, l.slots, l.route)
}

// NewPool makes the pool of size instances of the module file, from c
// (nil for a pool whose code OpenCode makes). noHandle: the module has no
// endpoints_handle (the runtime declaration, a middleware).
func (e *Engine) NewPool(c *Code, file string, size int, noHandle bool) *Pool {
	p := newPool(e, c, file, size)
	p.noHandle = noHandle
	return p
}

func newPool(e *Engine, c *Code, file string, size int) *Pool {
	p := &Pool{
		engine: e,
		file:   file,
		slots:  make(chan struct{}, size),
		idle:   make([]*Instance, 0, size),
		gone:   make(chan struct{}),

		stopCompile: make(chan struct{}),
	}
	if rf, err := routefile.Parse(file); err == nil {
		p.route = rf.Pattern()
	}
	p.code.Store(c)
	return p
}

// setCode gives a pool made without code its code; it reports false, and
// changes nothing, when the pool was retired.
func (p *Pool) setCode(c *Code) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.retired {
		return false
	}
	p.code.Store(c)
	return true
}

// dropCode closes the code OpenCode gave the pool when its load failed
// after all.
func (p *Pool) dropCode(ctx context.Context) {
	p.mu.Lock()
	c := p.code.Swap(nil)
	p.mu.Unlock()
	if c != nil {
		_ = c.Close(ctx)
	}
}

// upgrade makes new instances from next, closing the idle instances of the
// code it replaces; the instances in use are closed when given back. It
// reports false, and changes nothing, when the pool was retired.
func (p *Pool) upgrade(ctx context.Context, next *Code) bool {
	p.mu.Lock()
	if p.retired {
		p.mu.Unlock()
		return false
	}
	prev := p.code.Swap(next)
	idle := p.idle
	p.idle = make([]*Instance, 0, cap(p.slots))
	p.mu.Unlock()
	for _, in := range idle {
		in.Close(ctx)
	}
	// wazero allows closing a compiled module while calls run on its
	// instances.
	_ = prev.Close(ctx)
	return true
}

// errClosing is the error of a Get once the host is closing.
var errClosing = errors.New("the host is shutting down")

// Get returns an idle instance or instantiates one, waiting for a free slot
// until ctx is done or its deadline passes. Only a wait creates a timer.
// The caller owns the instance until it gives it back with Put. ctx is
// usually the Call that will run the instance.
func (p *Pool) Get(ctx context.Context) (*Instance, error) {
	return p.get(ctx, p.slots, p.route, false)
}

// get is Get within slots: the pool's or a lane's, whose route observers
// are given. fresh: make an instance even when one is idle.
func (p *Pool) get(ctx context.Context, slots chan struct{}, route string, fresh bool) (*Instance, error) {
	if !p.engine.enter() {
		return nil, fmt.Errorf("%s: %w", p.file, errClosing)
	}
	in, err := p.take(ctx, slots, route, fresh)
	if err != nil {
		p.engine.leave()
	}
	return in, err
}

func (p *Pool) take(ctx context.Context, slots chan struct{}, route string, fresh bool) (*Instance, error) {
	if p.deferred != nil {
		if err := p.awaitCode(ctx); err != nil {
			return nil, err
		}
	}
	select {
	case slots <- struct{}{}:
	default:
		began := time.Now()
		err := p.wait(ctx, slots)
		waited := time.Since(began)
		if f := p.engine.poolWait; f != nil {
			f(p.file, route, waited, err == nil)
		}
		if w, ok := callFrom(ctx).(Waiter); ok {
			w.WaitedForInstance(waited)
		}
		if err != nil {
			return nil, err
		}
	}
	var in *Instance
	if !fresh {
		p.mu.Lock()
		if n := len(p.idle); n > 0 {
			in, p.idle[n-1] = p.idle[n-1], nil
			p.idle = p.idle[:n-1]
		}
		p.mu.Unlock()
	}
	if in != nil {
		in.sys.c = callFrom(ctx)
		p.busyMemory.Add(in.memBytes)
		return in, nil
	}
	in, err := p.instantiate(ctx)
	if err != nil {
		<-slots
		return nil, err
	}
	if f := p.engine.instanceMade; f != nil {
		f(p.file, route)
	}
	p.busyMemory.Add(in.memBytes)
	return in, nil
}

// wait waits for a free slot until ctx is done or its deadline passes.
// Only a wait creates a timer.
func (p *Pool) wait(ctx context.Context, slots chan struct{}) error {
	var expire <-chan time.Time
	if d, ok := ctx.Deadline(); ok {
		t := time.NewTimer(time.Until(d))
		defer t.Stop()
		expire = t.C
	}
	var halt <-chan struct{}
	if c := callFrom(ctx); c != nil {
		halt = c.Stopped()
	}
	select {
	case slots <- struct{}{}:
		return nil
	case <-halt:
		return fmt.Errorf("waiting for a free instance of %s: the host is shutting down", p.file)
	case <-ctx.Done():
		return fmt.Errorf("waiting for a free instance of %s: %w", p.file, ctx.Err())
	case <-expire:
		return fmt.Errorf("waiting for a free instance of %s: all %d busy until the deadline", p.file, cap(slots))
	}
}

// Put gives back an instance taken with Get; a broken one is closed, and
// its memory freed, now.
func (p *Pool) Put(ctx context.Context, in *Instance, healthy bool) {
	p.put(ctx, in, healthy, p.slots, p.route)
}

// put is Put of an instance taken within slots, for route (observers).
func (p *Pool) put(ctx context.Context, in *Instance, healthy bool, slots chan struct{}, route string) {
	in.sys.flush()
	in.sys.c = nil
	p.busyMemory.Add(-in.memBytes)
	if healthy {
		if size := memorySize(in.Mod); p.recycle(in, route, size) {
			in.Close(ctx)
			if f := p.engine.instanceRecycled; f != nil {
				f(p.file, route, size)
			}
		} else {
			p.Park(in)
		}
	} else {
		in.Close(ctx)
		if f := p.engine.instanceDiscarded; f != nil {
			f(p.file, route)
		}
	}
	<-slots
	p.engine.leave()
}

// recycle reports whether an instance a call of route gave back healthy,
// whose linear memory is now size, is to be closed rather than kept: when
// size is past the engine's recycleBytes. Linear memory never shrinks, so
// a kept instance holds what its calls needed at most, resident, for as
// long as it lives, and a route that keeps adding to a package variable
// would leave its instance's next call, in a bundle any route's, no room.
// The instance's first call is the exception: one that took a new
// instance past the mark would take the next new one there too, so
// recycling it would add an instantiation to every call of a route whose
// steady state is that large; it is kept past the mark for good, with a
// warning. Each instance is logged once, as it is recycled or kept.
func (p *Pool) recycle(in *Instance, route string, size int64) bool {
	first := !in.served
	in.served = true
	mark := p.engine.recycleBytes
	if mark == 0 || size <= mark || in.bornLarge {
		return false
	}
	if first {
		in.bornLarge = true
		p.engine.logger.Warn("a call took a new instance's memory past limits.recycleMemoryBytes: the instance is kept, since any new one would be as large after such a call, but its next calls (in a bundle, of any of its routes) may run out of memory; raise limits.memoryBytes, or make the route need less",
			"module", p.file, "route", route, "memoryBytes", size, "recycleMemoryBytes", mark, "limit", p.engine.memoryBytes)
		return false
	}
	p.engine.logger.Info("a call left its instance's memory past limits.recycleMemoryBytes: the instance is closed rather than kept, and the next call takes or makes another, whose package variables start over; a route whose instances are recycled again and again keeps adding to something (a package variable that grows)",
		"module", p.file, "route", route, "memoryBytes", size, "recycleMemoryBytes", mark)
	return true
}

// Park makes an instance idle: the warm one after loading, or one a call
// gave back.
func (p *Pool) Park(in *Instance) {
	in.sys.flush()
	in.sys.c = nil
	in.idleSince = time.Now()
	in.memBytes = memorySize(in.Mod)
	p.mu.Lock()
	if in.code != p.code.Load() || p.retired {
		p.mu.Unlock()
		in.Close(context.Background()) // made from code the pool replaced
		return
	}
	p.idle = append(p.idle, in)
	p.mu.Unlock()
}

// Warm instantiates the first instance, which the loader uses to read the
// contract and then parks, so the first request does not pay for
// instantiation.
func (p *Pool) Warm(ctx context.Context) (*Instance, error) { return p.instantiate(ctx) }

func (p *Pool) instantiate(ctx context.Context) (*Instance, error) {
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
		g.keepSaid = true
		_, err := start.Call(ctx)
		g.flush()
		said := g.said
		g.said, g.keepSaid = nil, false
		if err != nil {
			_ = mod.Close(ctx)
			if len(said) > 0 {
				// What it wrote says why, where the trap's stack of
				// numbered functions does not: a Go registration's panic.
				return nil, fmt.Errorf("instantiating %s: %s: %s; then %w", p.file, abi.StartFunction, strings.Join(said, " / "), GuestFailure(err, callFrom(ctx)))
			}
			return nil, fmt.Errorf("instantiating %s: %s: %w", p.file, abi.StartFunction, GuestFailure(err, callFrom(ctx)))
		}
	}
	in := &Instance{Mod: mod, Handle: mod.ExportedFunction(abi.ExportHandle), OnValidation: mod.ExportedFunction(abi.ExportOnValidationError), sys: g, code: c, memBytes: memorySize(mod)}
	in.HandleRoute, in.OnValidationRoute = mod.ExportedFunction(abi.ExportHandleRoute), mod.ExportedFunction(abi.ExportOnValidationErrorRoute)
	if in.HandleRoute != nil {
		in.BeforeRoute, in.AfterRoute, in.VerifyRoute = mod.ExportedFunction(abi.ExportBeforeRoute), mod.ExportedFunction(abi.ExportAfterRoute), mod.ExportedFunction(abi.ExportVerifyRoute)
	}
	if p.noHandle {
		in.Before, in.After, in.Verify = mod.ExportedFunction(abi.ExportBefore), mod.ExportedFunction(abi.ExportAfter), mod.ExportedFunction(abi.ExportVerify)
	}
	if in.Handle == nil && in.HandleRoute == nil && !p.noHandle {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("%s: missing export %q", p.file, abi.ExportHandle)
	}
	if c.use != nil {
		c.use.instances.Add(1)
	}
	return in, nil
}

// Trim closes the instances idle since before cutoff, except the most
// recently used one: a route keeps one warm instance, and gives back the
// memory of those a burst left behind. It reports how many it closed.
func (p *Pool) Trim(ctx context.Context, cutoff time.Time) int {
	p.mu.Lock()
	n := 0
	for n < len(p.idle)-1 && p.idle[n].idleSince.Before(cutoff) {
		n++
	}
	stale := make([]*Instance, n)
	copy(stale, p.idle[:n])
	rest := copy(p.idle, p.idle[n:])
	clear(p.idle[rest:])
	p.idle = p.idle[:rest]
	p.mu.Unlock()
	for _, in := range stale {
		in.Close(ctx)
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

// IdleCount is the number of idle instances.
func (p *Pool) IdleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// StopCompiling stops the background compilation of the pool's code,
// queued or running: a reload stops it while it loads the next version
// of the module, which needs the cores, and then either retires the pool
// or, when the next version failed to load and this one keeps serving,
// queues its compilation again (Engine.ResumeCompiling).
func (p *Pool) StopCompiling() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !isClosed(p.stopCompile) {
		close(p.stopCompile)
	}
}

// compileStopped returns the channel StopCompiling closes.
func (p *Pool) compileStopped() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopCompile
}

// Retire closes every idle instance and the compiled module: the pool's
// module left the app and no request uses it any more.
func (p *Pool) Retire(ctx context.Context) {
	p.mu.Lock()
	if !p.retired {
		p.retired = true
		close(p.gone)
	}
	p.mu.Unlock()
	p.Close(ctx)
	if c := p.code.Load(); c != nil {
		_ = c.Close(ctx)
	}
}

// Close closes every idle instance. Instances in use belong to their
// calls; the runtime's Close closes them once the calls gave them back
// (see Engine.Close).
func (p *Pool) Close(ctx context.Context) {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, in := range idle {
		in.Close(ctx)
	}
}

// File is the module the pool runs, relative to the app.
func (p *Pool) File() string { return p.file }

// Interpreted reports whether the interpreter runs the pool's code now.
func (p *Pool) Interpreted() bool {
	c := p.code.Load()
	return c != nil && c.interpreted()
}

// HasCode reports whether the pool's code has loaded (see DeferPool).
func (p *Pool) HasCode() bool { return p.code.Load() != nil }

// Retired reports whether Retire was called: the pool's module left the
// app, its code and idle instances are closed.
func (p *Pool) Retired() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.retired
}

// Stats is the state of a pool, read by Pool.Stats: the fields of
// host.PoolStats, which converts from it.
type Stats struct {
	// Module is the module file, Route its template ("" for middleware
	// and the runtime declaration).
	Module, Route string
	// Max is the pool's size: its slots and its lanes' (see Pool.Lane).
	Max int
	// InUse counts the instances taken, or being made for a call.
	InUse int
	// Idle counts the instances waiting for a call.
	Idle int
	// MemoryBytes is the linear memory of the idle instances now and of
	// those in use as it was when they were taken.
	MemoryBytes int64
}

// Stats reads the pool's state, taking its lock briefly.
func (p *Pool) Stats() Stats {
	s := Stats{Module: p.file, Route: p.route, Max: cap(p.slots), InUse: len(p.slots)}
	p.lanes.Range(func(_, v any) bool {
		l := v.(*Lane)
		s.Max += cap(l.slots)
		s.InUse += len(l.slots)
		return true
	})
	p.mu.Lock()
	s.Idle = len(p.idle)
	for _, in := range p.idle {
		s.MemoryBytes += in.memBytes
	}
	p.mu.Unlock()
	s.MemoryBytes += p.busyMemory.Load()
	return s
}
