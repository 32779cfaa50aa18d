package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// mwModule is a middleware module written in WAT: the bodies of its
// before, after and verify exports (each leaving an i32), its declaration
// and its data segments. A body left empty is not exported.
type mwModule struct {
	decl                  string
	imports               string // more imports than mwImports
	before, after, verify string
	data                  []string // strings laid out from offset 4096, see mwStrings
}

const mwImports = `
  (import "endpoints" "request_set_header" (func $request_set_header (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "context_set" (func $context_set (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "principal_set" (func $principal_set (param i32 i32) (result i32)))
`

// mwStrings lays strings out from offset 4096 and returns, for each, the
// "(i32.const off) (i32.const len)" pair that passes it to a host
// function.
func mwStrings(data []string) (segments string, args []string) {
	off := 4096
	for _, s := range data {
		segments += fmt.Sprintf("  (data (i32.const %d) \"%s\")\n", off, watString(s))
		args = append(args, fmt.Sprintf("(i32.const %d) (i32.const %d)", off, len(s)))
		off += len(s) + 16
	}
	return segments, args
}

// source renders the module; "$0", "$1"... in the bodies stand for the
// strings of data.
func (m mwModule) source() string {
	segments, args := mwStrings(m.data)
	expand := func(body string) string {
		for i := len(args) - 1; i >= 0; i-- {
			body = strings.ReplaceAll(body, fmt.Sprintf("$%d", i), args[i])
		}
		return body
	}
	var b strings.Builder
	fmt.Fprintf(&b, "(module\n%s%s%s  (memory (export \"memory\") 4)\n", watImports, mwImports, m.imports)
	b.WriteString("  (func (export \"endpoints_abi_version\") (result i32) (i32.const 1))\n")
	b.WriteString(segments)
	if m.decl != "" {
		fmt.Fprintf(&b, "  (data (i32.const 1024) \"%s\")\n", watString(m.decl))
		fmt.Fprintf(&b, "  (func (export \"endpoints_middleware\") (result i64) (i64.const %d))\n", int64(1024)<<32|int64(len(m.decl)))
	}
	for _, f := range []struct{ name, body string }{{"endpoints_before", m.before}, {"endpoints_after", m.after}, {"endpoints_verify", m.verify}} {
		if f.body != "" {
			fmt.Fprintf(&b, "  (func (export %q) (result i32)\n    (local $n i32)\n    %s)\n", f.name, expand(f.body))
		}
	}
	b.WriteString(")\n")
	return b.String()
}

func (a *app) middleware(name string, m mwModule) *app {
	a.t.Helper()
	return a.watSource("server/middleware/"+name+".wasm", m.source())
}

// echoWithMarker answers the envelope and sets x-handler, so a test sees
// whether the handler ran.
var echoWithMarker = watModule{
	contract: `{"summary":"echo"}`,
	handle: `(drop (call $set_header (i32.const 3000) (i32.const 9) (i32.const 3010) (i32.const 3)))
    ` + echoEnvelope,
	extra: `  (data (i32.const 3000) "x-handler")
  (data (i32.const 3010) "ran")
`,
}

