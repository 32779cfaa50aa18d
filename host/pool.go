package host

import (
	"context"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
)

// instance is one instantiated module. It serves one call at a time: the
// pool hands it to a single request and takes it back after.
type instance struct {
	mod          api.Module
	handle       api.Function
	onValidation api.Function // nil when not exported
	// sys is what its WASI functions see of the call it serves now, set
	// by get and cleared by put.
	sys *guestSys
}

func (in *instance) close(ctx context.Context) { _ = in.mod.Close(ctx) }

// pool bounds the instances of one module. slots holds a token per
// instance in use or idle, so at most cap(slots) exist; idle holds the ones
// waiting for a request. An instance that failed in any way is closed and
// its slot freed, never put back: its memory may be half-updated.
//
// A bounded channel rather than sync.Pool: sync.Pool drops items at GC
// without closing them, which leaks wazero instances.
type pool struct {
	engine   *engine
	compiled wazero.CompiledModule
	file     string
	slots    chan struct{}
	idle     chan *instance
	// runtime: the app's runtime declaration module, which has no
	// endpoints_handle.
	runtime bool
}

func newPool(e *engine, compiled wazero.CompiledModule, file string, size int) *pool {
	return &pool{
		engine:   e,
		compiled: compiled,
		file:     file,
		slots:    make(chan struct{}, size),
		idle:     make(chan *instance, size),
	}
}

// get returns an idle instance or instantiates one, waiting for a free slot
// until ctx is done or its deadline passes. Only a wait creates a timer.
func (p *pool) get(ctx context.Context) (*instance, error) {
	select {
	case p.slots <- struct{}{}:
	default:
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
		case <-halt:
			return nil, fmt.Errorf("waiting for a free instance of %s: the host is shutting down", p.file)
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a free instance of %s: %w", p.file, ctx.Err())
		case <-expire:
			return nil, fmt.Errorf("waiting for a free instance of %s: all %d busy until the deadline", p.file, cap(p.slots))
		}
	}
	select {
	case in := <-p.idle:
		in.sys.c = callFrom(ctx)
		return in, nil
	default:
	}
	in, err := p.instantiate(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return in, nil
}

// put gives an instance back; a broken one is closed.
func (p *pool) put(ctx context.Context, in *instance, healthy bool) {
	in.sys.c = nil
	if healthy {
		p.idle <- in
	} else {
		in.close(ctx)
	}
	<-p.slots
}

// warm instantiates the first instance, which the loader uses to read the
// contract and then leaves idle so the first request does not pay for
// instantiation.
func (p *pool) warm(ctx context.Context) (*instance, error) { return p.instantiate(ctx) }

func (p *pool) instantiate(ctx context.Context) (*instance, error) {
	g := &guestSys{c: callFrom(ctx), logger: p.engine.logger, file: p.file}
	mod, err := p.engine.runtime.InstantiateModule(ctx, p.compiled, p.engine.moduleConfig(g))
	if err != nil {
		return nil, fmt.Errorf("instantiating %s: %w", p.file, startFailure(err, ctx))
	}
	in := &instance{mod: mod, handle: mod.ExportedFunction(abi.ExportHandle), onValidation: mod.ExportedFunction(abi.ExportOnValidationError), sys: g}
	if in.handle == nil && !p.runtime {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("%s: missing export %q", p.file, abi.ExportHandle)
	}
	return in, nil
}

// retire closes every idle instance and the compiled module: the pool's
// module left the app and no request uses it any more.
func (p *pool) retire(ctx context.Context) {
	p.close(ctx)
	_ = p.compiled.Close(ctx)
}

// close closes every idle instance. Instances in use are closed by the
// runtime's Close.
func (p *pool) close(ctx context.Context) {
	for {
		select {
		case in := <-p.idle:
			in.close(ctx)
		default:
			return
		}
	}
}
