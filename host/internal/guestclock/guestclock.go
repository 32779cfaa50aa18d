// Package guestclock holds one guest call to its time: the deadline the
// interrupt check compares with the clock, the end of the call it never
// passes, the idle timeout a streaming answer's writes move the deadline
// by, and the flag that stops the call now (docs/spec.md §4, "timeout"
// and "idleTimeout").
//
// A [Clock] is a field of the host's per-request call: it is started
// for each request ([Clock.Start]) and costs no allocation. It is owned
// by the goroutine serving the request, apart from [Clock.Stop] and what
// reads its flag, which any goroutine may call.
package guestclock

import (
	"sync/atomic"
	"time"
)

// Clock is the time of one guest call. The zero Clock has expired; start
// it with [Clock.Start] or [Clock.Follow].
type Clock struct {
	// base is the time deadline and until count from: the call's start,
	// or the deadline it is bound to. Made by time.Now, it carries a
	// monotonic reading, so that Expired, asked after every host
	// function, reads the monotonic clock alone (time.Since), about half
	// of what time.Now costs.
	base time.Time
	// deadline is when the guest is stopped, until when it ends, both
	// after base: with an idle timeout, deadline is the last activity
	// plus idle, never past until; without, it is until.
	deadline, until time.Duration
	// timeout is the call's length and idle its idle timeout, 0 for none.
	timeout, idle time.Duration
	// started says base is when the call began (Start, Follow), so no
	// earlier than now; a bound clock's base is its deadline.
	started bool
	// codeWait is how long the call waited for the host to load its
	// module's code, which base was moved by (WaitedForCode);
	// instanceWait how long it waited for a free instance, which counts
	// (WaitedForInstance).
	codeWait, instanceWait time.Duration
	// given is what of codeWait base was moved by, at most timeout; a
	// following clock takes its owner's, so that the two move alike.
	given time.Duration
	stop  atomic.Bool
}

// Start starts the clock of a call that begins at now and may run for
// timeout, and for idle without activity when idle > 0. The call is no
// longer stopped.
func (c *Clock) Start(now time.Time, timeout, idle time.Duration) {
	c.base, c.deadline, c.until, c.timeout, c.idle, c.started = now, timeout, timeout, timeout, idle, true
	c.codeWait, c.instanceWait, c.given = 0, 0, 0
	c.stop.Store(false)
	c.Active(now)
}

// Bound starts the clock of a call held only to a deadline, with no
// length of its own (a module's code run at load, bounded by
// limits.loadTimeout). The call is no longer stopped.
func (c *Clock) Bound(deadline time.Time) {
	c.base, c.deadline, c.until, c.timeout, c.idle, c.started = deadline, 0, 0, 0, 0, false
	c.codeWait, c.instanceWait, c.given = 0, 0, 0
	c.stop.Store(false)
}

// Follow starts the clock of a call made for another one (a middleware
// call for its request): it ends when o's deadline passes, with o's
// timeout and no idle timeout of its own. It is not stopped.
func (c *Clock) Follow(o *Clock) {
	c.base, c.deadline, c.until, c.timeout, c.idle, c.started = o.base, o.deadline, o.until, o.timeout, 0, o.started
	c.codeWait, c.instanceWait, c.given = 0, 0, o.given
	c.stop.Store(false)
}

// WaitedForCode notes that the call waited d for the host to load its
// module's code (a route module deferred at start, its first request) and
// gives that time back: the deadline and the end move d later. The wait is
// the host's, not the handler's; it is itself bounded by the deadline
// (engine.Pool.Get), and what the clock gives back in all is at most its
// timeout, so a request still ends within twice its timeout, whatever
// number of modules it waited for (a bundled middleware's, then its
// route's of another bundle). A clock bound to a deadline (Bound) is not
// moved.
//
// # Notes
//
//   - A middleware call waits for its request (Follow copies the clock,
//     and what it gave back): the host moves both clocks, alike.
func (c *Clock) WaitedForCode(d time.Duration) {
	c.codeWait += d
	if c.started {
		give := min(d, c.timeout-c.given)
		c.given += give
		c.base = c.base.Add(give)
	}
}

// WaitedForInstance notes that the call waited d for a free instance of
// its route (limits.instances): that wait uses up the deadline, and the
// failure's reason says how much of it.
func (c *Clock) WaitedForInstance(d time.Duration) { c.instanceWait += d }

// CodeWait is how long the call waited for its module's code, for
// messages (WaitedForCode).
func (c *Clock) CodeWait() time.Duration { return c.codeWait }

// InstanceWait is how long the call waited for a free instance, for
// messages (WaitedForInstance).
func (c *Clock) InstanceWait() time.Duration { return c.instanceWait }

// Active notes the call's activity at now (a streamed write): with an idle
// timeout, the deadline moves to now plus it, never past the call's end.
func (c *Clock) Active(now time.Time) {
	if c.idle > 0 {
		c.deadline = min(c.until, now.Sub(c.base)+c.idle)
	}
}

// Deadline is when the guest is stopped.
func (c *Clock) Deadline() time.Time { return c.base.Add(c.deadline) }

// Until is when the call ends, whatever its activity.
func (c *Clock) Until() time.Time { return c.base.Add(c.until) }

// Within is the earlier of now plus d and the call's end: when a write
// of the call given d to complete must be done. A started call whose end
// comes within d of its start needs no clock reading (its end comes
// first, whenever now is), which is the usual case: limits.timeout
// (10 s) is shorter than server.writeTimeout (30 s).
func (c *Clock) Within(d time.Duration) time.Time {
	end := c.base.Add(c.until)
	if c.started && c.until <= d {
		return end
	}
	if t := time.Now().Add(d); t.Before(end) {
		return t
	}
	return end
}

// Timeout is the call's length, for messages.
func (c *Clock) Timeout() time.Duration { return c.timeout }

// Idle is the call's idle timeout, 0 for none, for messages.
func (c *Clock) Idle() time.Duration { return c.idle }

// Stop stops the call now: [Clock.Expired] reports true from then on.
// Any goroutine may call it.
func (c *Clock) Stop() { c.stop.Store(true) }

// Expired reports whether the call must stop: it was stopped, or its
// deadline passed. The interrupt check asks it often: a stopped call does
// not read the clock.
func (c *Clock) Expired() bool {
	return c.stop.Load() || time.Since(c.base) > c.deadline
}

// Idled reports whether a call past its deadline passed it by its idle
// timeout rather than its end.
func (c *Clock) Idled() bool {
	return c.idle > 0 && c.deadline < c.until && time.Since(c.base) > c.deadline
}
