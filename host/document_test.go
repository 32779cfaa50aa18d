package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/host/internal/docspage"
	"github.com/wasmendpoints/endpoints/openapi"
)

// helloModule is a small endpoint for document tests.
var helloModule = watModule{contract: `{"summary":"Say hello","request":{"query":{"type":"object","properties":{"name":{"type":"string"}}}},"responses":{"200":{"description":"ok","schema":{"type":"string"}}}}`, handle: `(i32.const 0)`}

func TestDocumentRouteByMode(t *testing.T) {
	tests := []struct {
		name, config string
		mode         host.Mode
		path         string
		want         int
		// says is what a 404 tells the client of the setting; "" that it
		// names no setting.
		says string
	}{
		{"served in development by default", `{}`, host.Development, "/_endpoints/schema", 200, ""},
		{"not served in production by default", `{}`, host.Production, "/_endpoints/schema", 404,
			"openApi.enabled is not set, and the document is served in development only; set it to true (or ENDPOINTS_OPEN_API_ENABLED=true)"},
		{"true serves it in production", `{"openApi": true}`, host.Production, "/_endpoints/schema", 200, ""},
		{"enabled serves it in production", `{"openApi": {"enabled": true}}`, host.Production, "/_endpoints/schema", 200, ""},
		{"false hides it even in development", `{"openApi": false}`, host.Development, "/_endpoints/schema", 404,
			"openApi.enabled is false; set it to true (or ENDPOINTS_OPEN_API_ENABLED=true)"},
		{"disabled at its own path", `{"openApi": {"enabled": false, "path": "/openapi.json"}}`, host.Production, "/openapi.json", 404,
			"openApi.enabled is false"},
		{"a path of its own", `{"openApi": {"path": "/openapi.json"}}`, host.Development, "/openapi.json", 200, ""},
		{"the default path is then free", `{"openApi": {"path": "/openapi.json"}}`, host.Development, "/_endpoints/schema", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := newApp(t).file("endpoints.json", []byte(tt.config)).
				wat("server/api/hello.get.wasm", helloModule).
				serve(host.Options{Mode: tt.mode})
			res := do(t, srv, "GET", tt.path, "")
			if res.status != tt.want {
				t.Fatalf("GET %s = %d %s, want %d", tt.path, res.status, res.body, tt.want)
			}
			namesSetting := strings.Contains(res.body, "openApi.enabled")
			if tt.want == 404 && namesSetting != (tt.says != "") || !strings.Contains(res.body, tt.says) {
				t.Errorf("GET %s = 404 %s, want it to say %q", tt.path, res.body, tt.says)
			}
			if tt.want == 200 && (!strings.Contains(res.body, `"openapi": "3.1.0"`) || res.header.Get("Content-Type") != "application/json") {
				t.Errorf("not an OpenAPI document: %s %s", res.header.Get("Content-Type"), res.body)
			}
		})
	}
}

func TestDocumentCachingAndMethods(t *testing.T) {
	srv, _ := newApp(t).wat("server/api/hello.get.wasm", helloModule).serve(host.Options{Mode: host.Development})
	// Identity: a compressed document's ETag is weak (TestCompressETag).
	first := do(t, srv, "GET", "/_endpoints/schema", "", "Accept-Encoding", "identity")
	etag := first.header.Get("ETag")
	if first.status != 200 || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("GET = %d, ETag %q", first.status, etag)
	}
	tests := []struct {
		name, method string
		headers      []string
		want         int
	}{
		{"the same ETag is 304", "GET", []string{"If-None-Match", etag}, 304},
		{"a weak match is 304", "GET", []string{"If-None-Match", `"other", W/` + etag}, 304},
		{"star is 304", "GET", []string{"If-None-Match", "*"}, 304},
		{"another ETag gets the document", "GET", []string{"If-None-Match", `"stale"`}, 200},
		{"HEAD", "HEAD", nil, 200},
		{"POST is 405", "POST", nil, 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, tt.method, "/_endpoints/schema", "", tt.headers...)
			if res.status != tt.want {
				t.Errorf("got %d, want %d", res.status, tt.want)
			}
			if tt.want == 304 && res.body != "" {
				t.Errorf("304 with a body: %q", res.body)
			}
		})
	}
	if again := do(t, srv, "GET", "/_endpoints/schema", "", "Accept-Encoding", "identity"); again.body != first.body || again.header.Get("ETag") != etag {
		t.Error("the document changed between two requests to the same app")
	}
}

