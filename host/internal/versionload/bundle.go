package versionload

import (
	"maps"
	"slices"

	"github.com/wasmendpoints/endpoints/host/internal/bundle"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
)

// bundledMiddleware adds the middleware the table's bundles serve to those
// of server/middleware, in name order (bundle.MergeMiddleware). One whose
// name another middleware of the app has already is a problem, and left
// out.
func (l *loading) bundledMiddleware() {
	t := l.t
	var bundles [][]*edge.Middleware
	for _, f := range slices.Sorted(maps.Keys(t.Files)) {
		lf := t.Files[f]
		for _, r := range slices.Concat(lf.Routes, lf.Held) {
			if r.Module == nil || r.Module.Middleware == nil {
				continue
			}
			bundles = append(bundles, r.Module.Middleware)
			break // the bundle's routes share one list
		}
	}
	var problems []error
	t.Middleware, problems = bundle.MergeMiddleware(t.Middleware, bundles)
	for _, p := range problems {
		l.Problem(p, true)
	}
}
