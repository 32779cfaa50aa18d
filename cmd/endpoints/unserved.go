package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// unserved says what serves in place of s, a module that failed to build
// in app: its previous file, when the app has one, keeps serving (a failed
// build never replaces it); without one, none of what s builds serves, and
// a bundle's line says how many routes that is, since a package its routes
// share that does not compile keeps every route of its bundle out (dev
// builds a bundle without a route package that does not compile alone:
// uncompiledError).
func unserved(app string, s guestbuild.Source) string {
	if _, err := os.Stat(filepath.Join(app, filepath.FromSlash(s.Module))); err == nil {
		return "the previous version of " + s.Module + " keeps serving"
	}
	what := "its route does not serve"
	if contents := s.Contents(); contents != "" {
		what = "its " + contents + " do not serve"
		if len(s.Routes) == 1 {
			what = "its " + contents + " does not serve"
		}
	}
	return fmt.Sprintf("%s has no previous version: %s until a saved fix builds it", s.Module, what)
}

// uncompiledError is the error of a route that dev left out of the bundle
// module (u, guestbuild.Uncompiled): its package does not compile, and
// what serves in its place.
func uncompiledError(module string, u guestbuild.Uncompiled) error {
	what := "its route"
	if r, err := guestbuild.BundleEntry(u.Route); err == nil {
		what = r
	}
	return fmt.Errorf("%s does not compile, and %s is built without it: %s keeps its previous version serving, or without one answers 404 naming these errors, until a saved fix builds it:\n%s",
		u.Route.Path, module, what, u.Errors)
}