func TestDocsPage(t *testing.T) {
	t.Run("default: the reference built in, served by the host", func(t *testing.T) {
		srv, _ := newApp(t).wat("server/api/hello.get.wasm", helloModule).serve(host.Options{Mode: host.Development})
		res := do(t, srv, "GET", "/_endpoints/docs", "")
		script := "/_endpoints/docs/assets/scalar-" + docspage.ScalarVersion + "/standalone.js"
		if res.status != 200 || !strings.Contains(res.body, `data-url="/_endpoints/schema"`) || !strings.Contains(res.body, `src="`+script+`"`) {
			t.Fatalf("got %d %s", res.status, res.body)
		}
		if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("CSP = %q", csp)
		}
		js := do(t, srv, "GET", script, "")
		if js.status != 200 || len(js.body) < 1<<20 || !strings.HasPrefix(js.header.Get("Content-Type"), "text/javascript") || js.header.Get("ETag") == "" {
			t.Errorf("the built-in reference: %d, %d bytes, %v", js.status, len(js.body), js.header)
		}
	})
	t.Run("local assets served by the host", func(t *testing.T) {
		srv, _ := newApp(t).
			file("endpoints.json", []byte(`{"openApi": {"docs": {"path": "/docs", "assets": "docs-assets"}}}`)).
			file("docs-assets/standalone.js", []byte("console.log('reference')")).
			wat("server/api/hello.get.wasm", helloModule).
			serve(host.Options{Mode: host.Development})
		page := do(t, srv, "GET", "/docs", "")
		if page.status != 200 || !strings.Contains(page.body, `src="/docs/assets/standalone.js"`) {
			t.Fatalf("page: %d %s", page.status, page.body)
		}
		if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") {
			t.Errorf("CSP = %q", csp)
		}
		if js := do(t, srv, "GET", "/docs/assets/standalone.js", ""); js.status != 200 || js.body != "console.log('reference')" {
			t.Errorf("asset: %d %q", js.status, js.body)
		}
		if miss := do(t, srv, "GET", "/docs/assets/../endpoints.json", ""); miss.status == 200 && strings.Contains(miss.body, "openApi") {
			t.Errorf("the asset route served a file outside its directory: %s", miss.body)
		}
	})
	t.Run("off with the document", func(t *testing.T) {
		srv, _ := newApp(t).wat("server/api/hello.get.wasm", helloModule).serve(host.Options{Mode: host.Production})
		if res := do(t, srv, "GET", "/_endpoints/docs", ""); res.status != 404 {
			t.Errorf("docs page in production without the document: %d", res.status)
		}
	})
	t.Run("false turns it off", func(t *testing.T) {
		srv, _ := newApp(t).file("endpoints.json", []byte(`{"openApi": {"docs": false}}`)).
			wat("server/api/hello.get.wasm", helloModule).serve(host.Options{Mode: host.Development})
		if res := do(t, srv, "GET", "/_endpoints/docs", ""); res.status != 404 {
			t.Errorf("docs page turned off: %d", res.status)
		}
	})
}

