package host

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/janitor"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// Hooks for the tests of package host_test.

// A database down at a load is tried again within milliseconds in tests
// (TestDatabaseDownAtStart), not seconds.
func init() { dbBackoff = appdb.Backoff{Min: 10 * time.Millisecond, Max: 200 * time.Millisecond} }

// Sweep runs one janitor sweep as if the clock read now, and reports how
// many idle instances it closed.
func (h *Host) Sweep(now time.Time) int {
	return idleSweep{h}.closeIdle(now.Add(-limitInstanceIdleTimeout(h.opts.Limits)))
}

// IdleInstances counts the idle instances of a route module, in each of
// its pools (see ModulePools); -1 for a module the host does not serve.
func (h *Host) IdleInstances(file string) int {
	pools := h.ModulePools(file)
	if len(pools) == 0 {
		return -1
	}
	n := 0
	for _, p := range pools {
		n += p.Idle()
	}
	return n
}

// ModulePool is one pool of a route module, as a test watches it across
// reloads and the host's close. Two are equal when they are the same pool.
type ModulePool struct{ p *engine.Pool }

// Collected returns a channel closed once the garbage collector freed the
// pool: nothing holds it any more, nor the code it kept.
func (p ModulePool) Collected() <-chan struct{} {
	ch := make(chan struct{})
	runtime.AddCleanup(p.p, func(ch chan struct{}) { close(ch) }, ch)
	return ch
}

// ModulePools lists the pools of a route module's routes, served and
// held, each once, in the order of their first route: two for a bundle
// whose new version refused routes that its previous version keeps
// serving. Nil for a file the host does not serve.
func (h *Host) ModulePools(file string) []ModulePool {
	f := h.table.Load().Files[file]
	if f == nil {
		return nil
	}
	var out []ModulePool
	for _, r := range slices.Concat(f.Routes, f.Held) {
		if p := r.Module.Pool; p != nil && !slices.Contains(out, ModulePool{p}) {
			out = append(out, ModulePool{p})
		}
	}
	return out
}

// Idle counts the pool's idle instances.
func (m ModulePool) Idle() int { return m.p.IdleCount() }

// Retired reports whether the pool was retired: its module left the app.
func (m ModulePool) Retired() bool { return m.p.Retired() }

// Stats is the pool's own state.
func (m ModulePool) Stats() PoolStats { return PoolStats(m.p.Stats()) }

// Fill makes the pool hold at least n idle instances (n at most
// limits.instances): it takes n at once, then gives them back.
func (m ModulePool) Fill(ctx context.Context, n int) error {
	taken := make([]*engine.Instance, 0, n)
	defer func() {
		for _, in := range taken {
			m.p.Put(ctx, in, true)
		}
	}()
	for range n {
		in, err := m.p.Get(ctx)
		if err != nil {
			return err
		}
		taken = append(taken, in)
	}
	return nil
}

// RunJanitor replaces the host's janitor with one that sweeps at every
// value sent on tick; stop ends it and returns once its last sweep ended.
func (h *Host) RunJanitor(tick <-chan time.Time) (stop func()) {
	h.janitor.Close()
	h.janitor = janitor.Run(tick, limitInstanceIdleTimeout(h.opts.Limits), idleSweep{h})
	return h.janitor.Close
}

// Drained is closed once the host is closing and every instance is back
// in its pool.
func (h *Host) Drained() <-chan struct{} { return h.engine.Drained() }

// UseGoHeapMemory makes hosts created afterwards keep guest memory in Go
// slices, wazero's default, as before internal/linearmem.
func UseGoHeapMemory() { mappedMemory = false }

// HoldCompiler keeps the host's background compilations from starting
// until release is called: a test sees modules served by the interpreter
// for as long as it needs.
func (h *Host) HoldCompiler() (release func()) { return h.engine.HoldCompiler() }

// Interpreted reports whether the interpreter runs a route module (any
// of its pools: see ModulePools).
func (h *Host) Interpreted(file string) bool {
	return slices.ContainsFunc(h.ModulePools(file), func(p ModulePool) bool { return p.p.Interpreted() })
}

// HasCode reports whether a route module's code has loaded (see
// Options.ServeWhileCompiling: code loaded after New), in each of its
// pools; false for a module the host does not serve.
func (h *Host) HasCode(file string) bool {
	pools := h.ModulePools(file)
	return len(pools) > 0 && !slices.ContainsFunc(pools, func(p ModulePool) bool { return !p.p.HasCode() })
}

// BoundKey is edge.BoundKey, the client part of a rate-limit key.
var BoundKey = edge.BoundKey

// InterpreterUse says what the engine's interpreter tier holds now and
// held at most.
func (h *Host) InterpreterUse() engine.InterpreterUse { return h.engine.InterpreterUse() }

// JoinsTyped reports whether JoinObservers joins hooks of type t without
// reflection at call time.
func JoinsTyped(t reflect.Type) bool { return observerJoiner.Typed(t) }

// DatabaseRetrying reports whether the host tries, in the background, to
// apply the migrations of a database it could not reach.
func (h *Host) DatabaseRetrying() bool {
	return h.dbRetry.Running()
}

// RuntimeInstances counts the idle instances the runtime declaration
// keeps loaded: 0 when its module is closed, -1 without one.
func (h *Host) RuntimeInstances() int {
	rm := h.table.Load().Runtime
	if rm == nil {
		return -1
	}
	if p := rm.LivePool(); p != nil {
		return p.IdleCount()
	}
	return 0
}
