package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/openapi"
)

// plainModule is a module without a contract: a plain route.
var plainModule = watModule{handle: `(i32.const 0)`}

// servedDocument loads the app in development and decodes the document
// its schema route serves.
func servedDocument(t *testing.T, a *app, opts host.Options) (*openapi.Document, *logBuffer) {
	t.Helper()
	opts.Mode = host.Development
	srv, logs := a.serve(opts)
	res := do(t, srv, "GET", "/_endpoints/schema", "")
	if res.status != 200 {
		t.Fatalf("GET /_endpoints/schema = %d %s", res.status, res.body)
	}
	doc, err := openapi.ParseDocument([]byte(res.body))
	if err != nil {
		t.Fatal(err)
	}
	return doc, logs
}

func TestDocumentListsPlainRoutes(t *testing.T) {
	a := newApp(t).
		wat("server/api/hello.get.wasm", helloModule).
		wat("server/routes/feed.xml.get.wasm", plainModule).
		wat("server/routes/page.wasm", plainModule).
		wat("server/routes/hook.get.wasm", helloModule).
		wat("server/routes/hook.wasm", plainModule).
		wat("server/routes/docs/[...slug].wasm", plainModule).
		file("server/routes.config.json", []byte(`{"plainRoutes": {"/feed.xml": {"summary": "The RSS feed", "tags": ["blog"],
			"responses": {"200": {"description": "The feed", "media": ["application/rss+xml"]}}}}}`))
	doc, _ := servedDocument(t, a, host.Options{})
	type want struct {
		path, method, summary string
	}
	for _, w := range []want{
		{"/feed.xml", "get", "The RSS feed"},
		{"/page", "get", "Plain route server/routes/page.wasm"},
		{"/hook", "get", "Say hello"},
		{"/hook", "post", "Plain route server/routes/hook.wasm"},
		{"/hook", "delete", "Plain route server/routes/hook.wasm"},
	} {
		t.Run(w.method+" "+w.path, func(t *testing.T) {
			op := operationOf(doc, w.path, w.method)
			if op == nil {
				t.Fatalf("%s %s is not in the document", w.method, w.path)
			}
			if op.Summary != w.summary {
				t.Errorf("summary: got %q, want %q", op.Summary, w.summary)
			}
			if w.summary == "Say hello" {
				return
			}
			if op.Security == nil || len(op.Security) != 0 || string(op.Extra[openapi.PlainExtension]) != "true" {
				t.Errorf("a plain operation: got security %v and %s %s, want [] and true", op.Security, openapi.PlainExtension, op.Extra[openapi.PlainExtension])
			}
			if op.Responses["default"] == nil {
				t.Errorf("responses: got %v, want a default", op.Responses)
			}
		})
	}
	if op := operationOf(doc, "/page", "post"); op != nil {
		t.Errorf("POST /page: a module without a method suffix that serves GET is documented with GET only")
	}
	for path := range doc.Paths {
		if strings.HasPrefix(path, "/docs") || strings.HasPrefix(path, "/_endpoints") {
			t.Errorf("%s is in the document; catch-all and framework routes stay out", path)
		}
	}
	if r := operationOf(doc, "/feed.xml", "get").Responses["200"]; r == nil || r.Content["application/rss+xml"] == nil {
		t.Errorf("the 200 of /feed.xml's meta: got %+v", r)
	}
}

func TestDocumentPlainRoutesPolicy(t *testing.T) {
	tests := []struct {
		name, config string
		opts         host.Options
		listed       bool
		log          string
	}{
		{"include by default", `{}`, host.Options{}, true, ""},
		{"exclude", `{"openApi": {"plainRoutes": "exclude"}}`, host.Options{}, false, ""},
		{"warn logs the route without meta", `{"openApi": {"plainRoutes": "warn"}}`, host.Options{}, true, "file=server/routes/page.get.wasm"},
		{"Options win over endpoints.json", `{"openApi": {"plainRoutes": "exclude"}}`, host.Options{OpenAPI: config.OpenAPI{PlainRoutes: config.PlainRoutesInclude}}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).file("endpoints.json", []byte(tt.config)).
				wat("server/api/hello.get.wasm", helloModule).
				wat("server/routes/page.get.wasm", plainModule).
				wat("server/routes/feed.get.wasm", plainModule).
				file("server/routes.config.json", []byte(`{"plainRoutes": {"/feed": {"summary": "Feed"}}}`))
			doc, logs := servedDocument(t, a, tt.opts)
			if got := operationOf(doc, "/page", "get") != nil; got != tt.listed {
				t.Errorf("GET /page listed: got %v, want %v", got, tt.listed)
			}
			if tt.log != "" && !strings.Contains(logs.String(), tt.log) {
				t.Errorf("log: want a warning with %q, got\n%s", tt.log, logs)
			}
			if strings.Contains(logs.String(), "/feed") && strings.Contains(logs.String(), "plain route without meta") && strings.Contains(logs.String(), "feed.get.wasm") {
				t.Errorf("log: /feed has meta, yet is warned about:\n%s", logs)
			}
		})
	}
}