// runtimeWAT is a runtime declaration module in WAT: its declaration, and
// an extend step that hands the document back unchanged (or nothing).
func runtimeWAT(decl string, extend string) string {
	var b strings.Builder
	b.WriteString("(module\n" + watImports + "  (memory (export \"memory\") 4)\n")
	b.WriteString("  (func (export \"endpoints_abi_version\") (result i32) (i32.const 1))\n")
	fmt.Fprintf(&b, "  (data (i32.const 1024) \"%s\")\n", watString(decl))
	fmt.Fprintf(&b, "  (func (export \"endpoints_runtime\") (result i64) (i64.const %d))\n", int64(1024)<<32|int64(len(decl)))
	if extend != "" {
		fmt.Fprintf(&b, "  (func (export \"endpoints_openapi_extend\") (result i32) (local $n i32) %s)\n", extend)
	}
	b.WriteString(")\n")
	return b.String()
}

func TestRuntimeDeclaration(t *testing.T) {
	const echo = `(local.set $n (call $request_read (i32.const 65536) (i32.const 131072)))
		(drop (call $write (i32.const 65536) (local.get $n))) (i32.const 0)`
	t.Run("fragment merged, extend run, embedder last", func(t *testing.T) {
		h, _ := newApp(t).
			wat("server/api/hello.get.wasm", helloModule).
			watSource("server/endpoints/runtime.wasm", runtimeWAT(`{"openApi":{"document":{"servers":[{"url":"https://api.example.com"}],"info":{"description":"From the runtime"}},"extend":true}}`, echo)).
			host(host.Options{Mode: host.Development, OpenAPI: config.OpenAPI{
				Document: []byte(`{"info":{"contact":{"name":"Embedder"}}}`),
				Extend: func(d *openapi.Document) error {
					d.Info.Title = "Edited by Extend"
					return nil
				},
			}})
		var doc map[string]any
		if err := json.Unmarshal(h.Document(), &doc); err != nil {
			t.Fatal(err)
		}
		info := doc["info"].(map[string]any)
		if info["title"] != "Edited by Extend" || info["description"] != "From the runtime" || info["contact"].(map[string]any)["name"] != "Embedder" {
			t.Errorf("info = %v", info)
		}
		if servers := doc["servers"].([]any); len(servers) != 1 || servers[0].(map[string]any)["url"] != "https://api.example.com" {
			t.Errorf("servers = %v", doc["servers"])
		}
		if _, ok := doc["paths"].(map[string]any)["/api/hello"]; !ok {
			t.Errorf("the generated operation is gone: %v", doc["paths"])
		}
	})
	errs := []struct{ name, decl, extend, want string }{
		{"unknown key", `{"openApi":{"documents":{}}}`, "", `server/endpoints/runtime.wasm: runtime declaration`},
		{"document not an object", `{"openApi":{"document":[1]}}`, "", `/openApi/document: must be a JSON object`},
		{"extend declared, not exported", `{"openApi":{"extend":true}}`, "", `does not export "endpoints_openapi_extend"`},
		{"extend writes nothing", `{"openApi":{"extend":true}}`, `(i32.const 0)`, `openApi.extend wrote no document`},
		{"extend fails", `{"openApi":{"extend":true}}`, `(i32.const 3)`, `openApi.extend returned error code 3`},
		{"bad policy", `{"responseValidation":"sometimes"}`, "", `"sometimes" is not one of`},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).wat("server/api/hello.get.wasm", helloModule).
				watSource("server/endpoints/runtime.wasm", runtimeWAT(tt.decl, tt.extend))
			_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestRuntimeDeclarationClosedAtRest: in production, a runtime
// declaration without an onValidationError hook is closed once the
// document is built, and loaded again to extend the document of the next
// reload; development, and a declaration with the hook, keep it loaded.
func TestRuntimeDeclarationClosedAtRest(t *testing.T) {
	const extend = `(call $log (i32.const 1) (i32.const 2048) (i32.const 10))
		(local.set $n (call $request_read (i32.const 65536) (i32.const 131072)))
		(drop (call $write (i32.const 65536) (local.get $n))) (i32.const 0)`
	const hook = `  (func (export "endpoints_on_validation_error") (result i32) (i32.const 0))` + "\n"
	tests := []struct {
		name       string
		mode       host.Mode
		decl, more string
		loaded     int // idle instances kept after each load
	}{
		{"production, extend alone", host.Production, `{"openApi":{"extend":true}}`, "", 0},
		{"development", host.Development, `{"openApi":{"extend":true}}`, "", 1},
		{"production, with the hook", host.Production, `{"openApi":{"extend":true},"onValidationError":true}`, hook, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.TrimSuffix(runtimeWAT(tt.decl, extend), ")\n") + `  (data (i32.const 2048) "extend ran")` + "\n" + tt.more + ")\n"
			a := newApp(t).wat("server/api/hello.get.wasm", helloModule).watSource("server/endpoints/runtime.wasm", src)
			h, logs := a.host(host.Options{Mode: tt.mode})
			if n := h.RuntimeInstances(); n != tt.loaded {
				t.Errorf("after the start, the runtime declaration keeps %d instances, want %d", n, tt.loaded)
			}
			// A new route: the reload builds the document again, which
			// the declaration extends, loaded again if it was closed.
			a.wat("server/api/bye.get.wasm", helloModule)
			if rep := h.Reload(context.Background()); rep.Refused || len(rep.Problems) > 0 {
				t.Fatalf("reload: refused %v, problems %v", rep.Refused, rep.Problems)
			}
			if n := strings.Count(logs.String(), "extend ran"); n != 2 {
				t.Errorf("openApi.extend ran %d times over a start and a reload, want 2:\n%s", n, logs)
			}
			var doc struct {
				Paths map[string]any `json:"paths"`
			}
			if err := json.Unmarshal(h.Document(), &doc); err != nil {
				t.Fatal(err)
			}
			if _, ok := doc.Paths["/api/bye"]; !ok {
				t.Errorf("the reloaded document lacks the new route: %v", doc.Paths)
			}
			if n := h.RuntimeInstances(); n != tt.loaded {
				t.Errorf("after the reload, the runtime declaration keeps %d instances, want %d", n, tt.loaded)
			}
		})
	}
}

