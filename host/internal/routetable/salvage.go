package routetable

import (
	"cmp"
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
// two that collide, the later one is left out. A bundle that does not fit
// whole is taken route by route, so that only its routes that collide are
// left out (one bundle holds every Go route of an app). It returns the
// routes kept and, for each file or bundle route left out, a
// *document.LeftOutError saying why (its Route set for a bundle's route).
// t is not changed (see Hold).
func (t *Table) Salvage(build func(routes []*routemod.Route) error) (kept []*routemod.Route, leftOut []error) {
	for _, f := range slices.Sorted(maps.Keys(t.Files)) {
		lf := t.Files[f]
		if len(lf.Routes) == 0 {
			continue
		}
		with := append(slices.Clone(kept), lf.Routes...)
		err := build(with)
		if err == nil {
			kept = with
			continue
		}
		if !bundled(lf.Routes) {
			leftOut = append(leftOut, &document.LeftOutError{File: f, Field: document.ContractField(err), Err: err})
			continue
		}
		for _, r := range lf.Routes {
			with := append(slices.Clone(kept), r)
			if err := build(with); err != nil {
				leftOut = append(leftOut, &document.LeftOutError{File: f, Route: r.FileRoute.String(), Field: document.ContractField(err), Err: err})
				continue
			}
			kept = with
		}
	}
	return kept, leftOut
}

// bundled reports whether routes are a bundle's (abi/README.md §9), each
// of which Salvage may leave out alone.
func bundled(routes []*routemod.Route) bool {
	return len(routes) > 0 && routes[0].Module != nil && routes[0].Module.Index >= 0
}

// Hold makes t serve kept alone (Salvage's): its router is made anew, and
// each file with a *document.LeftOutError among leftOut holds the routes
// left out (File.Held: all of them, or a bundle's routes named by the
// errors, the others still serving) with that error, for the next load to
// try again. On error, which the routes' registration in t's router
// already excludes, t is unchanged.
func (t *Table) Hold(kept []*routemod.Route, leftOut []error) error {
	var rt router.Router[*routemod.Route]
	for _, r := range kept {
		if err := r.Register(&rt); err != nil {
			return err
		}
	}
	errs := map[string][]error{} // by file
	for _, p := range leftOut {
		lo := (*document.LeftOutError)(nil)
		if errors.As(p, &lo) {
			errs[lo.File] = append(errs[lo.File], p)
		}
	}
	for f, fileErrs := range errs {
		lf := t.Files[f]
		if lf == nil || len(lf.Routes) == 0 {
			continue
		}
		served, held := []*routemod.Route(nil), []*routemod.Route(nil)
		for _, r := range lf.Routes {
			if slices.Contains(kept, r) {
				served = append(served, r)
			} else {
				held = append(held, r)
			}
		}
		err := fileErrs[0]
		if len(fileErrs) > 1 {
			err = errors.Join(fileErrs...)
		}
		t.Files[f] = &File{Hash: lf.Hash, Routes: served, Err: err, Held: held}
	}
	t.Router, t.Routes = rt, kept
	return nil
}

// served is what a load serves of a file that a development load held
// (Hold) and whose bytes did not change: its routes served and held, in
// the module's order (a bundle's by route index), tried with the document
// again.
func (f *File) served() []*routemod.Route {
	routes := slices.Concat(f.Routes, f.Held)
	slices.SortStableFunc(routes, func(a, b *routemod.Route) int {
		if a.Module == nil || b.Module == nil {
			return 0
		}
		return cmp.Compare(a.Module.Index, b.Module.Index)
	})
	return routes
}

// Failed is the error of the route that would answer method and
// escapedPath had it loaded: a bundle's route its module declares failed
// (a Go route that does not compile, in development) or the route of a
// module that failed to load, which serves no previous version; nil when
// none. A development 404 names it.
func (t *Table) Failed(method, escapedPath string) error {
	var rt router.Router[error]
	for _, f := range slices.Sorted(maps.Keys(t.Files)) {
		lf := t.Files[f]
		routemod.AddFailed(&rt, f, lf.Err, len(lf.Routes) > 0)
	}
	if res := rt.Match(method, escapedPath); res.Found && res.Allowed {
		return res.Value
	}
	return nil
}