func TestMiddleware(t *testing.T) {
	a := newApp(t).
		wat("server/api/hello.get.wasm", echoWithMarker).
		wat("server/api/stop.get.wasm", echoWithMarker).
		wat("server/api/trap.get.wasm", echoWithMarker).
		wat("server/routes/plain.get.wasm", watModule{handle: echoEnvelope}).
		middleware("10-a", mwModule{
			data: []string{"x-before", "a", "x-from-a", "1", "who", "x-after"},
			before: `(drop (call $add_header $0 $1))
    (drop (call $request_set_header $2 $3))
    (drop (call $context_set $4 $1))
    (i32.const 0)`,
			after: `(drop (call $add_header $5 $1)) (i32.const 0)`,
		}).
		middleware("15-stop", mwModule{
			decl: `{"routes":["/api/stop"]}`,
			data: []string{"retry-after", "7", `{"slow":"down"}`},
			before: `(drop (call $set_status (i32.const 429)))
    (drop (call $set_header $0 $1))
    (drop (call $write $2))
    (i32.const 1)`,
		}).
		middleware("16-trap", mwModule{
			decl:   `{"routes":["/api/trap"],"methods":["GET"]}`,
			before: `(unreachable)`,
		}).
		middleware("20-b", mwModule{
			data: []string{"x-from-a", "a did not run first", "x-before", "b", "who-else", "x-after"},
			before: `(if (i32.lt_s (call $request_header $0 (i32.const 8192) (i32.const 64)) (i32.const 0))
      (then (drop (call $set_status (i32.const 500))) (drop (call $write $1)) (return (i32.const 1))))
    (drop (call $add_header $2 $3))
    (drop (call $context_set $4 $3))
    (i32.const 0)`,
			after: `(drop (call $add_header $5 $3)) (i32.const 0)`,
		})
	srv, logs := a.serve(host.Options{Mode: host.Production})

	t.Run("before runs in name order, after in reverse, around the handler", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/hello", "")
		if res.status != 200 || res.header.Get("X-Handler") != "ran" {
			t.Fatalf("got %d %v %s, want 200 from the handler", res.status, res.header, res.body)
		}
		if got := res.header.Values("X-Before"); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("X-Before = %q, want [a b]", got)
		}
		if got := res.header.Values("X-After"); !slices.Equal(got, []string{"b", "a"}) {
			t.Errorf("X-After = %q, want [b a]", got)
		}
		var env struct {
			Context   map[string]string `json:"context"`
			RequestID string            `json:"requestId"`
		}
		if err := json.Unmarshal([]byte(res.body), &env); err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"who": "a", "who-else": "b"}; !mapsEqual(env.Context, want) {
			t.Errorf("context = %v, want %v", env.Context, want)
		}
		if env.RequestID == "" || env.RequestID != res.header.Get("X-Request-Id") {
			t.Errorf("requestId %q, X-Request-Id %q: want the same id", env.RequestID, res.header.Get("X-Request-Id"))
		}
	})
	t.Run("a request header set by a middleware reaches the handler", func(t *testing.T) {
		res := do(t, srv, "GET", "/plain", "")
		var env struct {
			Headers map[string][]string `json:"headers"`
		}
		if err := json.Unmarshal([]byte(res.body), &env); err != nil {
			t.Fatalf("%v: %s", err, res.body)
		}
		if got := env.Headers["x-from-a"]; !slices.Equal(got, []string{"1"}) {
			t.Errorf("x-from-a = %q, want [1]", got)
		}
	})
	t.Run("an answer short-circuits later middleware and the handler", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/stop", "")
		if res.status != 429 || res.body != `{"slow":"down"}` || res.header.Get("Retry-After") != "7" {
			t.Errorf("got %d %v %s, want 429 Retry-After: 7 {\"slow\":\"down\"}", res.status, res.header, res.body)
		}
		if res.header.Get("X-Handler") != "" || !slices.Equal(res.header.Values("X-Before"), []string{"a"}) {
			t.Errorf("X-Handler %q, X-Before %q: want no handler and only middleware a before", res.header.Get("X-Handler"), res.header.Values("X-Before"))
		}
	})
	t.Run("a trapping middleware answers 500 and the handler does not run", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/trap", "")
		if res.status != 500 || res.header.Get("X-Handler") != "" {
			t.Errorf("got %d X-Handler %q, want 500 without the handler", res.status, res.header.Get("X-Handler"))
		}
		if !strings.Contains(logs.String(), "server/middleware/16-trap.wasm") {
			t.Errorf("the log does not name the middleware:\n%s", logs)
		}
	})
	t.Run("a declaration selects routes and methods", func(t *testing.T) {
		res := do(t, srv, "HEAD", "/api/trap", "")
		if res.status != 500 {
			t.Errorf("HEAD /api/trap: got %d, want 500: a GET middleware wraps HEAD", res.status)
		}
		res = do(t, srv, "GET", "/api/hello", "")
		if res.status != 200 {
			t.Errorf("GET /api/hello: got %d, want 200: 15-stop and 16-trap select other routes", res.status)
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestMiddlewareLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		m    mwModule
		want string
	}{
		{"a pattern that is not a route template", mwModule{decl: `{"routes":["api/users"]}`, before: `(i32.const 0)`},
			`server/middleware/bad.wasm: middleware declaration: /routes/0: pattern "api/users": want a route template starting with "/"`},
		{"a lower-case method", mwModule{decl: `{"methods":["post"]}`, before: `(i32.const 0)`},
			`server/middleware/bad.wasm: middleware declaration: /methods/0: "post": want an upper-case method such as "POST"`},
		{"an unknown member", mwModule{decl: `{"paths":["/api/**"]}`, before: `(i32.const 0)`},
			`server/middleware/bad.wasm: middleware declaration:`},
		{"no export to call", mwModule{decl: `{}`},
			`server/middleware/bad.wasm: not an Endpoints middleware module: it exports none of "endpoints_before", "endpoints_after" and "endpoints_verify"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).wat("server/api/hello.get.wasm", echoWithMarker).middleware("bad", tt.m)
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("host.New error = %v\nwant it to contain %s", err, tt.want)
			}
		})
	}
}

// verifierApp is an app whose "token" scheme a middleware verifies: no
// X-Token header is missing, "good" is alice with the scope "read",
// anything else is rejected.
func verifierApp(t *testing.T) *app {
	return newApp(t).
		wat("server/api/private.get.wasm", watModule{contract: `{"security":[{"token":["read"]}]}`, handle: echoEnvelope}).
		wat("server/api/admin.get.wasm", watModule{contract: `{"security":[{"token":["admin"]}]}`, handle: echoEnvelope}).
		wat("server/api/open.get.wasm", watModule{contract: `{"security":[]}`, handle: echoEnvelope}).
		middleware("auth", tokenVerifier)
}

// tokenVerifier verifies the "token" scheme (tokenScheme): no X-Token
// header is missing, "good" is alice with the scope "read", anything else
// is rejected.
var tokenVerifier = mwModule{
	data: []string{"x-token", `{"subject":"alice","scopes":["read"]}`},
	verify: `(local.set $n (call $request_header $0 (i32.const 8192) (i32.const 64)))
    (if (i32.lt_s (local.get $n) (i32.const 0)) (then (return (i32.const 1))))
    (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (i32.const 8192)) (i32.const 0x646f6f67)))
      (then (drop (call $principal_set $1)) (return (i32.const 0))))
    (i32.const 2)`,
}

// tokenScheme declares the scheme verifierApp's middleware verifies.
var tokenScheme = []byte(`{"components":{"securitySchemes":{"token":{"type":"apiKey","in":"header","name":"X-Token","x-endpoints-verifier":"auth"}}}}`)

func TestMiddlewareVerifier(t *testing.T) {
	srv, _ := verifierApp(t).serve(host.Options{Mode: host.Production, OpenAPI: config.OpenAPI{Document: tokenScheme}})
	tests := []struct {
		name, path, token string
		wantStatus        int
		wantBody          string
		wantChallenge     string
	}{
		{"no credential", "/api/private", "", 401,
			`{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["token"]}}`, `ApiKey realm="token"`},
		{"a rejected credential", "/api/private", "bad!", 401,
			`{"statusCode":401,"statusMessage":"Unauthorized","data":{"schemes":["token"],"error":"the credential was rejected"}}`, `ApiKey realm="token"`},
		{"a verified credential lacking the scope", "/api/admin", "good", 403,
			`{"statusCode":403,"statusMessage":"Forbidden","data":{"scheme":"token","missingScopes":["admin"]}}`, ""},
		{"an operation that opts out", "/api/open", "", 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.token != "" {
				headers = []string{"X-Token", tt.token}
			}
			res := do(t, srv, "GET", tt.path, "", headers...)
			if res.status != tt.wantStatus || tt.wantBody != "" && !jsonEqual(t, res.body, tt.wantBody) {
				t.Errorf("got %d %s\nwant %d %s", res.status, res.body, tt.wantStatus, tt.wantBody)
			}
			if got := res.header.Get("WWW-Authenticate"); got != tt.wantChallenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.wantChallenge)
			}
		})
	}
	t.Run("the principal reaches the handler", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/private", "", "X-Token", "good")
		var env struct {
			Auth map[string]any `json:"auth"`
		}
		if err := json.Unmarshal([]byte(res.body), &env); err != nil || res.status != 200 {
			t.Fatalf("got %d %s", res.status, res.body)
		}
		if env.Auth["scheme"] != "token" || env.Auth["subject"] != "alice" {
			t.Errorf("auth = %v, want scheme token, subject alice", env.Auth)
		}
	})
}

func TestSecurityIsDocumentedWhereEnforced(t *testing.T) {
	h, _ := verifierApp(t).host(host.Options{Mode: host.Production, OpenAPI: config.OpenAPI{Document: tokenScheme}})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(h.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path      string
		want, not []string
	}{
		{"/api/private", []string{"401", "403"}, nil},
		{"/api/admin", []string{"401", "403"}, nil},
		{"/api/open", nil, []string{"401", "403"}},
	} {
		rs := doc.Paths[tt.path]["get"].Responses
		for _, st := range tt.want {
			if _, ok := rs[st]; !ok {
				t.Errorf("GET %s: %s is not documented, but the host answers it", tt.path, st)
			}
		}
		for _, st := range tt.not {
			if _, ok := rs[st]; ok {
				t.Errorf("GET %s: %s is documented, but the host never answers it", tt.path, st)
			}
		}
	}
	if !strings.Contains(string(h.Document()), `"WWW-Authenticate"`) {
		t.Error("the 401 does not document WWW-Authenticate")
	}
}

func TestSecurityWithoutVerifierFailsTheLoad(t *testing.T) {
	tests := []struct {
		name     string
		contract string
		fragment string
		want     string
	}{
		{"a scheme the document does not define", `{"security":[{"bearer":[]}]}`, `{}`,
			`security: GET /api/x requires security scheme "bearer": neither endpoints.json nor the document declares it: configure its verifier in endpoints.json`},
		{"a scheme without a verifier", `{"security":[{"bearer":[]}]}`,
			`{"components":{"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}}}}`,
			`security: GET /api/x requires security scheme "bearer": endpoints.json configures no verifier for it`},
		{"a verifier middleware that is not there", `{"security":[{"key":[]}]}`,
			`{"components":{"securitySchemes":{"key":{"type":"apiKey","in":"header","name":"X-Key","x-endpoints-verifier":"nope"}}}}`,
			`x-endpoints-verifier names "nope", but server/middleware/nope.wasm is not loaded`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).wat("server/api/x.get.wasm", watModule{contract: tt.contract, handle: echoEnvelope})
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), OpenAPI: config.OpenAPI{Document: []byte(tt.fragment)}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("host.New error = %v\nwant it to contain %s", err, tt.want)
			}
		})
	}
	t.Run("in development the operation fails closed", func(t *testing.T) {
		a := newApp(t).wat("server/api/x.get.wasm", watModule{contract: `{"security":[{"bearer":[]}]}`, handle: echoEnvelope})
		srv, _ := a.serve(host.Options{Mode: host.Development})
		if res := do(t, srv, "GET", "/api/x", ""); res.status != 401 {
			t.Errorf("got %d %s, want 401: an operation whose scheme cannot be verified lets nobody in", res.status, res.body)
		}
	})
}