func TestDocumentPlainRoutesRequire(t *testing.T) {
	a := newApp(t).file("endpoints.json", []byte(`{"openApi": {"plainRoutes": "require"}}`)).
		wat("server/routes/page.get.wasm", plainModule)
	_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t)})
	if err == nil || !strings.Contains(err.Error(), "server/routes/page.get.wasm: plain route /page has no meta") {
		t.Fatalf("production New error = %v, want a problem naming the file", err)
	}
	a.file("server/routes.config.json", []byte(`{"plainRoutes": {"/page": {"summary": "A page"}}}`))
	doc, _ := servedDocument(t, a, host.Options{})
	if op := operationOf(doc, "/page", "get"); op == nil || op.Summary != "A page" {
		t.Errorf("with meta: got %+v, want GET /page summarised", op)
	}
}

func TestDocumentRefusesSecurityOnAPlainRoute(t *testing.T) {
	a := newApp(t).wat("server/routes/page.get.wasm", plainModule)
	_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t), OpenAPI: config.OpenAPI{
		Extend: func(d *openapi.Document) error {
			d.Paths["/page"].Get.Security = []openapi.SecurityRequirement{{"bearer": nil}}
			return nil
		},
	}})
	if err == nil || !strings.Contains(err.Error(), "GET /page is a plain route, on which the host checks no credentials") {
		t.Fatalf("New error = %v, want the plain route's security refused", err)
	}
}

func TestDocumentSpecVersion(t *testing.T) {
	stream := watModule{contract: `{"responses": {"200": {"media": ["text/event-stream"], "schema": {"type": "object"}}}}`, handle: `(i32.const 0)`}
	tests := []struct {
		name, config string
		opts         host.Options
		version      string
	}{
		{"3.1 by default", `{}`, host.Options{}, openapi.Version31},
		{"3.2 from endpoints.json", `{"openApi": {"specVersion": "3.2.0"}}`, host.Options{}, openapi.Version32},
		{"Options win", `{"openApi": {"specVersion": "3.2.0"}}`, host.Options{OpenAPI: config.OpenAPI{SpecVersion: openapi.Version31}}, openapi.Version31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).file("endpoints.json", []byte(tt.config)).wat("server/api/ticks.get.wasm", stream)
			doc, _ := servedDocument(t, a, tt.opts)
			if doc.OpenAPI != tt.version {
				t.Errorf("openapi: got %q, want %q", doc.OpenAPI, tt.version)
			}
			m := operationOf(doc, "/api/ticks", "get").Responses["200"].Content["text/event-stream"]
			var item struct {
				Properties struct {
					Data struct {
						ContentSchema json.RawMessage `json:"contentSchema"`
					} `json:"data"`
				} `json:"properties"`
			}
			var compact bytes.Buffer
			err := json.Unmarshal(m.Item(), &item)
			if err == nil {
				err = json.Compact(&compact, item.Properties.Data.ContentSchema)
			}
			if err != nil || compact.String() != `{"type":"object"}` {
				t.Errorf("the item schema: got %s (%v), want an event whose data holds JSON of the declared schema", m.Item(), err)
			}
			if (m.ItemSchema != nil) != (tt.version == openapi.Version32) {
				t.Errorf("itemSchema: got %s in a %s document", m.ItemSchema, tt.version)
			}
		})
	}
}

