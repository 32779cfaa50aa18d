package routetable

import (
	"errors"
	"maps"
	"slices"

	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// Salvage is what a development load keeps of t's routes when the
// OpenAPI document cannot be built with all of them: the route modules are
// taken in file order, each kept when build, the document's build with
// the routes given, still succeeds with it and those kept before it; of
// two that collide, the later one is left out. It returns the routes kept
// and, for each file left out, a *document.LeftOutError saying why. t is
// not changed (see Hold).
func (t *Table) Salvage(build func(routes []*routemod.Route) error) (kept []*routemod.Route, leftOut []error) {
	for _, f := range slices.Sorted(maps.Keys(t.Files)) {
		lf := t.Files[f]
		if len(lf.Routes) == 0 {
			continue
		}
		with := append(slices.Clone(kept), lf.Routes...)
		if err := build(with); err != nil {
			leftOut = append(leftOut, &document.LeftOutError{File: f, Field: document.ContractField(err), Err: err})
			continue
		}
		kept = with
	}
	return kept, leftOut
}

// Hold makes t serve kept alone (Salvage's): its router is made anew, and
// each file with a *document.LeftOutError among leftOut holds its routes
// (File.Held) with that error, for the next load to try again. On error,
// which the routes' registration in t's router already excludes, t is
// unchanged.
func (t *Table) Hold(kept []*routemod.Route, leftOut []error) error {
	var rt router.Router[*routemod.Route]
	for _, r := range kept {
		if err := r.Register(&rt); err != nil {
			return err
		}
	}
	for _, p := range leftOut {
		lo := (*document.LeftOutError)(nil)
		if !errors.As(p, &lo) {
			continue
		}
		if lf := t.Files[lo.File]; lf != nil && len(lf.Routes) > 0 {
			t.Files[lo.File] = &File{Hash: lf.Hash, Err: p, Held: lf.Routes}
		}
	}
	t.Router, t.Routes = rt, kept
	return nil
}
