// Package unserved says, of a request no route serves, which route the app
// means to serve would have: one of a module that did not build or load in
// development, whose absence a bare 404 hides (docs/spec.md §2). The host
// keeps one of its table's modules that failed to load, and `endpoints
// dev` one of the sources whose build failed; each is asked at a 404.
package unserved

import (
	"strings"

	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/router"
)

// Routes are the routes of modules that failed, each with a note saying
// so. The zero value is empty and ready to use. Routes are built by one
// goroutine, then only read (Note is safe for concurrent use once no Add
// runs).
type Routes struct {
	rt router.Router[string]
	n  int
}

// Add adds route, as `endpoints routes` prints it ("GET /api/users/:id"),
// of module, with why it does not serve ("did not build: see the build's
// error above"). A route that is not one, or that a route added before
// claims already, is passed over: the first note of a route stays.
//
//	var u unserved.Routes
//	u.Add("GET /api/x", "server/bundles/go.wasm", "did not build: see the build's error above")
//	u.Note("/api/x") // "the route GET /api/x of server/bundles/go.wasm did not build: see ..."
func (u *Routes) Add(route, module, why string) {
	rf, err := routefile.FromRoute(route)
	if err != nil {
		return
	}
	u.add(rf, module, why)
}

// AddFile adds the route of module, a module of one route whose file
// name says its route (docs/spec.md §2: "server/api/users/[id].get.wasm"),
// with why it does not serve. A file whose name is no route's (a bundle's,
// whose routes its declaration says) is passed over.
func (u *Routes) AddFile(module, why string) {
	rf, err := routefile.Parse(module)
	if err != nil {
		return
	}
	u.add(rf, module, why)
}

// add adds rf of module, unless a route added before claims it.
func (u *Routes) add(rf routefile.Route, module, why string) {
	rf.File = module
	if u.rt.Add(rf, "the route "+rf.String()+" of "+module+" "+why) == nil {
		u.n++
	}
}

// Len is the number of routes added.
func (u *Routes) Len() int {
	if u == nil {
		return 0
	}
	return u.n
}

// Note is the note of the routes whose path matches escapedPath (as
// url.URL.EscapedPath gives it), of every method, in method order joined
// with "; ": a 404 answers a path no served route matches, so each failed
// route at the path is one the client may have meant. "" when none
// matches; nil Routes match nothing.
func (u *Routes) Note(escapedPath string) string {
	if u == nil || u.n == 0 {
		return ""
	}
	// No route has the empty method: the match lists the path's methods,
	// unless a route of any method ("*") serves it.
	res := u.rt.Match("", escapedPath)
	if !res.Found {
		return ""
	}
	if res.Allowed {
		return res.Value
	}
	var notes []string
	for _, m := range res.Allow {
		// HEAD and OPTIONS are listed for a path's GET and for every
		// path: only a route of the method itself is one.
		if r := u.rt.Match(m, escapedPath); r.Allowed && r.Route.Method == m {
			notes = append(notes, r.Value)
		}
	}
	return Join(notes...)
}

// Join joins notes with "; ", leaving out empty ones.
func Join(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}
