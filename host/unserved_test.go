package host_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestNotFoundNamesTheUnservedRoute: in development, a 404 at the path of
// a route whose module failed to load (a module of one route, a bundle's
// refused route) or, as the embedder says, to build (Options.Unserved,
// endpoints dev's failed builds) names that route, its module and why, in
// its data's "unserved"; a bare 404 hid that the route the client meant
// exists and is broken. Production says nothing of it.
func TestNotFoundNamesTheUnservedRoute(t *testing.T) {
	t.Parallel()
	const decl = `{"routes": [
  {"route": "GET /api/a", "contract": {"summary": "A"}},
  {"route": "GET /api/c", "contract": {"summary": 7}}
]}`
	a := newApp(t).
		watSource("server/bundles/w.wasm", bundleWAT(decl, false)).
		file("server/api/broken/[id].get.wasm", []byte("not wasm at all"))
	unbuilt := func(path string) string {
		if path == "/api/new" {
			return "the route GET /api/new of server/bundles/go.wasm did not build: see the build's error above"
		}
		return ""
	}
	srv, _ := a.serve(host.Options{Mode: host.Development, Unserved: unbuilt})
	for _, tc := range []struct{ name, method, path, want string }{
		{"a module of one route that failed to load", "GET", "/api/broken/7",
			"the route GET /api/broken/:id of server/api/broken/[id].get.wasm did not load: server/api/broken/[id].get.wasm: not a valid WebAssembly module"},
		{"of another method", "DELETE", "/api/broken/7", "the route GET /api/broken/:id of server/api/broken/[id].get.wasm did not load"},
		{"a bundle's refused route", "GET", "/api/c",
			"the route GET /api/c of server/bundles/w.wasm did not load: server/bundles/w.wasm (GET /api/c): contract: /summary"},
		{"a route whose build failed (the embedder's)", "GET", "/api/new", unbuilt("/api/new")},
		{"a path of no route", "GET", "/api/nothing", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := do(t, srv, tc.method, tc.path, "")
			var body struct{ Data map[string]string }
			if err := json.Unmarshal([]byte(got.body), &body); err != nil || got.status != 404 {
				t.Fatalf("%s %s = %d %s, want a 404 (%v)", tc.method, tc.path, got.status, got.body, err)
			}
			if u := body.Data["unserved"]; tc.want == "" && u != "" || !strings.HasPrefix(u, tc.want) {
				t.Errorf("%s %s: data.unserved = %q, want %q...", tc.method, tc.path, u, tc.want)
			}
			// The route's error is said once: not again in "failed".
			if _, err, ok := strings.Cut(tc.want, " did not load: "); ok && strings.Count(got.body, err) != 1 {
				t.Errorf("%s %s: the body says %q %d times, want once: %s", tc.method, tc.path, err, strings.Count(got.body, err), got.body)
			}
		})
	}
	// Production fails its start on a broken module, and asks no embedder.
	prod, _ := newApp(t).wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData}).
		serve(host.Options{Mode: host.Production, Unserved: unbuilt})
	if got := do(t, prod, "GET", "/api/new", ""); got.status != 404 || strings.Contains(got.body, "unserved") {
		t.Errorf("production: GET /api/new = %d %s, want a 404 without unserved", got.status, got.body)
	}
}
