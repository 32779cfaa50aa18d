package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// deferredCode is the code of a route module that was routed from its
// custom sections before its code loaded: the first request needing an
// instance, or the background loader, whichever comes first, loads it
// (engine.loadDeferred).
type deferredCode struct {
	wasm []byte // released once loaded
	rf   routefile.Route
	// contractJSON is the section's contract the route was made from
	// (nil for a plain route): the code must declare the same.
	contractJSON []byte
	start        sync.Once
	done         chan struct{} // closed when loaded or failed
	err          error         // why it failed, set before done is closed
}

// errRetired is the load of a pool whose module left the app meanwhile.
var errRetired = errors.New("the module left the app while its code loaded")

// moduleFailedError is a request's error when its route's deferred code
// failed to load: the route answers 500 until the module is fixed.
type moduleFailedError struct{ err error }

func (e *moduleFailedError) Error() string {
	return fmt.Sprintf("the route's module failed to load: %v", e.err)
}

func (e *moduleFailedError) Unwrap() error { return e.err }

// deferModule makes the module of a route module whose code has not
// loaded yet, from what its custom sections declare: a start then costs
// reading the files and compiling the contracts, not compiling every
// module's code (wazero decodes and validates a whole module even when the
// compilation cache holds it, about 50 ms for a 4 MB Go module). It
// reports false, for the eager load to say what is wrong, when the module
// lacks an abi.SectionABIVersion section naming this host's version or
// its sections do not parse: endpoints build writes both sections only
// after loading the module as the host does, so a module with them has
// passed a full load once.
//
// The code loads in the background (startCompiles) or at the first
// request, which waits for it, from the compilation cache or else in the
// interpreter, the compiler following in the background; either way it is
// then checked as an eager load checks it, and must declare the very
// contract of the section. A
// module that fails then is logged, its route answers 500, and
// Host.WaitCompiled reports it.
func (e *engine) deferModule(wasm []byte, rf routefile.Route, poolSize int) (*module, bool, error) {
	if v, ok, err := wasmbin.Custom(wasm, abi.SectionABIVersion); err != nil || !ok || string(v) != strconv.Itoa(abi.Version) {
		return nil, false, nil
	}
	section, err := readSections(wasm, rf.File)
	if err != nil {
		return nil, false, nil
	}
	hook, err := wasmbin.ExportsFunction(wasm, abi.ExportOnValidationError)
	if err != nil {
		return nil, false, nil
	}
	m := &module{file: rf.File, contractJSON: section, hookExported: hook}
	if section != nil {
		if err := checkContractSize(section, rf.File); err != nil {
			return nil, true, err
		}
		if m.contract, err = contract.Parse(rf.File, section, contract.Options{Method: rf.Method}); err != nil {
			return nil, true, err
		}
	}
	m.pool = newPool(e, nil, rf.File, poolSize)
	m.pool.deferred = &deferredCode{wasm: wasm, rf: rf, contractJSON: section, done: make(chan struct{})}
	e.background.add()
	e.queueMu.Lock()
	e.queue = append(e.queue, m.pool)
	e.queueMu.Unlock()
	return m, true, nil
}

// awaitCode loads the pool's deferred code, unless the background loader
// already does, and waits for it until ctx is done. A request loads it
// with the interpreter when the cache does not hold it, so that it
// answers in a fraction of a second; the background compiler replaces
// that code later.
func (p *pool) awaitCode(ctx context.Context) error {
	d := p.deferred
	select {
	case <-d.done:
		return d.result()
	default:
	}
	p.engine.loadDeferred(p, true)
	var halt <-chan struct{}
	if c := callFrom(ctx); c != nil {
		halt = c.stopped()
	}
	select {
	case <-d.done:
		return d.result()
	case <-halt:
		return fmt.Errorf("waiting for the code of %s: the host is shutting down", p.file)
	case <-ctx.Done():
		return fmt.Errorf("waiting for the code of %s to load: %w", p.file, ctx.Err())
	}
}

// result is what a request gets once the load is done: nil, or the
// failure its route answers 500 for.
func (d *deferredCode) result() error {
	if d.err != nil {
		return &moduleFailedError{d.err}
	}
	return nil
}

// loadDeferred starts loading p's deferred code unless it started; it
// does not wait (see deferredCode.done).
func (e *engine) loadDeferred(p *pool, mayInterpret bool) {
	d := p.deferred
	d.start.Do(func() {
		go func() {
			defer close(d.done)
			ctx := context.Background()
			in, b, err := e.openCode(ctx, p, d.wasm, d.rf, mayInterpret)
			if err == nil && !bytes.Equal(b, d.contractJSON) {
				// openCode returns the section's bytes when there is
				// one: only a plain route's code can differ here.
				in.close(ctx)
				p.dropCode(ctx)
				err = fmt.Errorf("%s: its %s export declares a contract but the module has no %s section: rebuild it with endpoints build", d.rf.File, abi.ExportContract, abi.SectionContract)
			}
			d.wasm = nil
			if err != nil {
				d.err = err
				if !errors.Is(err, errRetired) && !e.stopping() {
					e.queueMu.Lock()
					e.deferredFailed = append(e.deferredFailed, err)
					e.queueMu.Unlock()
					e.logger.Error("route module failed to load; its route answers 500 until it is fixed", "module", d.rf.File, "error", err)
				}
				return
			}
			p.park(in)
		}()
	})
}
