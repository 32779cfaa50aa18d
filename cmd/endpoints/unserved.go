package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	missing "github.com/wasmendpoints/endpoints/internal/unserved"
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

// failedBuilds are the sources of the app whose last build failed, by
// module, and the routes they leave out, for a development 404 at one of
// them to name (host.Options.Unserved): a bare 404 hid that the route is
// there and did not build. A nil *failedBuilds knows of none. Builds note
// their results from any goroutine; the host asks concurrently.
type failedBuilds struct {
	mu     sync.Mutex
	failed map[string]guestbuild.Source // by module
	routes atomic.Pointer[missing.Routes]
	// left are the texts the last build of each bundle declared its
	// left-out routes failed with (guestbuild.Uncompiled.Declared), by
	// module: the build printed them.
	left map[string][]string
}

// leftOut records the routes the last build of module left out for not
// compiling (none: the build linked every route), whose errors the build
// printed: the load's problems of those routes repeat them (reported).
func (f *failedBuilds) leftOut(module string, routes []guestbuild.Uncompiled) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(routes) == 0 {
		delete(f.left, module)
		return
	}
	if f.left == nil {
		f.left = map[string][]string{}
	}
	texts := make([]string, len(routes))
	for i, u := range routes {
		texts[i] = u.Declared()
	}
	f.left[module] = texts
}

// reported reports whether err is the host's problem of a route a build
// left out for not compiling ("server/bundles/go.wasm (GET /api/x):
// handlers/x does not compile:\n..."), whose compiler errors the build
// printed already: dev prints them once, where the build says what
// serves instead.
func (f *failedBuilds) reported(err error) bool {
	if f == nil || err == nil {
		return false
	}
	text := err.Error()
	f.mu.Lock()
	defer f.mu.Unlock()
	for module, texts := range f.left {
		if !strings.HasPrefix(text, module+" (") {
			continue
		}
		for _, declared := range texts {
			if strings.HasSuffix(text, "): "+declared) {
				return true
			}
		}
	}
	return false
}

// unreported is errs without those reported.
func (f *failedBuilds) unreported(errs []error) []error {
	var out []error
	for _, err := range errs {
		if !f.reported(err) {
			out = append(out, err)
		}
	}
	return out
}

// failing reports whether the last build of module failed.
func (f *failedBuilds) failing(module string) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.failed[module]
	return ok
}

// note records the result of a build of s: a failure, or a success that
// ends its module's.
func (f *failedBuilds) note(s guestbuild.Source, failed bool) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed == nil {
		f.failed = map[string]guestbuild.Source{}
	}
	if failed {
		f.failed[s.Module] = s
	} else {
		delete(f.failed, s.Module)
	}
	f.publish()
}

// keep forgets the failed builds of modules none of sources builds (a
// source deleted, or its routes moved to another module): their routes
// are no longer the app's.
func (f *failedBuilds) keep(sources []guestbuild.Source) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.failed)
	maps.DeleteFunc(f.failed, func(m string, _ guestbuild.Source) bool {
		return !slices.ContainsFunc(sources, func(s guestbuild.Source) bool { return s.Module == m })
	})
	if len(f.failed) != n {
		f.publish()
	}
}

// publish makes the routes of f.failed what Note reads; f.mu is held.
func (f *failedBuilds) publish() {
	var u missing.Routes
	const why = "did not build: see the build's error above"
	for _, m := range slices.Sorted(maps.Keys(f.failed)) {
		s := f.failed[m]
		if len(s.Routes) == 0 { // a module of one route: its file says it
			u.AddFile(m, why)
			continue
		}
		for _, r := range s.Routes { // a bundle's: each its own module's route
			if rf, err := routefile.Parse(r.Module); err == nil {
				u.Add(rf.String(), m, why)
			}
		}
	}
	f.routes.Store(&u)
}

// Note is the note of the route of a failed build at escapedPath; "" when
// none is there (host.Options.Unserved).
func (f *failedBuilds) Note(escapedPath string) string {
	if f == nil {
		return ""
	}
	return f.routes.Load().Note(escapedPath)
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
