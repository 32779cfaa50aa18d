// Package breaker refuses, for a while, a client's calls to a route when
// that client's last calls to it all trapped, so that a request storm on
// a broken route of a bundle does not cost its neighbours: each trapped
// call costs a fresh instance and the CPU time the trap took (a Go stack
// overflow more than a second, a busy loop its whole timeout), and the
// bundle's routes share the host's cores and their instances' pool.
//
// A Breaker is one route's, and keeps a state per client (the host names
// the client: its verified principal, else its address). A client's state
// counts its trapped calls in a row. At the Policy's Threshold it opens:
// the client's calls are refused (the host answers 503 with Retry-After)
// for FirstPause. Then one of its calls at a time is let through, a
// probe: if it traps too, the client is refused again for twice the last
// pause, at most MaxPause; any of its calls that serves closes it. The
// host decides what a trap is (host/breaker.go): a trap, os.Exit, a
// deadline its guest ran into; not a result code the guest returned, a
// database outage, a call stopped because its client left, nor one whose
// deadline went mostly to waiting for an instance.
//
// What one client sends can thus only refuse that client: a route that
// traps on some input (a crafted body, a bug on one path) cannot be
// turned off for everyone by one client that sends that input and then
// wins each probe. There is no route-wide state on purpose: a rule such
// as "traps from many clients open the route" can be driven by one
// attacker with many addresses (an IPv6 /48 holds 65536 /64s) or many
// accounts (RATIONALE.md).
package breaker

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Policy is when a Breaker refuses a client, from the host's settings
// (endpoints.json's limits: config.Limits' Breaker fields, whose defaults
// are there).
type Policy struct {
	// Threshold is the number of a client's calls in a row that trapped
	// that opens its breaker: a route that fails now and then is never
	// refused.
	Threshold int
	// FirstPause is how long a client is refused when its breaker opens.
	FirstPause time.Duration
	// MaxPause bounds the pause, which doubles each time a probe traps.
	MaxPause time.Duration
	// MaxClients bounds the clients a Breaker keeps a state for; when a
	// new one traps at the bound, the least recent is dropped (it starts
	// closed again when it comes back). Only clients whose last call
	// trapped have a state (one that serves drops it), so an app's real
	// clients rarely take more than a few. A state and its map entry took
	// 96 bytes, measured at 1024 clients, and its key holds at most 68,
	// so 1024 keep a route's breaker under 200 KiB however many addresses
	// a flood comes from. A flood from more addresses than that gets some
	// of its calls past the breaker, which costs CPU time as it would
	// without one (the rate limits are what bounds it); it refuses
	// nobody else.
	MaxClients int
}

// LogEvery is how often at most Done asks the host to log that a client
// of the route is refused (Report.Log): a route many clients trap would
// otherwise log a line per client per pause.
const LogEvery = time.Minute

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

