package openapi_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/openapi"
)

func TestParseRoutesConfigErrors(t *testing.T) {
	tests := []struct {
		name, config string
		want         string
	}{
		{"not JSON", `{"responses": `, `server/routes.config.json: not valid JSON`},
		{"not an object", `[]`, `server/routes.config.json: got an array, want an object`},
		{"unknown top-level key", `{"respones": {}}`, `server/routes.config.json: /respones: unknown member "respones"; allowed: $schema, responses, routes, security, plainRoutes, $defs`},
		{"status out of range", `{"responses": {"600": {}}}`, `/responses/600: status "600": want three digits from 100 to 599`},
		{"status not a number", `{"responses": {"2xx": {}}}`, `/responses/2xx: status "2xx"`},
		{"status too short", `{"responses": {"50": {}}}`, `/responses/50: status "50"`},
		{"unknown response key", `{"responses": {"500": {"descripton": "x"}}}`, `/responses/500/descripton: unknown member "descripton"; allowed: description, schema, contentType, media, headers`},
		{"description not a string", `{"responses": {"500": {"description": 5}}}`, `/responses/500/description: got a number, want a string`},
		{"schema not a schema", `{"responses": {"500": {"schema": "object"}}}`, `/responses/500/schema: got a string, want a JSON Schema`},
		{"invalid schema", `{"responses": {"500": {"schema": {"type": "objekt"}}}}`, `/responses/500/schema: not a valid JSON Schema 2020-12`},
		{"contentType not JSON", `{"responses": {"500": {"schema": {}, "contentType": "text/html"}}}`, `/responses/500/contentType: got "text/html", want application/json or application/<name>+json`},
		{"media and contentType", `{"responses": {"500": {"media": ["text/html"], "contentType": "application/json"}}}`, `/responses/500: has both "media" and "contentType"`},
		{"media range", `{"responses": {"500": {"media": ["image/*"]}}}`, `/responses/500/media/0: "image/*" is a media range`},
		{"media repeated", `{"responses": {"500": {"media": ["text/html", "TEXT/HTML"]}}}`, `/responses/500/media/1: "TEXT/HTML" repeats item 0`},
		{"media empty", `{"responses": {"500": {"media": []}}}`, `/responses/500/media: is empty`},
		{"bad header schema", `{"responses": {"500": {"headers": {"retry-after": 3}}}}`, `/responses/500/headers/retry-after: got a number, want a JSON Schema`},
		{"reference to a missing def", `{"responses": {"500": {"schema": {"$ref": "#/$defs/Nope"}}}, "$defs": {"Err": {}}}`, `/responses/500/schema/$ref: names "#/$defs/Nope", which is not an entry of "$defs"; defined: Err`},
		{"bad def", `{"$defs": {"Err": {"minimum": "1"}}}`, `/$defs/Err: not a valid JSON Schema 2020-12`},
		{"pattern without slash", `{"routes": {"api/users": {}}}`, `/routes/api~1users: pattern "api/users": want a route template starting with "/"`},
		{"pattern with a single star", `{"routes": {"/api/admin/*": {}}}`, `/routes/~1api~1admin~1*: pattern "/api/admin/*": "*" may only end a pattern as "/**"`},
		{"pattern with a star inside", `{"routes": {"/api/**/x": {}}}`, `pattern "/api/**/x": "*" may only end a pattern as "/**"`},
		{"pattern in OpenAPI form", `{"routes": {"/api/users/{id}": {}}}`, `pattern "/api/users/{id}": write parameters in client form, ":name", not "{name}"`},
		{"pattern with empty segment", `{"routes": {"/api//users": {}}}`, `pattern "/api//users": empty segment`},
		{"pattern with trailing slash", `{"routes": {"/api/": {}}}`, `pattern "/api/": remove the trailing "/"`},
		{"unknown route key", `{"routes": {"/api/**": {"response": {}}}}`, `/routes/~1api~1**/response: unknown member "response"; allowed: responses, methods`},
		{"unknown method", `{"routes": {"/api/**": {"methods": {"fetch": {}}}}}`, `/routes/~1api~1**/methods/fetch: unknown method "fetch"; want one of get, post, put, patch, delete, head, options`},
		{"upper-case method", `{"routes": {"/api/**": {"methods": {"POST": {}}}}}`, `unknown method "POST" (write it in lower case: "post")`},
		{"unknown method key", `{"routes": {"/api/**": {"methods": {"post": {"responses": {}, "summary": "x"}}}}}`, `/routes/~1api~1**/methods/post/summary: unknown member "summary"; allowed: responses`},
		{"scoped bad status", `{"routes": {"/api/**": {"methods": {"post": {"responses": {"99": {}}}}}}}`, `/routes/~1api~1**/methods/post/responses/99: status "99"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(tt.config))
			var cerr *openapi.RoutesConfigError
			if !errors.As(err, &cerr) {
				t.Fatalf("ParseRoutesConfig error = %v, want a *RoutesConfigError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseRoutesConfig error =\n%s\nwant it to contain\n%s", err, tt.want)
			}
		})
	}
}

func TestParseRoutesConfigReportsEverything(t *testing.T) {
	_, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{
		"responses": {"700": {}, "500": {"descripton": ""}},
		"routes": {"api": {}}}`))
	var cerr *openapi.RoutesConfigError
	if !errors.As(err, &cerr) {
		t.Fatalf("error = %v, want a *RoutesConfigError", err)
	}
	var got []string
	for _, is := range cerr.Issues {
		got = append(got, is.Pointer)
	}
	if g, w := strings.Join(got, " "), "/responses/500/descripton /responses/700 /routes/api"; g != w {
		t.Errorf("issue pointers = %s, want %s", g, w)
	}
}

