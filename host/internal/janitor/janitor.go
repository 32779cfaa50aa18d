// Package janitor runs the host's sweeps of idle instances: one goroutine
// per host that, every half idle timeout, asks a [Sweeper] to close what
// has been idle since before a cutoff, so that an instance idle for longer
// than the timeout is closed within one and a half timeouts.
//
// What a sweep closes (the pools of the route table in effect, the store's
// expired entries) is the host's; the janitor owns the clock and its
// goroutine.
package janitor

import (
	"sync"
	"time"
)

// Sweeper is what a janitor sweeps.
type Sweeper interface {
	// Sweep closes what has been idle since before cutoff. The janitor
	// calls it from its own goroutine, one sweep at a time.
	Sweep(cutoff time.Time)
}

// Janitor is a goroutine sweeping a Sweeper until Close.
type Janitor struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// Start returns a janitor sweeping s every idle/2 with a ticker of its own,
// each sweep with the cutoff idle before its tick. idle must be positive.
func Start(idle time.Duration, s Sweeper) *Janitor {
	ticker := time.NewTicker(idle / 2)
	j := newJanitor()
	go func() {
		defer ticker.Stop()
		j.loop(ticker.C, idle, s)
	}()
	return j
}

// Run returns a janitor sweeping s at every time received on tick, with
// the cutoff idle before that time: a clock of the caller's, for tests.
func Run(tick <-chan time.Time, idle time.Duration, s Sweeper) *Janitor {
	j := newJanitor()
	go j.loop(tick, idle, s)
	return j
}

func newJanitor() *Janitor {
	return &Janitor{stop: make(chan struct{}), done: make(chan struct{})}
}

// loop sweeps at every tick until the janitor stops.
func (j *Janitor) loop(tick <-chan time.Time, idle time.Duration, s Sweeper) {
	defer close(j.done)
	for {
		select {
		case now := <-tick:
			s.Sweep(now.Add(-idle))
		case <-j.stop:
			return
		}
	}
}

// Close stops the janitor, if there is one (Close of a nil *Janitor does
// nothing), and waits for its sweep in progress to end. It may be called
// more than once.
func (j *Janitor) Close() {
	if j != nil {
		j.once.Do(func() { close(j.stop) })
		<-j.done
	}
}
