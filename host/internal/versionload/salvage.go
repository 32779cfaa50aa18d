package versionload

import (
	"slices"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
)

// salvageDocument is what a development load does whose document failed
// to build (cause) while no whole version serves yet (the first start, or
// every version since): instead of a table that answers 500 everywhere, it
// serves a table without what the document cannot be built with, and
// reports that. The route modules are taken in file order, each kept when
// the document still builds with it: of two that collide, the later one is
// left out (of a bundle, the route alone: routetable.Table.Salvage). Then, if the document with the runtime declaration's fragment
// and extend step still fails, those are left out. It reports false, and
// changes nothing, when even that does not build (the embedder's
// Options.OpenAPI fails, or the routes configuration alone): the table then
// fails closed, as before.
//
// What is left out is held (routetable.Table.Hold) and tried again at the
// next reload, so that fixing either side of a collision serves the whole app.
func (l *loading) salvageDocument(cause error) bool {
	t := l.t
	trial := *t
	build := func(routes []*routemod.Route) error {
		trial.Routes, trial.Warnings = routes, nil
		_, err := buildRoutesDocument(&trial, l.cfg.Development)
		return err
	}
	if build(nil) != nil {
		return false
	}
	kept, leftOut := t.Salvage(build)
	trial.Routes, trial.Warnings = kept, nil
	doc, err := l.buildDocument(&trial)
	if err != nil && t.Runtime != nil && t.Runtime.Declaration().OpenAPI != nil {
		trial.RuntimeDocOut = &document.LeftOutError{File: abi.RuntimeModule, Field: "openApi", Err: err}
		trial.Warnings = nil
		if doc, err = l.buildDocument(&trial); err == nil {
			leftOut = append(leftOut, trial.RuntimeDocOut)
		}
	}
	if err != nil {
		return false
	}
	l.cfg.Logger.Debug("the document was built without what it failed on", "cause", cause)
	if err := t.Hold(kept, leftOut); err != nil {
		return false
	}
	t.Warnings, t.Doc, t.RuntimeDocOut = trial.Warnings, doc, trial.RuntimeDocOut
	t.LeftOut = leftOut
	for _, p := range leftOut {
		// Reported once: a reload that leaves the same out again does
		// not report it anew.
		fresh := l.prev == nil || !slices.ContainsFunc(l.prev.LeftOut, func(old error) bool { return old.Error() == p.Error() })
		l.Problem(p, fresh)
	}
	return true
}