func TestParseRoutesConfig(t *testing.T) {
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(usersRoutesConfig))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != "server/routes.config.json" {
		t.Errorf("File = %q", cfg.File)
	}
	if r := cfg.Responses["500"]; r == nil || !strings.HasPrefix(r.Description, "The server failed") || string(r.Schema) != `{"$ref": "#/$defs/ServerError"}` {
		t.Errorf("responses/500 = %+v", r)
	}
	if r := cfg.Routes["/api/users/**"].Methods["post"].Responses["401"]; r == nil || r.Description != "Missing or invalid bearer token" {
		t.Errorf("post 401 = %+v", r)
	}
	if len(cfg.Defs) != 2 {
		t.Errorf("defs = %v, want ServerError and Unauthorized", cfg.Defs)
	}
}

func TestRoutesConfigInBuild(t *testing.T) {
	ops := func(t *testing.T) []openapi.Route {
		return []openapi.Route{
			op(t, "GET", "/api/admin", "server/api/admin/index.get.wasm", `{"responses": {"200": {"description": "Dashboard"}}}`),
			op(t, "POST", "/api/admin/users/{id}", "server/api/admin/users/[id].post.wasm", `{
				"request": {"params": {"type": "object", "properties": {"id": {"type": "integer"}}}},
				"responses": {"200": {}, "403": {"description": "Contract says", "schema": {"type": "object", "required": ["why"]}}}}`),
			op(t, "GET", "/api/public", "server/api/public.get.wasm", `{"responses": {"200": {}}}`),
		}
	}
	cfg := `{
		"responses": {"500": {"description": "App-wide", "schema": {"$ref": "#/$defs/Err"}}},
		"routes": {
			"/api/admin/**": {
				"responses": {
					"403": {"description": "Scope says", "schema": {"$ref": "#/$defs/Err"}},
					"401": {"description": "Scope 401", "media": ["text/plain"]}},
				"methods": {"post": {"responses": {
					"401": {"description": "Method 401", "schema": {"type": "object"}},
					"500": {"description": "Method 500", "schema": {"$ref": "#/$defs/Err"}}}}}},
			"/api/admin/users/:id": {"responses": {"409": {"schema": {"type": "string"}}}}},
		"$defs": {"Err": {"type": "object", "required": ["statusCode"]}}}`
	parsed, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	doc := build(t, ops(t), openapi.Options{Routes: parsed})
	const post = "/paths/~1api~1admin~1users~1{id}/post/responses/"
	tests := []struct{ name, ptr, want string }{
		// The host's own 500 joins the declared one.
		{"app-wide response everywhere", "/paths/~1api~1public/get/responses/500/content/application~1json/schema",
			`{"anyOf": [{"$ref": "#/components/schemas/Err"}, {"$ref": "#/components/schemas/EndpointsInternalServerError"}]}`},
		{"a prefix matches its own path", "/paths/~1api~1admin/get/responses/403/description", `"Scope says"`},
		{"a prefix does not match beside it", "/paths/~1api~1public/get/responses/403", ``},
		{"contract first, then scope: anyOf, contract's description", post + "403",
			`{"description": "Contract says", "content": {"application/json": {"schema": {"anyOf": [
				{"type": "object", "required": ["why"]}, {"$ref": "#/components/schemas/Err"}]}}}}`},
		{"another media type adds an entry, the scope's description first", post + "401",
			`{"description": "Scope 401", "content": {
				"text/plain": {"schema": {"type": "string", "contentEncoding": "binary"}},
				"application/json": {"schema": {"type": "object"}}}}`},
		{"an identical schema is written once", post + "500/content/application~1json/schema",
			`{"anyOf": [{"$ref": "#/components/schemas/Err"}, {"$ref": "#/components/schemas/EndpointsInternalServerError"}]}`},
		{"exact pattern in client form", post + "409/description", `"Conflict"`},
		{"method scope only for its method", "/paths/~1api~1admin/get/responses/401/content",
			`{"text/plain": {"schema": {"type": "string", "contentEncoding": "binary"}}}`},
		{"config defs lifted", "/components/schemas/Err", `{"type": "object", "required": ["statusCode"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := at(t, doc, tt.ptr)
			if tt.want == "" {
				if got != "" {
					t.Errorf("%s = %s, want nothing", tt.ptr, got)
				}
				return
			}
			wantJSON(t, tt.ptr, got, tt.want)
		})
	}

	errs := []struct {
		name, config string
		want         []string
	}{
		{"a pattern matching nothing", `{"routes": {"/api/nothing/**": {}}}`,
			[]string{"server/routes.config.json", "/routes/~1api~1nothing~1**", `pattern "/api/nothing/**"`}},
		{"an exact pattern with other parameter names", `{"routes": {"/api/admin/users/:userId": {}}}`,
			[]string{`pattern "/api/admin/users/:userId"`}},
		{"a method matching nothing", `{"routes": {"/api/admin/**": {"methods": {"delete": {}}}}}`,
			[]string{"/routes/~1api~1admin~1**/methods/delete", "has no DELETE operation"}},
		{"a def conflicting with a contract's", `{"$defs": {"Err": {"type": "string"}}}`, nil},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			o := ops(t)
			if tt.want == nil {
				o = append(o, op(t, "GET", "/api/err", "server/api/err.get.wasm", `{"responses": {"200": {}}, "$defs": {"Err": {"type": "integer"}}}`))
			}
			_, err = openapi.Build(o, openapi.Options{Routes: cfg})
			if tt.want == nil {
				if !errors.Is(err, openapi.ErrSchemaConflict) || !strings.Contains(err.Error(), "server/routes.config.json and server/api/err.get.wasm") {
					t.Errorf("Build error = %v, want a schema conflict naming both files", err)
				}
				return
			}
			if !errors.Is(err, openapi.ErrUnmatchedPattern) {
				t.Fatalf("Build error = %v, want ErrUnmatchedPattern", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Build error = %q, want it to contain %s", err, w)
				}
			}
			// With Options.Unmatched, the same entry is handed over and
			// the document builds without it.
			var handed []error
			doc, err := openapi.Build(o, openapi.Options{Routes: cfg, Unmatched: func(err error) { handed = append(handed, err) }})
			if err != nil || doc == nil {
				t.Fatalf("Build with Unmatched: %v", err)
			}
			if len(handed) != 1 || !errors.Is(handed[0], openapi.ErrUnmatchedPattern) {
				t.Fatalf("Unmatched received %v, want one ErrUnmatchedPattern", handed)
			}
			for _, w := range tt.want {
				if !strings.Contains(handed[0].Error(), w) {
					t.Errorf("Unmatched received %q, want it to contain %s", handed[0], w)
				}
			}
		})
	}
}

func TestRoutesConfigFromGo(t *testing.T) {
	cfg := &openapi.RoutesConfig{Routes: map[string]*openapi.RouteScope{"api/**": {}}}
	_, err := openapi.Build(nil, openapi.Options{Routes: cfg})
	want := `routes configuration: /routes/api~1**: pattern "api/**"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Build error = %v, want it to contain %q", err, want)
	}
}

func TestResponsesFor(t *testing.T) {
	cfg, err := openapi.ParseRoutesConfig("server/routes.config.json", []byte(`{
		"responses": {"500": {"description": "App", "schema": {"$ref": "#/$defs/E"}}, "503": {"media": ["text/html"]}},
		"routes": {
			"/**": {"responses": {"429": {"description": "Slow down"}}},
			"/api/users/**": {
				"responses": {"500": {"description": "Users", "schema": {"type": "object"}}, "503": {"schema": {}}},
				"methods": {"post": {"responses": {"401": {"schema": {"type": "object"}, "headers": {"www-authenticate": {"type": "string"}}}}}}},
			"/api/users/:id": {"responses": {"404": {"description": "No user"}}}},
		"$defs": {"E": {"type": "object"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, route string
		want                string
	}{
		{"app-wide and /** only", "GET", "/health", `{
			"429": {"description": "Slow down"},
			"500": {"description": "App", "schema": {"$ref": "#/$defs/E"}},
			"503": {"media": ["text/html"]}}`},
		{"JSON declarations of one type become anyOf, media ones a media list", "GET", "/api/users/:id", `{
			"404": {"description": "No user"},
			"429": {"description": "Slow down"},
			"500": {"description": "App", "schema": {"anyOf": [{"$ref": "#/$defs/E"}, {"type": "object"}]}},
			"503": {"media": ["text/html", "application/json"]}}`},
		{"per method, any case", "post", "/api/users", `{
			"401": {"schema": {"type": "object"}, "headers": {"www-authenticate": {"type": "string"}}},
			"429": {"description": "Slow down"},
			"500": {"description": "App", "schema": {"anyOf": [{"$ref": "#/$defs/E"}, {"type": "object"}]}},
			"503": {"media": ["text/html", "application/json"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(cfg.ResponsesFor(tt.method, tt.route))
			if err != nil {
				t.Fatal(err)
			}
			wantJSON(t, "ResponsesFor", canon(t, string(got)), tt.want)
		})
	}
	t.Run("nothing applies", func(t *testing.T) {
		empty := &openapi.RoutesConfig{Routes: map[string]*openapi.RouteScope{"/api/a": {Responses: map[string]*abi.Response{"404": {}}}}}
		if got := empty.ResponsesFor("GET", "/api/b"); got != nil {
			t.Errorf("ResponsesFor = %v, want nil", got)
		}
	})
	t.Run("the result is a copy", func(t *testing.T) {
		cfg.ResponsesFor("GET", "/health")["500"].Description = "changed"
		if d := cfg.Responses["500"].Description; d != "App" {
			t.Errorf("changing the result changed the configuration: %q", d)
		}
	})
}
