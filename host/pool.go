package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
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
	select {
	case p.slots <- struct{}{}:
	default:
		var expire <-chan time.Time
		if d, ok := ctx.Deadline(); ok {
			t := time.NewTimer(time.Until(d))
			defer t.Stop()
			expire = t.C
		}
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a free instance of %s: %w", p.file, ctx.Err())
		case <-expire:
			return nil, fmt.Errorf("waiting for a free instance of %s: all %d busy until the deadline", p.file, cap(p.slots))
		}
	}
	select {
	case in := <-p.idle:
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
	if healthy {
		p.idle <- in
	} else {
		in.close(ctx)
	}
	<-p.slots
	p.engine.leave()
}

// warm instantiates the first instance, which the loader uses to read the
// contract and then leaves idle so the first request does not pay for
// instantiation.
func (p *pool) warm(ctx context.Context) (*instance, error) { return p.instantiate(ctx) }

func (p *pool) instantiate(ctx context.Context) (*instance, error) {
	mod, err := p.engine.instantiate(ctx, p.compiled, p.engine.moduleConfig(p.file))
	if err != nil {
		return nil, fmt.Errorf("instantiating %s: %w", p.file, err)
	}
	in := &instance{mod: mod, handle: mod.ExportedFunction(abi.ExportHandle), onValidation: mod.ExportedFunction(abi.ExportOnValidationError)}
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

// close closes every idle instance. Instances in use belong to their
// calls; the runtime's Close closes them once the calls gave them back
// (see engine.close).
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
