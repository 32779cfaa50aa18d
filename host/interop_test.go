package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestCORSAllowsTheAPIKeyHeader: with allowHeaders left to its default,
// a page may send the header the app's API-key scheme reads, so a browser
// can call an operation that scheme guards.
func TestCORSAllowsTheAPIKeyHeader(t *testing.T) {
	guarded := watModule{contract: `{"security":[{"partners":[]}],"responses":{"200":{"schema":{"type":"object"}}}}`,
		handle: `(drop (call $write (i32.const 3000) (i32.const 2))) (i32.const 0)`,
		extra:  "  (data (i32.const 3000) \"{}\")\n"}
	// The SHA-256 of "k3y".
	const sum = "a49b1287870c10a76f1f46552aca4431842ced5dedf0ee3f28ffa12855a4e86a"
	for _, tt := range []struct {
		name, cors  string
		wantAllowed bool
	}{
		{"default allowHeaders", `{"allowOrigins": ["http://localhost:5173"]}`, true},
		{"listed allowHeaders", `{"allowOrigins": ["http://localhost:5173"], "allowHeaders": ["Content-Type"]}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := newApp(t).wat("server/api/admin.get.wasm", guarded).
				file("endpoints.json", []byte(`{"cors": `+tt.cors+`, "security": {"partners": {"apiKey": {"keys": [{"sha256": "`+sum+`"}]}}}}`)).
				serve(host.Options{OpenAPI: config.OpenAPI{Document: []byte(`{"components":{"securitySchemes":{"partners":{"type":"apiKey","in":"header","name":"X-API-Key"}}}}`)}})
			res := do(t, srv, "OPTIONS", "/api/admin", "", "Origin", "http://localhost:5173",
				"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-api-key")
			if res.status != http.StatusNoContent {
				t.Fatalf("preflight status %d, want 204", res.status)
			}
			allowed := strings.Contains(strings.ToLower(res.header.Get("Access-Control-Allow-Headers")), "x-api-key")
			if allowed != tt.wantAllowed {
				t.Errorf("Access-Control-Allow-Headers = %q: X-API-Key allowed %v, want %v", res.header.Get("Access-Control-Allow-Headers"), allowed, tt.wantAllowed)
			}
		})
	}
}

// TestRouteNamesThatNeedEscaping: a route file whose name is not a plain
// URL segment answers at its percent-encoded path, as the document lists
// it.
func TestRouteNamesThatNeedEscaping(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/api/café/menu du jour.get.wasm", watModule{handle: plainOK, extra: okData}).
		serve(host.Options{})
	for _, path := range []string{"/api/caf%C3%A9/menu%20du%20jour", "/api/caf%c3%a9/menu%20du%20jour"} {
		if res := do(t, srv, "GET", path, ""); res.status != 200 || res.body != "ok" {
			t.Errorf("GET %s = %d %q, want 200 ok", path, res.status, res.body)
		}
	}
}

// TestFrameworkRouteShadowingIsRefused: an app route at a path the host
// answers before routing fails the load, naming the file, instead of
// never being called.
func TestFrameworkRouteShadowingIsRefused(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"the document's path", "server/routes/_endpoints/schema.get.wasm",
			"server/routes/_endpoints/schema.get.wasm: the route /_endpoints/schema is where the host serves the OpenAPI document"},
		{"the docs page's path", "server/routes/_endpoints/docs.wasm",
			"server/routes/_endpoints/docs.wasm: the route /_endpoints/docs is where the host serves the docs page"},
	}
	served := true
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).wat(tt.file, watModule{handle: plainOK, extra: okData})
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production,
				OpenAPI: config.OpenAPI{Enabled: &served}, Logger: discardLogger()})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("load error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// A parameter route still answers its other paths and loads.
	a := newApp(t).wat("server/routes/_endpoints/[name].get.wasm", watModule{handle: plainOK, extra: okData})
	if _, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, OpenAPI: config.OpenAPI{Enabled: &served}, Logger: discardLogger()}); err != nil {
		t.Errorf("a [param] route under /_endpoints/ failed the load: %v", err)
	}
}

// TestMiddlewareResponsesAreDocumented: the responses a middleware
// declares reach the document on the operations it wraps, and only there.
func TestMiddlewareResponsesAreDocumented(t *testing.T) {
	decl := `{"routes": ["/api/limited/**"], "methods": ["POST"], "phases": ["before"],
		"responses": {"429": {"description": "Too many notes this hour", "schema": {"type": "object", "properties": {"retryIn": {"type": "integer"}}},
			"headers": {"Retry-After": {"type": "integer"}}}}}`
	h, _ := newApp(t).
		wat("server/api/limited/notes.post.wasm", watModule{contract: `{"responses": {"201": {}}}`, handle: plainOK, extra: okData}).
		wat("server/api/limited/notes.get.wasm", watModule{contract: `{"responses": {"200": {}}}`, handle: plainOK, extra: okData}).
		wat("server/api/open.post.wasm", watModule{contract: `{"responses": {"201": {}}}`, handle: plainOK, extra: okData}).
		middleware("throttle", mwModule{decl: decl, before: `(i32.const 0)`}).
		host(host.Options{})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(h.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, method string
		want         bool
	}{
		{"/api/limited/notes", "post", true},
		{"/api/limited/notes", "get", false},
		{"/api/open", "post", false},
	} {
		r, ok := doc.Paths[tt.path][tt.method].Responses["429"]
		if ok != tt.want {
			t.Errorf("%s %s: 429 documented %v, want %v", tt.method, tt.path, ok, tt.want)
			continue
		}
		if ok && !(strings.Contains(string(r), "Too many notes this hour") && strings.Contains(string(r), "retryIn") && strings.Contains(string(r), "Retry-After")) {
			t.Errorf("%s %s: 429 = %s, want the middleware's description, schema and header", tt.method, tt.path, r)
		}
	}
}

// TestMiddlewareResponsesLoadErrors: a middleware's responses are checked
// at its load, and a mistake names the middleware's file.
func TestMiddlewareResponsesLoadErrors(t *testing.T) {
	tests := []struct {
		name, responses, want string
	}{
		{"a status that is none", `{"4xx": {}}`, `server/middleware/throttle.wasm: middleware declaration: /responses/4xx: want an HTTP status`},
		{"a schema that does not compile", `{"429": {"schema": {"type": 5}}}`, `server/middleware/throttle.wasm: contract: /responses/429/schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).middleware("throttle", mwModule{decl: `{"phases": ["before"], "responses": ` + tt.responses + `}`, before: `(i32.const 0)`})
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, Logger: discardLogger()})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("load error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
