package host

import (
	"context"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

// idleSweep is the sweep host/internal/janitor runs for a host, every half
// limits.instanceIdleTimeout.
type idleSweep struct{ h *Host }

// Sweep closes idle instances: see closeIdle.
func (s idleSweep) Sweep(cutoff time.Time) { s.closeIdle(cutoff) }

// closeIdle closes, in every pool of the current table (its route
// modules', every version of a bundle that serves routes included, its
// runtime declaration's and its middleware's, each once), the instances
// idle since before cutoff, but one per pool (see engine.Pool.Trim), and sweeps
// the store when it is a storage.Sweeper. It reports how many instances it
// closed.
func (s idleSweep) closeIdle(cutoff time.Time) int {
	h := s.h
	ctx := context.Background()
	t := h.table.Load()
	n := 0
	for _, p := range t.Pools() {
		n += p.Trim(ctx, cutoff)
	}
	if n > 0 {
		h.logger.Debug("closed idle instances", "instances", n)
	}
	if st, ok := h.store.(storage.Sweeper); ok {
		// The store's expired entries go too, traffic or not.
		st.Sweep()
	}
	return n
}
