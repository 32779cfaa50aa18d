package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// closeWait bounds how long Engine.Close waits for calls in flight when
// its context has no earlier deadline. A guest running its own code stops
// within about a millisecond of being told to (the interrupt check); only
// a call blocked in a host function (reading the body of a slow upload,
// writing to a slow client) takes longer, and closes the runtime itself
// when it returns.
const closeWait = 2 * time.Second

// stoppingBit marks lifecycle.out once the engine began to close.
const stoppingBit = 1 << 62

// lifecycle makes closing the runtime safe while calls run.
//
// Closing a wazero runtime closes every module in it, and closing a module
// unmaps its memory (internal/linearmem): a guest still running on another
// goroutine, or a host function writing to its memory, would crash the
// process instead of failing its call. So the engine counts the instances
// out of their pools (Pool.Get to Pool.Put) and closes the runtime only
// when none is:
//
//   - close sets the stopping bit: Pool.Get refuses new calls, and the
//     interrupt check stops running guests (Call.Expired);
//   - it waits until every instance is back, the context is done, or
//     closeWait passed;
//   - it closes the runtime if they are all back; otherwise the last call
//     to give its instance back closes it.
//
// Load-time calls (New, Reload) are not counted: Host.Close holds the
// reload lock, and a Reload after Close refuses to run.
type lifecycle struct {
	out       atomic.Int64 // instances taken, plus stoppingBit once closing
	chOnce    sync.Once
	drainedCh chan struct{} // closed once stopping with nothing out
	drainOnce sync.Once
	shutOnce  sync.Once
	shutErr   error
}

func (l *lifecycle) drained() chan struct{} {
	l.chOnce.Do(func() { l.drainedCh = make(chan struct{}) })
	return l.drainedCh
}

// enter counts an instance about to be taken from a pool; false once the
// engine is closing.
func (e *Engine) enter() bool {
	if e.life.out.Add(1)&stoppingBit != 0 {
		e.leave()
		return false
	}
	return true
}

// leave counts an instance given back (or not taken after all).
func (e *Engine) leave() {
	if e.life.out.Add(-1) == stoppingBit {
		e.life.drainOnce.Do(func() { close(e.life.drained()) })
	}
}

// DrainedNow reports whether the engine began to close and every instance
// came back, so the runtime is closed or about to be.
func (e *Engine) DrainedNow() bool { return e.life.out.Load() == stoppingBit }

// Stopping reports whether the engine began to close: running guests must
// stop at their next interrupt check.
func (e *Engine) Stopping() bool { return e.life.out.Load()&stoppingBit != 0 }

// Close stops the calls in flight, waits for them (see lifecycle), and
// closes the runtime and the compilation cache. It returns an error when
// calls were still out when it stopped waiting; the runtime is closed when
// the last of them returns. Calling it again does nothing.
func (e *Engine) Close(ctx context.Context) error {
	if e.life.out.Or(stoppingBit)&stoppingBit != 0 {
		return nil
	}
	if e.life.out.Load() == stoppingBit {
		e.life.drainOnce.Do(func() { close(e.life.drained()) })
	}
	wait := time.NewTimer(closeWait)
	defer wait.Stop()
	select {
	case <-e.life.drained():
		return e.Shutdown(ctx)
	case <-ctx.Done():
	case <-wait.C:
	}
	n := e.life.out.Load() &^ stoppingBit
	go func() {
		<-e.life.drained()
		if err := e.Shutdown(context.Background()); err != nil {
			e.logger.Warn("closing the runtime after the last call failed", "error", err)
		}
	}()
	return fmt.Errorf("closing the runtime: %d call(s) still in host functions (a slow client?); it closes when they return", n)
}

// Shutdown closes the runtime and the cache, once.
func (e *Engine) Shutdown(ctx context.Context) error {
	e.life.shutOnce.Do(func() {
		// Background work not started stops, and loads in the interpreter
		// finish (a fraction of a second). A compilation already running
		// is abandoned: it cannot be interrupted, takes seconds (past a
		// container's stop grace period on a cold start), and its result
		// would be thrown away. A runtime must not close under its
		// compiler, so the last compilation to end closes the runtimes;
		// a process that exits meanwhile loses nothing but that
		// compilation, which the cache had not sealed.
		if e.closedHook != nil {
			e.closedHook(e.runtimesClosed)
		}
		e.stopOnce.Do(func() { close(e.stopBackground) })
		e.rest.stop()
		e.StartCompiles() // the queued ones see the stop and end
		<-e.background.idle()
		select {
		case <-e.compilers.idle():
			e.life.shutErr = e.closeRuntimes(ctx)
		default:
			go func() {
				<-e.compilers.idle()
				if err := e.closeRuntimes(context.Background()); err != nil {
					e.logger.Warn("closing the runtime after an abandoned compilation failed", "error", err)
				}
			}()
		}
	})
	return e.life.shutErr
}

// closeRuntimes closes the runtimes and the compilation cache.
func (e *Engine) closeRuntimes(ctx context.Context) error {
	defer close(e.runtimesClosed)
	err := e.runtime.Close(ctx)
	if e.interp != nil {
		err = errors.Join(err, e.interp.Close(ctx))
	}
	if e.cache != nil {
		err = errors.Join(err, e.cache.Close(ctx))
	}
	return err
}

// Drained is closed once the engine is closing and every instance is back
// in its pool: for tests.
func (e *Engine) Drained() <-chan struct{} { return e.life.drained() }
