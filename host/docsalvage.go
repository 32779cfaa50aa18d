package host

import (
	"slices"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/document"
)

// salvageDocument is what a development load does whose document failed
// to build (cause) while no whole version serves yet (the first start, or
// every version since): instead of a table that answers 500 everywhere, it
// serves a table without what the document cannot be built with, and
// reports that. The route modules are taken in file order, each kept when
// the document still builds with it: of two that collide, the later one is
// left out. Then, if the document with the runtime declaration's fragment
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
	build := func(routes []*route) error {
		trial.Routes, trial.warnings = routes, nil
		_, err := buildRoutesDocument(&trial, l.h.opts.Mode)
		return err
	}
	if build(nil) != nil {
		return false
	}
	kept, leftOut := t.Salvage(build)
	trial.Routes, trial.warnings = kept, nil
	doc, err := l.h.buildDocument(l.ctx, &trial)
	if err != nil && t.runtime != nil && t.runtime.Declaration().OpenAPI != nil {
		trial.runtimeDocOut = &document.LeftOutError{File: abi.RuntimeModule, Field: "openApi", Err: err}
		trial.warnings = nil
		if doc, err = l.h.buildDocument(l.ctx, &trial); err == nil {
			leftOut = append(leftOut, trial.runtimeDocOut)
		}
	}
	if err != nil {
		return false
	}
	l.h.logger.Debug("the document was built without what it failed on", "cause", cause)
	if err := t.Hold(kept, leftOut); err != nil {
		return false
	}
	t.warnings, t.doc, t.runtimeDocOut = trial.warnings, doc, trial.runtimeDocOut
	t.leftOut = leftOut
	for _, p := range leftOut {
		// Reported once: a reload that leaves the same out again does
		// not report it anew.
		fresh := l.prev == nil || !slices.ContainsFunc(l.prev.leftOut, func(old error) bool { return old.Error() == p.Error() })
		l.Problem(p, fresh)
	}
	return true
}

// noteLeftOut lists what t's document was built without in the document
// itself (document.ProblemsExtension), for the docs page and every reader
// of the development document.
func noteLeftOut(t *table) {
	if t.doc != nil {
		// Encoding a list of strings does not fail.
		_ = document.NoteLeftOut(t.doc.Doc, t.leftOut)
	}
}

// leftOutLines are the texts of what t left out, for the docs page.
func (t *table) leftOutLines() []string {
	if len(t.leftOut) == 0 {
		return nil
	}
	lines := make([]string, len(t.leftOut))
	for i, p := range t.leftOut {
		lines[i] = p.Error()
	}
	return lines
}
