package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestDevStartWithDocumentError: an app whose OpenAPI document cannot be
// built whole (a $defs collision, a duplicate operationId, a failing
// openApi.extend) still starts in development. Over real HTTP, the routes
// that are fine answer, what the document cannot be built with is left
// out and named (by file and field) in Problems, the log, the served
// document's x-endpoints-problems, the docs page and the 404 of a route
// left out; once the error is fixed the next reload serves the whole
// app. In production the same app does not start, naming the error.
func TestDevStartWithDocumentError(t *testing.T) {
	tests := []struct {
		name  string
		setup func(a *app)
		fix   func(a *app)
		// serves answer 200 before the fix; leftOut answers 404 until
		// the fix, and 200 after it.
		serves  []string
		leftOut string
		removed bool // the fix removes the route left out
		// file and field are the problem's; is what it wraps.
		file, field, problem string
		is                   error
	}{
		{
			name: "a $defs collision between two routes",
			setup: func(a *app) {
				a.file("server/api/v.get.wasm", assemble(t, thingModule(`{"type":"object"}`)))
				a.file("server/api/w.get.wasm", assemble(t, thingModule(`{"type":"object","title":"W"}`)))
			},
			// The other side of the collision changes: the route left out
			// is served again although its own bytes did not change.
			fix: func(a *app) {
				a.put("server/api/v.get.wasm", assemble(t, thingModule(`{"type":"object","title":"W"}`)))
			},
			serves:  []string{"/api/v"},
			leftOut: "/api/w",
			file:    "server/api/w.get.wasm", field: "$defs", problem: `schema "Thing" is defined differently`,
			is: openapi.ErrSchemaConflict,
		},
		{
			name: "a duplicate operationId",
			setup: func(a *app) {
				a.file("server/api/user-groups.get.wasm", assemble(t, versionModule(2, false)))
				a.file("server/api/user_groups.get.wasm", assemble(t, versionModule(3, false)))
			},
			fix:     func(a *app) { a.remove("server/api/user_groups.get.wasm") },
			removed: true,
			serves:  []string{"/api/user-groups"},
			leftOut: "/api/user_groups",
			file:    "server/api/user_groups.get.wasm", field: "operationId", problem: `operationId "getApiUserGroups"`,
			is: openapi.ErrDuplicateOperationID,
		},
		{
			name: "a failing openApi.extend",
			setup: func(a *app) {
				a.file("server/api/v.get.wasm", assemble(t, versionModule(1, false)))
				a.put("server/endpoints/runtime.wasm", watBytes(t, runtimeWAT(`{"openApi":{"extend":true}}`, `(i32.const 3)`)))
			},
			fix:    func(a *app) { a.remove("server/endpoints/runtime.wasm") },
			serves: []string{"/api/v"},
			file:   "server/endpoints/runtime.wasm", field: "openApi", problem: "openApi.extend returned error code 3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).file("server/api/zz.get.wasm", assemble(t, versionModule(7, false)))
			tt.setup(a)
			serves := append([]string{"/api/zz"}, tt.serves...)

			// Production: a document error fails the start, naming it.
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger()})
			if err == nil || !strings.Contains(err.Error(), tt.problem) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("New in Production = %v, want an error naming %q", err, tt.problem)
			}

			h, logs := a.host(host.Options{Mode: host.Development})
			srv := httptest.NewServer(h)
			defer srv.Close()
			for _, p := range serves {
				if res := do(t, srv, "GET", p, ""); res.status != 200 {
					t.Errorf("GET %s at a development start with a document error = %d %s, want 200: a route that is fine serves", p, res.status, res.body)
				}
			}
			if tt.leftOut != "" {
				res := do(t, srv, "GET", tt.leftOut, "")
				if res.status != 404 || !strings.Contains(res.body, "not served until the OpenAPI document builds with it") || !strings.Contains(res.body, tt.file) {
					t.Errorf("GET %s, left out = %d %s, want 404 naming %s", tt.leftOut, res.status, res.body, tt.file)
				}
			}
			if got := errorsText(h.Problems()); !strings.Contains(got, tt.file) || !strings.Contains(got, tt.problem) {
				t.Errorf("Problems() = %q, want %s and %q", got, tt.file, tt.problem)
			}
			if tt.is != nil && !slices.ContainsFunc(h.Problems(), func(err error) bool { return errors.Is(err, tt.is) }) {
				t.Errorf("no problem is %v: %v", tt.is, h.Problems())
			}
			if log := logs.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, logged(tt.problem)) {
				t.Errorf("the log does not report %q:\n%s", tt.problem, log)
			}

			schema := do(t, srv, "GET", "/_endpoints/schema", "")
			var doc struct {
				Paths    map[string]any `json:"paths"`
				Problems []struct {
					File, Field, Error string
				} `json:"x-endpoints-problems"`
			}
			if schema.status != 200 || json.Unmarshal([]byte(schema.body), &doc) != nil {
				t.Fatalf("the schema at a development start with a document error = %d %s, want 200", schema.status, schema.body)
			}
			if len(doc.Problems) != 1 || doc.Problems[0].File != tt.file || doc.Problems[0].Field != tt.field || !strings.Contains(doc.Problems[0].Error, tt.problem) {
				t.Errorf("the schema's x-endpoints-problems = %+v, want one naming %s, field %s, %q", doc.Problems, tt.file, tt.field, tt.problem)
			}
			for _, p := range serves {
				if doc.Paths[p] == nil {
					t.Errorf("the schema lacks %s, which serves", p)
				}
			}
			if tt.leftOut != "" && doc.Paths[tt.leftOut] != nil {
				t.Errorf("the schema lists %s, which is left out", tt.leftOut)
			}
			if page := do(t, srv, "GET", "/_endpoints/docs", ""); page.status != 200 || !strings.Contains(page.body, html.EscapeString(tt.problem)) || !strings.Contains(page.body, tt.file) {
				t.Errorf("the docs page does not show the problem %q:\n%s", tt.problem, page.body)
			}

			// An edit of a route that is fine serves at once, the error
			// still there: it is not refused for it.
			a.put("server/api/zz.get.wasm", assemble(t, versionModule(8, false)))
			r := h.Reload(context.Background())
			if r.Refused || len(r.Problems) != 0 || !slices.Equal(r.Changed, []string{"server/api/zz.get.wasm"}) {
				t.Errorf("a reload that edits a route that is fine: %s %v, want it served, the problems left out already reported", r, r.Problems)
			}
			if res := do(t, srv, "GET", "/api/zz", ""); res.body != `{"version":8}` {
				t.Errorf("GET /api/zz after its edit = %d %s, want version 8", res.status, res.body)
			}
			if tt.leftOut != "" {
				if res := do(t, srv, "GET", tt.leftOut, ""); res.status != 404 {
					t.Errorf("GET %s after an edit of another route = %d %s, want 404, still left out", tt.leftOut, res.status, res.body)
				}
			}
			if got := errorsText(h.Problems()); !strings.Contains(got, tt.problem) {
				t.Errorf("Problems() after an edit of another route = %q, want %q", got, tt.problem)
			}

			tt.fix(a)
			if r := h.Reload(context.Background()); len(r.Problems) != 0 || r.Refused {
				t.Fatalf("the reload after the fix: %s %v", r, r.Problems)
			}
			fixed := slices.Clone(serves)
			if tt.leftOut != "" && !tt.removed {
				fixed = append(fixed, tt.leftOut)
			}
			for _, p := range fixed {
				if res := do(t, srv, "GET", p, ""); res.status != 200 {
					t.Errorf("GET %s after the fix = %d %s, want 200", p, res.status, res.body)
				}
			}
			if p := h.Problems(); len(p) != 0 {
				t.Errorf("Problems() after the fix = %v, want none", p)
			}
			schema = do(t, srv, "GET", "/_endpoints/schema", "")
			if schema.status != 200 || strings.Contains(schema.body, "x-endpoints-problems") {
				t.Errorf("the schema after the fix = %d, still listing problems:\n%s", schema.status, schema.body)
			}
			if page := do(t, srv, "GET", "/_endpoints/docs", ""); strings.Contains(page.body, `role="alert"`) {
				t.Errorf("the docs page after the fix still shows problems:\n%s", page.body)
			}
		})
	}
}

// thingModule is GET answering {"version":1}, whose contract's 200 is
// the $defs entry "Thing" with schema: two of them with different schemas
// collide in the document's components/schemas.
func thingModule(schema string) watModule {
	data, write := watWrite(3000, `{"version":1}`)
	return watModule{
		contract: `{"summary":"things","responses":{"200":{"schema":{"$ref":"#/$defs/Thing"}}},"$defs":{"Thing":` + schema + `}}`,
		handle:   write + ` (i32.const 0)`,
		extra:    data,
	}
}
