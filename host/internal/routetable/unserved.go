package routetable

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/unserved"
)

// Unserved lists the routes of t's modules that failed to load and serve
// nothing in their place, each with its error, for a development 404 to
// name (a 404 of a route whose module is broken hid why): a module of one
// route that failed (its route is its file's), and a bundle's routes it
// refused (routemod.RefusedError). A bundle that failed whole names no
// route: they are in its declaration, which did not load. A route a
// previous version still serves never 404s, so it need not be left out.
func (t *Table) Unserved() *unserved.Routes {
	u := &unserved.Routes{}
	for _, f := range slices.Sorted(maps.Keys(t.Files)) {
		lf := t.Files[f]
		if lf.Err == nil {
			continue
		}
		var re *routemod.RefusedError
		switch {
		case errors.As(lf.Err, &re):
			for _, r := range re.Routes {
				// Each error names its route: "file (GET /api/x): ...".
				why := "did not load"
				if i := slices.IndexFunc(re.Errs, func(err error) bool { return strings.Contains(err.Error(), "("+r+")") }); i >= 0 {
					why += ": " + re.Errs[i].Error()
				}
				u.Add(r, f, why)
			}
		case len(lf.Routes)+len(lf.Held) == 0:
			u.AddFile(f, "did not load: "+lf.Err.Error()) // a bundle that failed whole names none
		}
	}
	return u
}
