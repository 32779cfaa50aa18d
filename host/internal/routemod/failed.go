package routemod

import (
	"errors"

	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// AddFailed adds to rt the routes of the route module file that did not
// load, each with its error, from err, the file's load error: the routes
// a bundle declares failed (a *bundle.FailedRouteError among err's: a Go
// route whose registration panicked, or one endpoints dev linked without
// its package, which does not compile), or the route a module of one
// route names when it failed whole (served false), so that a development
// 404 can say why a route does not serve. A bundle's other refused routes
// (a contract refused) are not among them.
func AddFailed(rt *router.Router[error], file string, err error, served bool) {
	if err == nil {
		return
	}
	if bundle.IsModule(file) {
		for _, e := range leaves(err) {
			if fr := (*bundle.FailedRouteError)(nil); errors.As(e, &fr) {
				_ = rt.Add(fr.Route, e) // a route claimed twice: the first says why
			}
		}
		return
	}
	if served {
		return
	}
	if rf, perr := routefile.Parse(file); perr == nil {
		_ = rt.Add(rf, err)
	}
}

// leaves are the errors err joins (a *RefusedError's, one per route), or
// err alone.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}
