package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/openapi"
)

// thingBundle declares three routes of one bundle: GET /api/a and GET
// /api/c each name the $defs entry "Thing" (a's schema, then c's), GET
// /api/b names none. The handler answers the route's index, a JSON
// integer, which both schemas accept.
func thingBundle(a, c string) string {
	route := func(path, summary, thing string) string {
		return fmt.Sprintf(`{"route": "GET %s", "contract": {"summary": %q, "responses": {"200": {"schema": {"$ref": "#/$defs/Thing"}}}, "$defs": {"Thing": %s}}}`, path, summary, thing)
	}
	return `{"routes": [` + route("/api/a", "A", a) + `, {"route": "GET /api/b", "contract": {"summary": "B"}}, ` + route("/api/c", "C", c) + `]}`
}

// TestDevStartBundleDocumentErrorLeavesOutTheRoute: at a development
// start, a route of a bundle whose contract the OpenAPI document cannot be
// built with (its $defs collide with another route's of the same bundle)
// is left out alone, named with its route, and the bundle's other routes
// serve; a reload tries it again, and once the collision is fixed it
// serves too. All of an app's Go routes are one bundle: the whole app
// answered 404 at `endpoints dev`'s start when two of its routes named
// different Go types alike.
func TestDevStartBundleDocumentErrorLeavesOutTheRoute(t *testing.T) {
	t.Parallel()
	const bundle = "server/bundles/w.wasm"
	a := newApp(t).watSource(bundle, bundleWAT(thingBundle(`{"type": "integer"}`, `{"type": "integer", "title": "C"}`), false))

	_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger()})
	if err == nil || !errors.Is(err, openapi.ErrSchemaConflict) {
		t.Errorf("New in Production = %v, want the schema conflict", err)
	}

	h, logs := a.host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	check := func(when string, leftOut bool) {
		t.Helper()
		for path, want := range map[string]string{"/api/a": "0", "/api/b": "1"} {
			if res := do(t, srv, "GET", path, ""); res.status != 200 || res.body != want {
				t.Errorf("%s: GET %s = %d %s, want 200 %s: the bundle's other routes serve", when, path, res.status, res.body, want)
			}
		}
		res := do(t, srv, "GET", "/api/c", "")
		switch {
		case !leftOut && (res.status != 200 || res.body != "2"):
			t.Errorf("%s: GET /api/c = %d %s, want 200 2", when, res.status, res.body)
		case leftOut && (res.status != 404 || !strings.Contains(res.body, bundle+" (GET /api/c): $defs: not served until the OpenAPI document builds with it")):
			t.Errorf("%s: GET /api/c = %d %s, want 404 naming the bundle's route left out", when, res.status, res.body)
		}
	}
	check("at the start", true)
	problems := h.Problems()
	if got := errorsText(problems); len(problems) != 1 || !strings.Contains(got, bundle+" (GET /api/c)") || !errors.Is(problems[0], openapi.ErrSchemaConflict) {
		t.Errorf("Problems() = %q, want the one schema conflict, naming the route", got)
	}
	if log := logs.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, bundle+" (GET /api/c)") {
		t.Errorf("the log does not report the route left out:\n%s", log)
	}
	schema := do(t, srv, "GET", "/_endpoints/schema", "")
	var doc struct {
		Paths    map[string]any `json:"paths"`
		Problems []struct {
			File, Route, Field string
		} `json:"x-endpoints-problems"`
	}
	if schema.status != 200 || json.Unmarshal([]byte(schema.body), &doc) != nil {
		t.Fatalf("the schema = %d %s, want 200", schema.status, schema.body)
	}
	if len(doc.Problems) != 1 || doc.Problems[0].File != bundle || doc.Problems[0].Route != "GET /api/c" || doc.Problems[0].Field != "$defs" {
		t.Errorf("x-endpoints-problems = %+v, want the bundle's GET /api/c, $defs", doc.Problems)
	}
	if doc.Paths["/api/a"] == nil || doc.Paths["/api/b"] == nil || doc.Paths["/api/c"] != nil {
		t.Errorf("the document's paths = %v, want /api/a and /api/b, not /api/c", slices.Sorted(func(yield func(string) bool) {
			for p := range doc.Paths {
				if !yield(p) {
					return
				}
			}
		}))
	}

	// A reload with nothing fixed leaves the route out again, and keeps
	// the others serving.
	if r := h.Reload(context.Background()); r.Refused {
		t.Errorf("a reload with the collision still there was refused: %s %v", r, r.Problems)
	}
	check("after a reload", true)

	// The fix: c's Thing is a's.
	a.watSource(bundle, bundleWAT(thingBundle(`{"type": "integer"}`, `{"type": "integer"}`), false))
	if r := h.Reload(context.Background()); r.Refused || len(r.Problems) != 0 {
		t.Fatalf("the reload after the fix: %s %v", r, r.Problems)
	}
	check("after the fix", false)
	if p := h.Problems(); len(p) != 0 {
		t.Errorf("Problems() after the fix = %v, want none", p)
	}
}
