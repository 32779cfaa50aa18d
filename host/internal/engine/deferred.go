package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// deferredCode is the code of a route module that was routed from its
// custom sections before its code loaded: the first request needing an
// instance, or the background loader, whichever comes first, loads it
// (Engine.loadDeferred).
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

// ModuleFailedError is a request's error from [Pool.Get] when its route's
// deferred code failed to load: the route answers 500 until the module is
// fixed.
type ModuleFailedError struct{ err error }

// Error says that the module failed to load, and why.
func (e *ModuleFailedError) Error() string {
	return fmt.Sprintf("the route's module failed to load: %v", e.err)
}

// Unwrap returns why the module failed to load.
func (e *ModuleFailedError) Unwrap() error { return e.err }

// CodeLoadingError is a request's error from [Pool.Get] when its route's
// deferred code did not load within the request's deadline: the load goes
// on, and the request may be retried (the host answers 503 with
// Retry-After).
type CodeLoadingError struct {
	// File is the route's module.
	File string
	// Waited is how long the request waited for the code.
	Waited time.Duration
}

// Error says that the code is still loading, how long the request waited
// and to retry.
func (e *CodeLoadingError) Error() string {
	return fmt.Sprintf("the code of %s is still loading (compiling): it did not load within the request's deadline (%s waited) and goes on loading: retry in a moment", e.File, e.Waited.Round(time.Millisecond))
}

// DeferPool makes the pool of a route module that was routed from its
// custom sections before its code loaded (the host checked the sections
// and their contract), or from the contract its export returned when the
// interpreter ran it, that code since closed: the code loads in the background (StartCompiles)
// or at the first request, which waits for it, from the compilation cache
// or else in the interpreter, the compiler following in the background;
// either way it is then checked as OpenCode checks it, and must declare
// the very contract of the section or export, contractJSON (nil for a
// plain route).
// A module that fails then is logged, its route answers 500 (a
// *ModuleFailedError from Get), and WaitCompiled and DeferredFailed report
// it.
func (e *Engine) DeferPool(wasm []byte, rf routefile.Route, contractJSON []byte, poolSize int) *Pool {
	p := newPool(e, nil, rf.File, poolSize)
	p.deferred = &deferredCode{wasm: wasm, rf: rf, contractJSON: contractJSON, done: make(chan struct{})}
	e.rest.busy()
	e.background.add()
	e.queueMu.Lock()
	e.queue = append(e.queue, p)
	e.queueMu.Unlock()
	return p
}

// awaitCode loads the pool's deferred code, unless the background loader
// already does, and waits for it until ctx is done or its deadline
// passes. A request loads it with the interpreter when the cache does not
// hold it, so that it answers in a fraction of a second; the background
// compiler replaces that code later. A call that is a [Waiter] hears how
// long it waited for code that loaded.
func (p *Pool) awaitCode(ctx context.Context) error {
	d := p.deferred
	select {
	case <-d.done:
		return d.result()
	default:
	}
	began := time.Now()
	p.engine.loadDeferred(p, true)
	var expire <-chan time.Time
	if dl, ok := ctx.Deadline(); ok {
		t := time.NewTimer(time.Until(dl))
		defer t.Stop()
		expire = t.C
	}
	var halt <-chan struct{}
	c := callFrom(ctx)
	if c != nil {
		halt = c.Stopped()
	}
	select {
	case <-d.done:
		err := d.result()
		if w, ok := c.(Waiter); ok && err == nil {
			w.WaitedForCode(time.Since(began))
		}
		return err
	case <-halt:
		return fmt.Errorf("waiting for the code of %s: the host is shutting down", p.file)
	case <-ctx.Done():
		return fmt.Errorf("waiting for the code of %s to load: %w", p.file, ctx.Err())
	case <-expire:
		return &CodeLoadingError{File: p.file, Waited: time.Since(began)}
	}
}

// result is what a request gets once the load is done: nil, or the
// failure its route answers 500 for.
func (d *deferredCode) result() error {
	if d.err != nil {
		return &ModuleFailedError{d.err}
	}
	return nil
}

// loadDeferred starts loading p's deferred code unless it started; it
// does not wait (see deferredCode.done).
func (e *Engine) loadDeferred(p *Pool, mayInterpret bool) {
	d := p.deferred
	d.start.Do(func() {
		go func() {
			defer close(d.done)
			ctx := context.Background()
			if e.loadingHook != nil {
				e.loadingHook()
			}
			in, b, err := e.OpenCode(ctx, p, d.wasm, d.rf, mayInterpret)
			if err == nil && !bytes.Equal(b, d.contractJSON) {
				// OpenCode returns the section's bytes when there is
				// one: only a plain route's code, or the export of a
				// module without sections that ran before, can differ.
				in.Close(ctx)
				p.dropCode(ctx)
				if d.contractJSON == nil {
					err = fmt.Errorf("%s: its %s export declares a contract but the module has no %s section: rebuild it with endpoints build", d.rf.File, abi.ExportContract, abi.SectionContract)
				} else {
					err = fmt.Errorf("%s: its %s export returned another contract than when the host first ran it: it must return the same bytes every time", d.rf.File, abi.ExportContract)
				}
			}
			d.wasm = nil
			if err != nil {
				d.err = err
				if !errors.Is(err, errRetired) && !e.Stopping() {
					e.queueMu.Lock()
					e.deferredFailed = append(e.deferredFailed, err)
					e.queueMu.Unlock()
					e.logger.Error("route module failed to load; its route answers 500 until it is fixed", "module", d.rf.File, "error", err)
				}
				return
			}
			p.Park(in)
		}()
	})
}
