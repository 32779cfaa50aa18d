package host

import (
	"context"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

// janitor closes idle instances a burst left behind (see engine.Pool.Trim): one
// goroutine per host, sweeping every pool of the current table every half
// idle timeout, so an instance idle for longer than the timeout is closed
// within one and a half timeouts.
type janitor struct {
	host *Host
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// newJanitor returns a janitor of h that has not started sweeping.
func newJanitor(h *Host) *janitor {
	return &janitor{host: h, stop: make(chan struct{}), done: make(chan struct{})}
}

// startJanitor starts a janitor of h with a ticker of its own.
func startJanitor(h *Host) *janitor {
	every := limitInstanceIdleTimeout(h.opts.Limits) / 2
	ticker := time.NewTicker(every)
	j := newJanitor(h)
	go func() {
		defer ticker.Stop()
		j.loop(ticker.C)
	}()
	return j
}

// loop sweeps at every tick until the janitor stops.
func (j *janitor) loop(tick <-chan time.Time) {
	defer close(j.done)
	for {
		select {
		case now := <-tick:
			j.sweep(now)
		case <-j.stop:
			return
		}
	}
}

// close stops the janitor, if there is one, and waits for its sweep to
// end.
func (j *janitor) close() {
	if j != nil {
		j.once.Do(func() { close(j.stop) })
		<-j.done
	}
}

// sweep closes, in every pool of the current table, the instances idle
// since before now minus the idle timeout, but one per pool, and sweeps
// the store when it is a storage.Sweeper. It reports how many instances
// it closed.
func (j *janitor) sweep(now time.Time) int {
	h := j.host
	cutoff := now.Add(-limitInstanceIdleTimeout(h.opts.Limits))
	ctx := context.Background()
	t := h.table.Load()
	n := 0
	for _, f := range t.files {
		if p := f.pool(); p != nil {
			n += p.Trim(ctx, cutoff)
		}
	}
	if p := t.runtime.livePool(); p != nil {
		n += p.Trim(ctx, cutoff)
	}
	for _, m := range t.middleware {
		n += m.Pool.Trim(ctx, cutoff)
	}
	if n > 0 {
		h.logger.Debug("closed idle instances", "instances", n)
	}
	if s, ok := h.store.(storage.Sweeper); ok {
		// The store's expired entries go too, traffic or not.
		s.Sweep()
	}
	return n
}
