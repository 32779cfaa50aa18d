// Package retire lets a version of the host's route table be replaced
// while requests still use it: each request holds a reference to the
// version it started with ([Refs]), and a replaced version is drained (its
// modules closed) once retired and its last request ended, exactly once.
// What it closes is what it alone holds: the pools another version shares
// stay open ([Exclusive]).
//
// The version, its modules and what draining closes are package
// appversion's.
package retire

import (
	"sync/atomic"

	"github.com/wasmendpoints/endpoints/host/internal/engine"
)

// Refs counts the requests that use one version, and says when it
// drains. The zero value is a version in service with no request. Its
// methods are safe for concurrent use.
//
// A request takes a reference to the version in effect with Hold, and
// drops it with Release if Retired then reports true (the version was
// replaced meanwhile: the request takes the next one), else once it ends.
// The version's replacement calls Retire once it is no longer the one in
// effect. Of Release and Retire, the one call that leaves the version
// retired with no reference reports true: its caller drains the version.
type Refs struct {
	refs    atomic.Int64
	retired atomic.Bool
	drained atomic.Bool
}

// Hold takes a reference for one request.
func (r *Refs) Hold() { r.refs.Add(1) }

// Retired reports whether Retire was called.
func (r *Refs) Retired() bool { return r.retired.Load() }

// Release drops a reference Hold took. It reports true, once, when the
// version is retired and this was its last reference: the caller drains
// it.
func (r *Refs) Release() (drain bool) {
	return r.refs.Add(-1) == 0 && r.retired.Load() && r.drained.CompareAndSwap(false, true)
}

// Retire marks the version replaced: no request takes it any more. It
// reports true, once, when no request holds it: the caller drains it now
// (else the last Release reports it). Retiring a version that was never
// in effect reports true.
func (r *Refs) Retire() (drain bool) {
	r.retired.Store(true)
	return r.refs.Load() == 0 && r.drained.CompareAndSwap(false, true)
}

// Exclusive lists the pools of mine that other does not hold, each once,
// in mine's order: those to close when mine's version drains while
// other's serves. Nil pools are skipped.
func Exclusive(mine, other []*engine.Pool) []*engine.Pool {
	shared := make(map[*engine.Pool]bool, len(other))
	for _, p := range other {
		shared[p] = true
	}
	var out []*engine.Pool
	for _, p := range mine {
		if p != nil && !shared[p] {
			out = append(out, p)
			shared[p] = true // the modules of a bundle's routes and middleware share one
		}
	}
	return out
}
