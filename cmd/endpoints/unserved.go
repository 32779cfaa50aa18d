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
// a bundle's line says how many routes that is, since one package that
// does not compile keeps every route of its bundle out.
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
