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
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startJanitor starts the host's janitor with a ticker of its own.
func (h *Host) startJanitor() {
	every := limitInstanceIdleTimeout(h.opts.Limits) / 2
	ticker := time.NewTicker(every)
	h.janitor = &janitor{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer ticker.Stop()
		h.sweepLoop(ticker.C, h.janitor)
	}()
}

// sweepLoop sweeps at every tick until the janitor stops.
func (h *Host) sweepLoop(tick <-chan time.Time, j *janitor) {
	defer close(j.done)
	for {
		select {
		case now := <-tick:
			h.sweep(now)
		case <-j.stop:
			return
		}
	}
}

// stopJanitor stops the janitor and waits for its sweep to end.
func (h *Host) stopJanitor() {
	if j := h.janitor; j != nil {
		j.once.Do(func() { close(j.stop) })
		<-j.done
	}
}

// sweep closes, in every pool of the current table, the instances idle
// since before now minus the idle timeout, but one per pool, and sweeps
// the store when it is a storage.Sweeper. It reports how many instances
// it closed.
func (h *Host) sweep(now time.Time) int {
	cutoff := now.Add(-limitInstanceIdleTimeout(h.opts.Limits))
	ctx := context.Background()
	t := h.table.Load()
	n := 0
	for _, f := range t.files {
		if p := f.pool(); p != nil {
			n += p.Trim(ctx, cutoff)
		}
	}
	if t.runtime != nil {
		n += t.runtime.pool.Trim(ctx, cutoff)
	}
	for _, m := range t.middleware {
		n += m.pool.Trim(ctx, cutoff)
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