// TestOpenAPIConfigIsChecked: a bad openApi setting reads the same
// whether it comes from endpoints.json or from Options.OpenAPI: config's
// rules check both, and only the source named first differs.
func TestOpenAPIConfigIsChecked(t *testing.T) {
	for _, tt := range []struct {
		name string
		file string // endpoints.json's openApi member
		opts config.OpenAPI
		want string // the error after its source
	}{
		{"an unknown OpenAPI version", `{"specVersion": "3.0.3"}`, config.OpenAPI{SpecVersion: "3.0.3"},
			`/openApi/specVersion: "3.0.3": want "3.1.0" (the default) or "3.2.0"`},
		{"an unknown policy", `{"plainRoutes": "fail"}`, config.OpenAPI{PlainRoutes: "fail"},
			`/openApi/plainRoutes: "fail": want "include" (the default), "warn", "require" or "exclude"`},
		{"a relative path", `{"path": "openapi.json"}`, config.OpenAPI{Path: "openapi.json"},
			`/openApi/path: "openapi.json": want a path starting with /, such as "/_endpoints/schema"`},
		{"a server without URL", `{"servers": [{"description": "No URL"}]}`, config.OpenAPI{Servers: []config.OpenAPIServer{{Description: "No URL"}}},
			`/openApi/servers/0/url: missing: want a base URL such as "/" or "https://api.example.com/v1"`},
		{"a relative docs path", `{"docs": {"path": "docs"}}`, config.OpenAPI{Docs: config.Docs{Path: "docs"}},
			`/openApi/docs/path: "docs": want a path starting with /, such as "/_endpoints/docs"`},
		{"docs assets of another scheme", `{"docs": {"assets": "ftp://example.com/scalar"}}`, config.OpenAPI{Docs: config.Docs{Assets: "ftp://example.com/scalar"}},
			`/openApi/docs/assets: "ftp://example.com/scalar": want an http(s) URL`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, from := range []struct {
				source, config string
				opts           config.OpenAPI
			}{
				{config.File, `{"openApi": ` + tt.file + `}`, config.OpenAPI{}},
				{"host.Options.OpenAPI", `{}`, tt.opts},
			} {
				a := newApp(t).wat("server/api/hello.get.wasm", helloModule).file(config.File, []byte(from.config))
				_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t), OpenAPI: from.opts})
				if want := from.source + ": " + tt.want; err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("New, the setting from %s:\ngot  %v\nwant %s...", from.source, err, want)
				}
			}
		})
	}
}

// operationOf is the operation of a method of a path, or nil.
func operationOf(doc *openapi.Document, path, method string) *openapi.Operation {
	item := doc.Paths[path]
	if item == nil {
		return nil
	}
	return map[string]*openapi.Operation{"get": item.Get, "put": item.Put, "post": item.Post, "delete": item.Delete,
		"options": item.Options, "head": item.Head, "patch": item.Patch}[method]
}

// TestOpenAPIOptionsOverFile: the fields an embedder sets in
// Options.OpenAPI win over endpoints.json's, field by field.
func TestOpenAPIOptionsOverFile(t *testing.T) {
	a := newApp(t).wat("server/api/hello.get.wasm", helloModule).
		file("endpoints.json", []byte(`{"openApi": {"title": "From the file", "version": "2.0.0", "path": "/openapi.json"}}`))
	h, _ := a.host(host.Options{Mode: host.Development, OpenAPI: config.OpenAPI{Title: "From Go", Path: "/spec.json"}})
	if rec := get(h, "/openapi.json"); rec.Code != 404 {
		t.Errorf("GET /openapi.json = %d, want 404: Options.OpenAPI.Path moved the document", rec.Code)
	}
	rec := get(h, "/spec.json")
	if body := rec.Body.String(); rec.Code != 200 || !strings.Contains(body, `"title": "From Go"`) || !strings.Contains(body, `"version": "2.0.0"`) {
		t.Errorf("GET /spec.json = %d %.300s; want Options' title and the file's version", rec.Code, body)
	}
}

// TestRoutesShowPlainMeta: Host.Routes (and so `endpoints routes`) gives a
// plain route the summary routes.config.json's plainRoutes declares, a
// method's own winning.
func TestRoutesShowPlainMeta(t *testing.T) {
	a := newApp(t).
		wat("server/routes/feed.get.wasm", watModule{handle: plainOK, extra: okData}).
		wat("server/routes/other.get.wasm", watModule{handle: plainOK, extra: okData}).
		wat("server/routes/hooks/[source].post.wasm", watModule{handle: plainOK, extra: okData}).
		file("server/routes.config.json", []byte(`{"plainRoutes": {
			"/feed": {"summary": "The feed", "methods": {"get": {"summary": "Read the feed"}}},
			"/hooks/:source": {"summary": "A webhook"}}}`))
	h, _ := a.host(host.Options{Mode: host.Development})
	got := map[string]string{}
	for _, r := range h.Routes() {
		got[r.Method+" "+r.Path] = r.Summary
	}
	want := map[string]string{"GET /feed": "Read the feed", "POST /hooks/:source": "A webhook", "GET /other": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: summary %q, want %q (all: %q)", k, got[k], v, got)
		}
	}
}