// TestDocumentDescriptionAndServers: endpoints.json's openApi.description
// and openApi.servers reach the document, an embedder's Options replace
// them, and a runtime declaration's fragment still has the last word.
func TestDocumentDescriptionAndServers(t *testing.T) {
	const file = `{"openApi": {"description": "From the file", "servers": [{"url": "/", "description": "Here"}, {"url": "https://api.example.com"}]}}`
	tests := []struct {
		name        string
		runtime     string // a runtime declaration, "" for none
		opts        config.OpenAPI
		wantInfo    string
		wantServers string
	}{
		{"from endpoints.json", "", config.OpenAPI{}, "From the file", `[{"url":"/","description":"Here"},{"url":"https://api.example.com"}]`},
		{"an embedder's replace them", "", config.OpenAPI{Description: "From Go", Servers: []config.OpenAPIServer{{URL: "https://go.example"}}},
			"From Go", `[{"url":"https://go.example"}]`},
		{"the runtime declaration's fragment wins", `{"openApi":{"document":{"info":{"description":"From the runtime"},"servers":[{"url":"https://rt.example"}]}}}`,
			config.OpenAPI{}, "From the runtime", `[{"url":"https://rt.example"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).file("endpoints.json", []byte(file)).wat("server/api/hello.get.wasm", helloModule)
			if tt.runtime != "" {
				a = a.watSource("server/endpoints/runtime.wasm", runtimeWAT(tt.runtime, ""))
			}
			h, _ := a.host(host.Options{Mode: host.Development, OpenAPI: tt.opts})
			var doc struct {
				Info    struct{ Description string }
				Servers json.RawMessage
			}
			if err := json.Unmarshal(h.Document(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Info.Description != tt.wantInfo {
				t.Errorf("info.description = %q, want %q", doc.Info.Description, tt.wantInfo)
			}
			if !jsonEqual(t, string(doc.Servers), tt.wantServers) {
				t.Errorf("servers = %s, want %s", doc.Servers, tt.wantServers)
			}
		})
	}
}

// TestRoutesConfigResponsesCountAsDeclared: a status documented by
// server/routes.config.json is an answer the operation may give; its body
// is checked against the configured schema.
func TestRoutesConfigResponsesCountAsDeclared(t *testing.T) {
	good, goodWrite := watWrite(4096, `{"message":"who are you?"}`)
	bad, badWrite := watWrite(4096, `{"msg":1}`)
	setStatus := `(drop (call $set_status (i32.const 401))) `
	srv, _ := newApp(t).
		file("server/routes.config.json", []byte(`{"routes": {"/api/**": {"responses": {"401": {"description": "No token", "schema": {"$ref": "#/$defs/Unauthorized"}}}}},
			"$defs": {"Unauthorized": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}}}`)).
		wat("server/api/good.get.wasm", watModule{contract: `{` + userResponses + `}`, handle: setStatus + goodWrite + ` (i32.const 0)`, extra: good}).
		wat("server/api/bad.get.wasm", watModule{contract: `{` + userResponses + `}`, handle: setStatus + badWrite + ` (i32.const 0)`, extra: bad}).
		serve(host.Options{Mode: host.Development})
	if res := do(t, srv, "GET", "/api/good", ""); res.status != 401 || res.body != `{"message":"who are you?"}` {
		t.Errorf("a 401 the routes configuration declares: got %d %s", res.status, res.body)
	}
	res := do(t, srv, "GET", "/api/bad", "")
	if want := `{"statusCode":500,"statusMessage":"Response Contract Error","data":{"status":401,"issues":[{"path":["message"],"message":"is required"}]}}`; res.status != 500 || !jsonEqual(t, res.body, want) {
		t.Errorf("a 401 body breaking the configured schema: got %d %s, want 500 %s", res.status, res.body, want)
	}
}

// TestDocumentThatCannotBeBuilt: two contracts define $defs/User
// differently. Production refuses to start; development serves the first
// route and the document without the second, which it names in the
// document's x-endpoints-problems (see TestDevStartWithDocumentError).
func TestDocumentThatCannotBeBuilt(t *testing.T) {
	a := newApp(t).
		wat("server/api/a.get.wasm", watModule{contract: `{"responses":{"200":{"description":"a","schema":{"$ref":"#/$defs/User"}}},"$defs":{"User":{"type":"string"}}}`, handle: `(i32.const 0)`}).
		wat("server/api/b.get.wasm", watModule{contract: `{"responses":{"200":{"description":"b","schema":{"$ref":"#/$defs/User"}}},"$defs":{"User":{"type":"integer"}}}`, handle: `(i32.const 0)`})
	_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t)})
	if err == nil || !strings.Contains(err.Error(), "OpenAPI document:") || !strings.Contains(err.Error(), "server/api/a.get.wasm") || !strings.Contains(err.Error(), "server/api/b.get.wasm") {
		t.Fatalf("production New error = %v, want the document problem naming both files", err)
	}
	srv, _ := a.serve(host.Options{Mode: host.Development})
	res := do(t, srv, "GET", "/_endpoints/schema", "")
	if res.status != 200 || !strings.Contains(res.body, `"x-endpoints-problems"`) || !strings.Contains(res.body, `"file": "server/api/b.get.wasm"`) {
		t.Errorf("development schema route: got %d %s, want 200 naming the route left out", res.status, res.body)
	}
	if res := do(t, srv, "GET", "/api/b", ""); res.status != 404 || !strings.Contains(res.body, `schema \"User\" is defined differently by server/api/a.get.wasm (GET /api/a) and server/api/b.get.wasm (GET /api/b)`) {
		t.Errorf("development GET /api/b: got %d %s, want 404 explaining the conflict", res.status, res.body)
	}
}