// String names the outcome, for messages.
func (o Outcome) String() string {
	switch o {
	case Served:
		return "Served"
	case Trapped:
		return "Trapped"
	case Unknown:
		return "Unknown"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Change is what Breaker.Done changed for the call's client: nothing, its
// breaker opened (or opened again after a probe trapped), or it closed.
type Change int

const (
	// Unchanged: the client's breaker stays as it was.
	Unchanged Change = iota
	// Opened: the client's calls are refused from now, for Report.Pause.
	Opened
	// Closed: a call of the client served after its breaker had opened;
	// its calls run again.
	Closed
)

// Report is what Breaker.Done tells the host.
type Report struct {
	// Change is what changed for the call's client; when it Opened, Pause
	// is how long it is refused and Trapped its calls in a row that
	// trapped.
	Change  Change
	Pause   time.Duration
	Trapped int
	// Refused is the number of the route's clients whose breaker is open
	// after the call (refused, or probed at their next call).
	Refused int
	// Log: the breaker opened, and no open was logged for the route in
	// the last LogEvery; Opens is then the number of clients' breakers
	// that opened since the last line logged, this one included.
	Log   bool
	Opens int
}

// Breaker is the state of one route's clients. Its zero value is ready;
// it is safe for concurrent use, and costs a route none of whose clients'
// last call trapped one atomic load a call.
type Breaker struct {
	// tracked is len(clients): Allow and Done read it alone while it is
	// 0, the route's usual state.
	tracked atomic.Int32

	mu sync.Mutex
	// clients holds the state of each client whose last call trapped,
	// by the host's key; newest and oldest are the ends of their list by
	// recency of their last call, newest first.
	clients        map[string]*client
	newest, oldest *client
	// refused counts the clients whose breaker is open.
	refused int
	// nextLog is when an open may be logged again; opens counts those
	// not logged since the last line.
	nextLog time.Time
	opens   int
}

// client is one client's state.
type client struct {
	key string
	// trapped counts the client's calls in a row that trapped.
	trapped int
	// until is when the pause ends (zero: closed); pause its length.
	until time.Time
	pause time.Duration
	// probing: a probe of the client runs; its other calls are refused
	// until it ends.
	probing bool
	// newer and older link the recency list.
	newer, older *client
}

// Allow reports whether a call of the route from the client named key may
// run at now under p. When it may not, wait is how long until a probe may
// (Retry-After). probe reports a call let through to probe the client's
// open breaker. A call let through must be given to Done, with the same
// key and probe.
func (b *Breaker) Allow(now time.Time, key string, p Policy) (wait time.Duration, probe, ok bool) {
	if b.tracked.Load() == 0 {
		return 0, false, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.clients[key]
	if c == nil {
		return 0, false, true
	}
	// A refused client that keeps calling stays recent: a flood of
	// other clients drops the states of those that stopped first.
	b.touch(c)
	switch {
	case c.until.IsZero():
		return 0, false, true
	case now.Before(c.until):
		return c.until.Sub(now), false, false
	case c.probing:
		return p.FirstPause, false, false
	}
	c.probing = true
	return 0, true, true
}

// Tracking reports whether the route keeps a state for any client: while
// it does not, Allow lets every call through and Done needs no key for a
// call that served, so the host need not work out who the client is.
func (b *Breaker) Tracking() bool {
	return b.tracked.Load() != 0
}

// Done notes the outcome of a call of the client named key that Allow let
// through at now (probe as Allow returned it), and reports what changed
// under p.
func (b *Breaker) Done(now time.Time, key string, out Outcome, probe bool, p Policy) Report {
	if out != Trapped && b.tracked.Load() == 0 {
		return Report{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.clients[key]
	if c != nil && probe {
		c.probing = false
	}
	switch out {
	case Served:
		if c == nil {
			return Report{Refused: b.refused}
		}
		open := !c.until.IsZero()
		b.remove(c)
		if !open {
			return Report{Refused: b.refused}
		}
		return Report{Change: Closed, Refused: b.refused}
	case Trapped:
		if c == nil {
			c = b.add(key, p.MaxClients)
		}
		b.touch(c)
		c.trapped++
		switch {
		case probe && !c.until.IsZero():
			c.pause = max(min(2*c.pause, p.MaxPause), p.FirstPause)
		case c.until.IsZero() && c.trapped >= p.Threshold:
			c.pause = p.FirstPause
			b.refused++
		default:
			return Report{Trapped: c.trapped, Refused: b.refused}
		}
		c.until = now.Add(c.pause)
		r := Report{Change: Opened, Pause: c.pause, Trapped: c.trapped, Refused: b.refused}
		b.opens++
		if !now.Before(b.nextLog) {
			r.Log, r.Opens = true, b.opens
			b.opens, b.nextLog = 0, now.Add(LogEvery)
		}
		return r
	}
	if c == nil {
		return Report{Refused: b.refused}
	}
	return Report{Trapped: c.trapped, Refused: b.refused}
}

// add makes the state of a new client, closed, dropping the least recent
// clients' while at least maxClients are kept (more when the setting was
// lowered by a reload).
func (b *Breaker) add(key string, maxClients int) *client {
	if b.clients == nil {
		b.clients = make(map[string]*client)
	}
	for len(b.clients) >= max(maxClients, 1) {
		b.remove(b.oldest)
	}
	c := &client{key: key}
	b.clients[key] = c
	b.tracked.Store(int32(len(b.clients)))
	c.older = b.newest
	if b.newest != nil {
		b.newest.newer = c
	}
	b.newest = c
	if b.oldest == nil {
		b.oldest = c
	}
	return c
}

// touch makes c the most recent client.
func (b *Breaker) touch(c *client) {
	if b.newest == c {
		return
	}
	b.unlink(c)
	c.older = b.newest
	b.newest.newer = c
	b.newest = c
}

// remove drops c's state.
func (b *Breaker) remove(c *client) {
	if !c.until.IsZero() {
		b.refused--
	}
	b.unlink(c)
	delete(b.clients, c.key)
	b.tracked.Store(int32(len(b.clients)))
}

// unlink takes c out of the recency list.
func (b *Breaker) unlink(c *client) {
	if c.newer != nil {
		c.newer.older = c.older
	} else {
		b.newest = c.older
	}
	if c.older != nil {
		c.older.newer = c.newer
	} else {
		b.oldest = c.newer
	}
	c.newer, c.older = nil, nil
}
