// Package breaker refuses, for a while, the calls of a route whose last
// calls all trapped, so that a request storm on a broken route of a
// bundle does not cost its neighbours: each trapped call costs a fresh
// instance and the CPU time the trap took (a Go stack overflow more than
// a second, a busy loop its whole timeout), and the bundle's routes share
// the host's cores and their instances' pool.
//
// A Breaker counts a route's trapped calls in a row. At Threshold it
// opens: calls are refused (the host answers 503 with Retry-After) for
// FirstPause. Then one call at a time is let through, a probe: if it
// traps too, the breaker opens again for twice the last pause, at most
// MaxPause; any call that serves closes it. The host decides what a trap
// is (host/serve.go): a trap, a deadline, os.Exit; not a result code the
// guest returned, a database outage or a client that left.
package breaker

import (
	"sync"
	"sync/atomic"
	"time"
)

const (
	// Threshold is the number of trapped calls in a row that opens a
	// breaker: a route that fails now and then is never refused.
	Threshold = 5
	// FirstPause is how long a breaker refuses calls when it opens.
	FirstPause = time.Second
	// MaxPause bounds the pause, which doubles each time a probe traps.
	MaxPause = 30 * time.Second
)

// Outcome is what became of a call a Breaker let through (Breaker.Done).
type Outcome int

const (
	// Served: the call did not trap (it answered, or failed with a result
	// code the guest returned).
	Served Outcome = iota
	// Trapped: the call trapped or ran past its deadline.
	Trapped
	// Unknown: the call did not run, or ended for a reason not the
	// route's (no instance, a database outage, the client left, the host
	// stopping); it counts neither way.
	Unknown
)

// Change is what Breaker.Done changed: nothing, the breaker opened (or
// opened again after a probe trapped), or it closed.
type Change int

const (
	// Unchanged: the breaker stays as it was.
	Unchanged Change = iota
	// Opened: the breaker refuses calls from now, for the pause Done
	// returns.
	Opened
	// Closed: a call served after the breaker had opened; calls run
	// again.
	Closed
)

// Breaker is the state of one route. Its zero value is closed and ready;
// it is safe for concurrent use, and costs a closed route one atomic load
// a call.
type Breaker struct {
	// open is set while the breaker is open or a probe runs: Allow's
	// fast path reads it alone.
	open atomic.Bool
	// trapped counts the calls in a row that trapped; written under mu,
	// but for its reset by a call that served a closed breaker.
	trapped atomic.Int32

	mu sync.Mutex
	// until is when the pause ends; pause its length.
	until time.Time
	pause time.Duration
	// probing: a probe runs; other calls are refused until it ends.
	probing bool
}

// Allow reports whether a call of the route may run at now. When it may
// not, wait is how long until a probe may (Retry-After). probe reports a
// call let through to probe an open breaker. A call let through must be
// given to Done, with probe.
func (b *Breaker) Allow(now time.Time) (wait time.Duration, probe, ok bool) {
	if !b.open.Load() {
		return 0, false, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.until.IsZero():
		return 0, false, true // closed meanwhile
	case now.Before(b.until):
		return b.until.Sub(now), false, false
	case b.probing:
		return FirstPause, false, false
	}
	b.probing = true
	return 0, true, true
}

// Done notes the outcome of a call Allow let through at now (probe as
// Allow returned it), and returns what changed; when the breaker opened,
// pause is how long it refuses calls and trapped the calls in a row that
// trapped.
func (b *Breaker) Done(now time.Time, out Outcome, probe bool) (change Change, pause time.Duration, trapped int) {
	if out == Served && !b.open.Load() {
		if b.trapped.Load() != 0 {
			b.trapped.Store(0)
		}
		return Unchanged, 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	switch out {
	case Served:
		b.trapped.Store(0)
		if b.until.IsZero() {
			return Unchanged, 0, 0
		}
		b.until, b.pause = time.Time{}, 0
		b.open.Store(false)
		return Closed, 0, 0
	case Trapped:
		n := int(b.trapped.Add(1))
		switch {
		case probe:
			b.pause = min(2*b.pause, MaxPause)
		case b.until.IsZero() && n >= Threshold:
			b.pause = FirstPause
		default:
			return Unchanged, 0, n
		}
		b.until = now.Add(b.pause)
		b.open.Store(true)
		return Opened, b.pause, n
	}
	return Unchanged, 0, int(b.trapped.Load())
}