// TestCMiddleware builds a middleware from C with the SDK header, as an
// author would, and serves it in front of a route.
func TestCMiddleware(t *testing.T) {
	requireTool(t, "clang")
	src := filepath.Join(t.TempDir(), "20-key.c")
	if err := os.WriteFile(src, []byte(`#include "endpoints.h"

ENDPOINTS_MIDDLEWARE("{\"routes\":[\"/plain\",\"/api/hello\"]}");

int32_t endpoints_before(void) {
    char key[64];
    if (endpoints_header("x-key", key, sizeof key) < 0) {
        endpoints_set_status(401);
        endpoints_set_header("Content-Type", "application/json");
        endpoints_write_str("{\"error\":\"x-key is required\"}");
        return ENDPOINTS_ANSWERED;
    }
    endpoints_request_set_header_str("x-checked", "yes");
    endpoints_context_set_str("via", "c");
    return ENDPOINTS_CONTINUE;
}

int32_t endpoints_after(void) {
    endpoints_set_header("X-After", "c");
    return 0;
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := newApp(t).wat("server/routes/plain.get.wasm", watModule{handle: echoEnvelope}).wat("server/api/hello.get.wasm", echoWithMarker)
	if err := guestbuild.C(context.Background(), src, filepath.Join(a.dir, "server", "middleware", "20-key.wasm")); err != nil {
		t.Fatal(err)
	}
	srv, _ := a.serve(host.Options{Mode: host.Production})
	res := do(t, srv, "GET", "/plain", "")
	if res.status != 401 || res.body != `{"error":"x-key is required"}` {
		t.Errorf("without x-key: got %d %s, want the middleware's 401", res.status, res.body)
	}
	res = do(t, srv, "GET", "/plain", "", "X-Key", "k")
	var env struct {
		Headers map[string][]string `json:"headers"`
		Context map[string]string   `json:"context"`
	}
	if err := json.Unmarshal([]byte(res.body), &env); err != nil || res.status != 200 {
		t.Fatalf("with x-key: got %d %s", res.status, res.body)
	}
	if env.Headers["x-checked"][0] != "yes" || env.Context["via"] != "c" {
		t.Errorf("headers %v, context %v: want what the C middleware set", env.Headers, env.Context)
	}
	// After adds headers to buffered answers; the plain route's bytes
	// went out before it ran.
	if res.header.Get("X-After") != "" {
		t.Errorf("X-After = %q on an answer already sent", res.header.Get("X-After"))
	}
	if res := do(t, srv, "GET", "/api/hello", "", "X-Key", "k"); res.status != 200 || res.header.Get("X-After") != "c" {
		t.Errorf("GET /api/hello: got %d, X-After %q, want 200 with the after header", res.status, res.header.Get("X-After"))
	}
}

// TestMiddlewareReload changes, then removes, a middleware module: a
// reload serves the new version, then none.
func TestMiddlewareReload(t *testing.T) {
	version := func(v string) mwModule {
		return mwModule{data: []string{"x-version", v}, before: `(drop (call $set_header $0 $1)) (i32.const 0)`}
	}
	a := newApp(t).wat("server/api/hello.get.wasm", echoWithMarker).middleware("10-v", version("1"))
	h, _ := a.host(host.Options{Mode: host.Development})
	get := func() string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/hello", nil))
		return rec.Header().Get("X-Version")
	}
	if got := get(); got != "1" {
		t.Fatalf("X-Version = %q, want 1", got)
	}
	a.middleware("10-v", version("2"))
	if r := h.Reload(context.Background()); len(r.Changed) != 1 || len(r.Problems) > 0 {
		t.Fatalf("reload: %s", r)
	}
	if got := get(); got != "2" {
		t.Errorf("after a change: X-Version = %q, want 2", got)
	}
	if err := os.Remove(filepath.Join(a.dir, "server", "middleware", "10-v.wasm")); err != nil {
		t.Fatal(err)
	}
	if r := h.Reload(context.Background()); len(r.Removed) != 1 {
		t.Fatalf("reload: %s", r)
	}
	if got := get(); got != "" {
		t.Errorf("after removal: X-Version = %q, want none", got)
	}
}

// TestMiddlewarePatternMatchingNothing: a middleware whose declaration
// selects a route pattern that matches no route, or no route serving its
// methods, fails a production start naming the middleware's file and the
// member, and is a warning in development, as a rate limit's pattern and
// a routes configuration entry are; it wrapped nothing, with nothing said.
func TestMiddlewarePatternMatchingNothing(t *testing.T) {
	tests := []struct {
		name, decl, want string
	}{
		{"a typo", `{"routes":["/api/helo"]}`, `server/middleware/10-audit.wasm: middleware 10-audit: declaration /routes/0: pattern "/api/helo" matches no route of the app`},
		{"a method the route does not serve", `{"routes":["/api/hello"],"methods":["POST"]}`, `declaration /routes/0: pattern "/api/hello" matches no route serving POST (it matches GET /api/hello)`},
		{"a method no route serves", `{"methods":["DELETE"]}`, `declaration /methods: no route of the app serves DELETE`},
		{"writes, on an app of GET routes only", `{"routes":["/api/**"],"methods":["POST","PATCH","DELETE"]}`, `pattern "/api/**" matches no route serving POST, PATCH or DELETE (it matches GET /api/hello)`},
		{"one of its methods served", `{"routes":["/api/**"],"methods":["GET","DELETE"]}`, ""},
		{"every route below", `{"routes":["/api/**"],"methods":["GET"]}`, ""},
		{"every route", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).
				wat("server/api/hello.get.wasm", echoWithMarker).
				middleware("10-audit", mwModule{decl: tt.decl, before: `(i32.const 0)`})
			checkUnmatched(t, a, tt.want, "middleware")
		})
	}
}
