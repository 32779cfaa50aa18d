package host

import (
	"slices"
	"strings"
)

// PoolStats is the state of one route module's pool of instances, read
// when [Host.Pools] is called: what a metrics scrape reports as gauges.
//
// # Notes
//
//   - In development, a bundle whose new version refused some of its
//     routes keeps its previous version serving them: the module then has
//     two pools (or more), whose numbers are added up here, so that a
//     module is reported once.
type PoolStats struct {
	// Module is the route module, relative to the app
	// (server/api/users/[id].get.wasm); Route its template
	// (/api/users/:id). Two modules may share a route template (one per
	// method), never a Module.
	Module, Route string
	// Max is the most instances the pool makes (limits.instances).
	Max int
	// InUse counts the instances serving a call, or being made for one.
	InUse int
	// Idle counts the instances waiting for a call; the janitor closes
	// those beyond one after limits.instanceIdleTimeout.
	Idle int
	// MemoryBytes is the linear memory of the pool's instances: of the
	// idle ones now, of those in use as it was when their call took them.
	MemoryBytes int64
}

// Pools returns the state of the pools of the route modules the host
// serves now, one per module, sorted by module. It takes each pool's lock
// briefly, so it may be called at every scrape.
func (h *Host) Pools() []PoolStats {
	t := h.table.Load()
	out := make([]PoolStats, 0, len(t.Files))
	for _, f := range t.Files {
		pools := f.Pools()
		if len(pools) == 0 {
			continue
		}
		s := PoolStats(pools[0].Stats())
		for _, p := range pools[1:] {
			// A previous version of the bundle, serving the routes its
			// new version refused: one module, one series.
			o := p.Stats()
			s.Max += o.Max
			s.InUse += o.InUse
			s.Idle += o.Idle
			s.MemoryBytes += o.MemoryBytes
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b PoolStats) int { return strings.Compare(a.Module, b.Module) })
	return out
}
