package host_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// bundleWAT is a bundle module: its declaration, and a handler that
// answers with the index of the route it was called for, as one digit.
// With hook, it also has the validation-error hook, answering 422 with
// "h" and the index.
func bundleWAT(declaration string, hook bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "(module\n%s  (memory (export \"memory\") %d)\n", watImports, 2+(1024+len(declaration))>>16)
	b.WriteString("  (func (export \"endpoints_abi_version\") (result i32) (i32.const 1))\n")
	fmt.Fprintf(&b, "  (data (i32.const 1024) \"%s\")\n", watString(declaration))
	fmt.Fprintf(&b, "  (func (export \"endpoints_contract\") (result i64) (i64.const %d))\n", int64(1024)<<32|int64(len(declaration)))
	b.WriteString(`  (func (export "endpoints_handle_route") (param $r i32) (result i32)
    (i32.store8 (i32.const 0) (i32.add (i32.const 48) (local.get $r)))
    (drop (call $write (i32.const 0) (i32.const 1)))
    (i32.const 0))
`)
	if hook {
		b.WriteString(`  (func (export "endpoints_on_validation_error_route") (param $r i32) (result i32)
    (drop (call $set_status (i32.const 422)))
    (i32.store8 (i32.const 0) (i32.const 104))
    (i32.store8 (i32.const 1) (i32.add (i32.const 48) (local.get $r)))
    (drop (call $write (i32.const 0) (i32.const 2)))
    (i32.const 0))
`)
	}
	b.WriteString(")\n")
	return b.String()
}

// threeRoutes declares an endpoint, a plain route and an endpoint with a
// validated parameter and the validation-error hook.
const threeRoutes = `{"routes": [
  {"route": "GET /api/a", "contract": {"summary": "Route A"}},
  {"route": "* /b"},
  {"route": "GET /api/items/:id", "contract": {"summary": "One item", "onValidationError": true,
    "request": {"params": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}}}}}
]}`

// TestBundleServesEachRoute: one module serves the routes it declares,
// each called with its own index and validated against its own contract;
// each is listed and documented as a module of one route would be.
func TestBundleServesEachRoute(t *testing.T) {
	t.Parallel()
	a := newApp(t).watSource("server/bundles/w.wasm", bundleWAT(threeRoutes, true))
	srv, _ := a.serve(host.Options{Mode: host.Development})
	for _, tc := range []struct {
		name, method, path string
		status             int
		body               string
	}{
		{"endpoint", "GET", "/api/a", 200, "0"},
		{"plain route, any method", "DELETE", "/b", 200, "1"},
		{"endpoint with a parameter", "GET", "/api/items/3", 200, "2"},
		{"its own validation, its own hook", "GET", "/api/items/0", 422, "h2"},
		{"a method the route does not serve", "POST", "/api/a", 405, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := do(t, srv, tc.method, tc.path, "")
			if got.status != tc.status || tc.body != "" && got.body != tc.body {
				t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, got.status, got.body, tc.status, tc.body)
			}
		})
	}
	doc := do(t, srv, "GET", "/_endpoints/schema", "")
	for _, want := range []string{`"/api/a"`, `"Route A"`, `"/api/items/{id}"`, `"One item"`} {
		if !strings.Contains(doc.body, want) {
			t.Errorf("the document lacks %s", want)
		}
	}
	h, _ := a.host(host.Options{Mode: host.Development})
	routes := h.Routes()
	if len(routes) != 3 {
		t.Fatalf("Routes() = %+v, want 3", routes)
	}
	for _, r := range routes {
		if r.File != "server/bundles/w.wasm" {
			t.Errorf("route %s %s: File = %q, want the bundle", r.Method, r.Path, r.File)
		}
	}
	if pools := h.Pools(); len(pools) != 1 {
		t.Errorf("Pools() = %d pools, want the bundle's one", len(pools))
	}
}

// TestBundleRefused: a bundle that breaks a rule fails its load, naming
// the bundle, the route and the rule; a route claimed by a bundle and by
// another module is refused, naming both.
func TestBundleRefused(t *testing.T) {
	t.Parallel()
	noHandler := strings.Replace(bundleWAT(threeRoutes, false), `"endpoints_handle_route"`, `"endpoints_handle"`, 1)
	noHandler = strings.Replace(noHandler, `(param $r i32) (result i32)
    (i32.store8 (i32.const 0) (i32.add (i32.const 48) (local.get $r)))`, `(result i32)`, 1)
	for _, tc := range []struct {
		name   string
		source string
		extra  bool // also serve server/api/a.get.wasm
		want   string
		file   string // where the module is; the bundle's place when ""
	}{
		{"two claims of one route in the bundle", bundleWAT(`{"routes": [{"route": "GET /api/a"}, {"route": "GET /api/a"}]}`, false), false,
			"server/bundles/w.wasm (GET /api/a) and server/bundles/w.wasm (GET /api/a) both claim GET /api/a", ""},
		{"a route the bundle and a module claim", bundleWAT(threeRoutes, true), true,
			"server/api/a.get.wasm and server/bundles/w.wasm (GET /api/a) both claim GET /api/a", ""},
		{"no routes", bundleWAT(`{"routes": []}`, false), false, "server/bundles/w.wasm: /routes: a bundle declares at least one route", ""},
		{"a contract instead of a declaration", bundleWAT(`{"summary": "one route"}`, false), false, "its declaration is not a bundle's", ""},
		{"a route that is no route", bundleWAT(`{"routes": [{"route": "/api/a"}]}`, false), false, "server/bundles/w.wasm: /routes/0/route: route \"/api/a\": want METHOD /path", ""},
		{"a contract that breaks the schema", bundleWAT(`{"routes": [{"route": "GET /api/a", "contract": {"summary": 7}}]}`, false), false,
			"server/bundles/w.wasm (GET /api/a): contract: /summary", ""},
		{"no endpoints_handle_route", noHandler, false, `must export "endpoints_handle_route"`, ""},
		{"a route's contract past the objects a contract may hold", bundleWAT(`{"routes": [{"route": "GET /api/a", "contract": {"$defs": {`+manyDefs(5000)+`}}}]}`, false), false,
			"server/bundles/w.wasm (GET /api/a): its contract holds 5002 JSON objects", ""},
		{"an endpoint of every method without methods", bundleWAT(`{"routes": [{"route": "* /api/a", "contract": {"summary": "A"}}]}`, false), false,
			`server/bundles/w.wasm (* /api/a): contract: /: a route of every method (*) must declare its operations in "methods"`, ""},
		{"a hook declared but not exported", bundleWAT(threeRoutes, false), false,
			`server/bundles/w.wasm (GET /api/items/:id): contract: /onValidationError: true, but the module does not export "endpoints_on_validation_error_route"`, ""},
		{"a bundle's handler alone in a module of one route", bundleWAT(threeRoutes, false), false,
			`server/api/a.get.wasm: not an Endpoints route module: missing export "endpoints_handle"`, "server/api/a.get.wasm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.file == "" {
				tc.file = "server/bundles/w.wasm"
			}
			a := newApp(t).watSource(tc.file, tc.source)
			if tc.extra {
				a.wat("server/api/a.get.wasm", watModule{handle: plainOK, extra: `  (data (i32.const 2048) "ok")` + "\n"})
			}
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, Logger: discardLogger(), CacheDir: testCacheDir(t)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("host.New = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestGoBundleServesEveryRoute builds an app of many generated Go routes
// into one bundle, as endpoints build does by default, serves it, and
// checks that every route answers with its own handler, validates with
// its own contract, and is in the document.
func TestGoBundleServesEveryRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	requireTool(t, "go")
	t.Parallel()
	const n = 30
	dir := goRoutesApp(t, n)
	sources, err := guestbuild.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != n+1 {
		t.Fatalf("Find = %d sources, want %d", len(sources), n+1)
	}
	sources = guestbuild.BundleGo(sources)
	if len(sources) != 1 || sources[0].Module != guestbuild.BundleModule {
		t.Fatalf("BundleGo = %+v, want one bundle", sources)
	}
	if _, err := guestbuild.Build(t.Context(), dir, dir, sources, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "server", "api")); err == nil {
		t.Errorf("the build wrote modules of single routes beside the bundle")
	}
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Development})
	doc := do(t, srv, "GET", "/_endpoints/schema", "")
	for i := range n {
		path := fmt.Sprintf("/api/r%02d", i)
		if got, want := do(t, srv, "GET", path+"/7", ""), fmt.Sprintf(`{"id":7,"route":%d}`, i); got.status != 200 || got.body != want {
			t.Errorf("GET %s/7 = %d %s, want 200 %s", path, got.status, got.body, want)
		}
		if got := do(t, srv, "GET", path+"/0", ""); got.status != 400 {
			t.Errorf("GET %s/0 = %d %s, want 400 from its contract's minimum", path, got.status, got.body)
		}
		for _, want := range []string{`"` + path + `/{id}"`, fmt.Sprintf(`"Route %02d"`, i)} {
			if !strings.Contains(doc.body, want) {
				t.Errorf("the document lacks %s", want)
			}
		}
	}
	if got := do(t, srv, "GET", "/health", ""); got.status != 200 || got.body != "ok" {
		t.Errorf("GET /health (a plain route of the bundle) = %d %q", got.status, got.body)
	}
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("an answer broke its contract:\n%s", logs)
	}
}

// goRoutesApp writes an app of n Go routes, GET /api/rNN/:id, each
// answering its number and the id, and a plain route GET /health with a
// test file, in a Go module of its own that uses this checkout's SDK.
func goRoutesApp(t *testing.T, n int) string {
	t.Helper()
	files := map[string]string{
		"handlers/health/main.go": `//endpoints:route GET /health
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

func init() {
	endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
		w.Write([]byte("ok"))
	})
}

func main() {}
`,
		// A route's tests are package main too: the bundle must rename them.
		"handlers/health/main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n",
	}
	for i := range n {
		files[fmt.Sprintf("handlers/r%02d/main.go", i)] = fmt.Sprintf(`//endpoints:route GET /api/r%02d/:id
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

type input struct {
	ID int `+"`path:\"id\" minimum:\"1\"`"+`
}

type answer struct {
	ID    int `+"`json:\"id\"`"+`
	Route int `+"`json:\"route\"`"+`
}

func init() {
	endpoints.Handle(endpoints.Operation{
		Summary:   "Route %02d",
		Responses: endpoints.Responses{200: endpoints.JSON[answer]("The route's answer")},
	}, func(in *input) endpoints.Reply {
		return endpoints.Respond(200, answer{ID: in.ID, Route: %d})
	})
}

func main() {}
`, i, i, i)
	}
	return goApp(t, files)
}

// goApp writes an app of the Go sources files (by path in the app) in a
// Go module of its own, example.com/many, that uses this checkout's SDK.
func goApp(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The app's go line must be at least the SDK module's.
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := "go 1.24"
	for _, l := range strings.Split(string(mod), "\n") {
		if strings.HasPrefix(l, "go ") {
			goLine = l
		}
	}
	// Right under the temporary directory, as an app often is under its
	// parent: the compiler then names the build's overlay files by a path
	// relative to the app (../endpoints-bundle-*/1.go), which the build
	// must rewrite too.
	dir, err := os.MkdirTemp("", "goapp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	files["go.mod"] = fmt.Sprintf("module example.com/many\n\n%s\n\nrequire github.com/wasmendpoints/endpoints v0.0.0\n\nreplace github.com/wasmendpoints/endpoints => %s\n", goLine, root)
	for rel, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGoBundleReloadUnderLoad: while clients call two routes of a Go
// bundle, one route's source changes and the bundle is rebuilt and
// reloaded: the new answer is served and no request fails. A source that
// no longer compiles fails the build, naming the file, and leaves the
// bundle on disk, and so what is served, as it was.
func TestGoBundleReloadUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	requireTool(t, "go")
	t.Parallel()
	dir := goRoutesApp(t, 3)
	rebuild := func() error {
		sources, err := guestbuild.Find(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = guestbuild.Build(t.Context(), dir, dir, guestbuild.BundleGo(sources), nil)
		return err
	}
	if err := rebuild(); err != nil {
		t.Fatal(err)
	}
	h, _ := (&app{t: t, dir: dir}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()

	const clients = 4
	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := fmt.Sprintf("/api/r%02d/7", c%2)
			for !stop.Load() {
				res, err := srv.Client().Get(srv.URL + path)
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				answers[fmt.Sprintf("%s %d %s", path, res.StatusCode, body)]++
				mu.Unlock()
			}
		}()
	}
	seen := func(answer string) bool {
		mu.Lock()
		defer mu.Unlock()
		return answers[answer] > 0
	}
	if !waitFor(t, 10*time.Second, func() bool { return seen(`/api/r01/7 200 {"id":7,"route":1}`) }) {
		t.Fatal("the clients got no answer within 10 s")
	}

	src := filepath.Join(dir, "handlers", "r01", "main.go")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(orig), "Route: 1}", "Route: 101}", 1)
	if err := os.WriteFile(src, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := time.Now()
	if err := rebuild(); err != nil {
		t.Fatal(err)
	}
	report := h.Reload(t.Context())
	if len(report.Problems) > 0 || !slices.Equal(report.Changed, []string{guestbuild.BundleModule}) {
		t.Fatalf("reload = %v, want %s changed and no problem", report, guestbuild.BundleModule)
	}
	if !waitFor(t, 10*time.Second, func() bool { return seen(`/api/r01/7 200 {"id":7,"route":101}`) }) {
		t.Fatal("the changed route was not served within 10 s of its reload")
	}
	t.Logf("saved to served: %s (rebuild and reload of the bundle, on this machine)", time.Since(saved).Round(time.Millisecond))

	bundle := filepath.Join(dir, filepath.FromSlash(guestbuild.BundleModule))
	before, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(changed+"\nthis is not Go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rebuild(); err == nil || !strings.Contains(err.Error(), "handlers/r01/main.go") {
		t.Errorf("building a broken route = %v, want the compiler's error naming handlers/r01/main.go", err)
	}
	if after, err := os.ReadFile(bundle); err != nil || !bytes.Equal(after, before) {
		t.Errorf("a failed build changed the bundle (%v)", err)
	}
	if report := h.Reload(t.Context()); !report.Unchanged() {
		t.Errorf("reload after a failed build = %v, want nothing changed", report)
	}
	mu.Lock()
	n := answers[`/api/r01/7 200 {"id":7,"route":101}`]
	mu.Unlock()
	if !waitFor(t, 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return answers[`/api/r01/7 200 {"id":7,"route":101}`] > n+clients
	}) {
		t.Error("the bundle stopped serving after a failed build")
	}
	stop.Store(true)
	wg.Wait()
	for answer, count := range answers {
		if !strings.Contains(answer, " 200 ") {
			t.Errorf("%d answers %q during the reloads, want none failed", count, answer)
		}
	}
}

// TestBundleDeferredCode: a bundle carrying its declaration in its
// sections, as endpoints build writes it, is routed from them before its
// code loads: each route validates and is documented without code, and
// the first request that reaches a guest loads the bundle's code once for
// all its routes.
func TestBundleDeferredCode(t *testing.T) {
	t.Parallel()
	const file = "server/bundles/w.wasm"
	a := newApp(t).watSource(file, bundleWAT(threeRoutes, true)).embedSections(file)
	release := make(chan struct{})
	h, _ := a.heldHost(release)
	if h.HasCode(file) {
		t.Fatal("the code of a bundle with its sections loaded before New returned")
	}
	if rec := get(h, "/api/items/0"); rec.Code != 422 || rec.Body.String() != "h2" {
		t.Errorf("GET /api/items/0 = %d %s, want route 2's hook", rec.Code, rec.Body)
	}
	if rec := get(h, "/_endpoints/schema"); !strings.Contains(rec.Body.String(), `"/api/items/{id}"`) || !strings.Contains(rec.Body.String(), `"Route A"`) {
		t.Errorf("the document lacks the bundle's routes: %s", rec.Body)
	}
	for path, want := range map[string]string{"/api/a": "0", "/b": "1", "/api/items/3": "2"} {
		if rec := get(h, path); rec.Code != 200 || rec.Body.String() != want {
			t.Errorf("GET %s = %d %s, want 200 %s", path, rec.Code, rec.Body, want)
		}
	}
	close(release)
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := get(h, "/api/items/4"); rec.Code != 200 || rec.Body.String() != "2" {
		t.Errorf("GET /api/items/4 once compiled = %d %s", rec.Code, rec.Body)
	}
}

// TestBundleLargerThanOneContract: the limits of a contract bound each
// route of a bundle, not its whole declaration: three routes of 400 KiB
// each load, where one contract of 1.2 MiB would not.
func TestBundleLargerThanOneContract(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 400<<10)
	decl := fmt.Sprintf(`{"routes": [{"route": "GET /api/a", "contract": {"description": %q}}, {"route": "GET /api/b", "contract": {"description": %q}}, {"route": "GET /api/c", "contract": {"description": %q}}]}`, long, long, long)
	a := newApp(t).watSource("server/bundles/w.wasm", bundleWAT(decl, false))
	h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, Logger: discardLogger(), CacheDir: testCacheDir(t)})
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	defer h.Close(context.Background())
	if n := len(h.Routes()); n != 3 {
		t.Errorf("%d routes, want 3", n)
	}
}

// manyDefs writes n empty schemas, "d0": {} to "d<n-1>": {}, for a
// $defs object.
func manyDefs(n int) string {
	defs := make([]string, n)
	for i := range defs {
		defs[i] = fmt.Sprintf(`"d%d":{}`, i)
	}
	return strings.Join(defs, ",")
}

// bundleWithMiddleware is threeRoutes with two middleware: 10-b, on
// /api/**, adds x-order "b0" before the handler and "a0" after it; 30-b,
// on POST /b, answers 403 "d" in the handler's place.
func bundleWithMiddleware(middleware string) string {
	decl := strings.TrimSuffix(threeRoutes, "]}") + `], "middleware": ` + middleware + `}`
	src := strings.TrimSuffix(bundleWAT(decl, true), ")\n")
	return src + `  (data (i32.const 3000) "x-order")
  (func (export "endpoints_before_route") (param $m i32) (result i32)
    (if (i32.eq (local.get $m) (i32.const 1)) (then
      (drop (call $set_status (i32.const 403)))
      (i32.store8 (i32.const 0) (i32.const 100))
      (drop (call $write (i32.const 0) (i32.const 1)))
      (return (i32.const 1))))
    (i32.store8 (i32.const 3100) (i32.const 98))
    (i32.store8 (i32.const 3101) (i32.add (i32.const 48) (local.get $m)))
    (drop (call $add_header (i32.const 3000) (i32.const 7) (i32.const 3100) (i32.const 2)))
    (i32.const 0))
  (func (export "endpoints_after_route") (param $m i32) (result i32)
    (i32.store8 (i32.const 3100) (i32.const 97))
    (i32.store8 (i32.const 3101) (i32.add (i32.const 48) (local.get $m)))
    (drop (call $add_header (i32.const 3000) (i32.const 7) (i32.const 3100) (i32.const 2)))
    (i32.const 0))
)
`
}

const twoMiddleware = `[
  {"name": "10-b", "declaration": {"routes": ["/api/**"], "phases": ["before", "after"]}},
  {"name": "30-b", "declaration": {"routes": ["/b"], "methods": ["POST"], "phases": ["before"]}}]`

// TestBundleMiddleware: a bundle serves the middleware its declaration
// lists, each called with its index, in name order among the modules of
// server/middleware, on the bundle's pool; a middleware name taken twice,
// or a declaration without phases, fails the load, naming the bundle.
func TestBundleMiddleware(t *testing.T) {
	t.Parallel()
	fileMW := mwModule{data: []string{"x-order", "f"}, before: `(drop (call $add_header $0 $1)) (i32.const 0)`}
	a := newApp(t).watSource("server/bundles/w.wasm", bundleWithMiddleware(twoMiddleware)).middleware("20-file", fileMW)
	srv, _ := a.serve(host.Options{Mode: host.Production})
	for _, tc := range []struct {
		method, path string
		status       int
		body, order  string
	}{
		{"GET", "/api/a", 200, "0", "b0,f,a0"},
		{"POST", "/b", 403, "d", "f"},
		{"GET", "/b", 200, "1", "f"},
	} {
		got := do(t, srv, tc.method, tc.path, "")
		if got.status != tc.status || got.body != tc.body || strings.Join(got.header.Values("X-Order"), ",") != tc.order {
			t.Errorf("%s %s = %d %q, x-order %q; want %d %q, x-order %q", tc.method, tc.path, got.status, got.body, got.header.Values("X-Order"), tc.status, tc.body, tc.order)
		}
	}
	h, _ := a.host(host.Options{Mode: host.Production})
	if pools := h.Pools(); len(pools) != 1 || pools[0].Module != "server/bundles/w.wasm" {
		t.Errorf("Pools() = %+v, want the bundle's alone", pools)
	}
	for _, tc := range []struct {
		name, middleware, file, want string
	}{
		{"a name a module of server/middleware has", twoMiddleware, "10-b",
			`server/bundles/w.wasm (middleware 10-b): middleware "10-b": server/middleware/10-b.wasm has that name already`},
		{"no phases", `[{"name": "10-b", "declaration": {}}]`, "",
			`server/bundles/w.wasm: /middleware/0/declaration/phases: empty`},
		{"a name twice", `[{"name": "10-b", "declaration": {"phases": ["before"]}}, {"name": "10-b", "declaration": {"phases": ["after"]}}]`, "",
			`server/bundles/w.wasm: /middleware/1/name: "10-b" names middleware 0 already`},
		{"a file name", `[{"name": "10-b.wasm", "declaration": {"phases": ["before"]}}]`, "",
			`server/bundles/w.wasm: /middleware/0/name: "10-b.wasm": want the name its module would have in server/middleware`},
		{"a bad pattern", `[{"name": "10-b", "declaration": {"routes": ["api"], "phases": ["before"]}}]`, "",
			`server/bundles/w.wasm (middleware 10-b): middleware declaration: /routes/0: pattern "api"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApp(t).watSource("server/bundles/w.wasm", bundleWithMiddleware(tc.middleware))
			if tc.file != "" {
				a.middleware(tc.file, fileMW)
			}
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, Logger: discardLogger(), CacheDir: testCacheDir(t)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("host.New = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestBundleMiddlewareReload: a reload that leaves the bundle as it was
// keeps its middleware (once), and a new bundle brings its own: renamed,
// the middleware takes its new place in the order.
func TestBundleMiddlewareReload(t *testing.T) {
	t.Parallel()
	fileMW := mwModule{data: []string{"x-order", "f"}, before: `(drop (call $add_header $0 $1)) (i32.const 0)`}
	a := newApp(t).watSource("server/bundles/w.wasm", bundleWithMiddleware(twoMiddleware)).middleware("20-file", fileMW)
	h, _ := a.host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	order := func() string { return strings.Join(do(t, srv, "GET", "/api/a", "").header.Values("X-Order"), ",") }
	if got := order(); got != "b0,f,a0" {
		t.Fatalf("x-order = %q, want b0,f,a0", got)
	}
	if rep := h.Reload(context.Background()); len(rep.Problems) > 0 || rep.Refused {
		t.Fatalf("reload of the same files: problems %v, refused %v", rep.Problems, rep.Refused)
	}
	if got := order(); got != "b0,f,a0" {
		t.Errorf("after a reload of the same files, x-order = %q, want b0,f,a0", got)
	}
	a.watSource("server/bundles/w.wasm", bundleWithMiddleware(strings.Replace(twoMiddleware, `"10-b"`, `"40-b"`, 1)))
	if rep := h.Reload(context.Background()); len(rep.Problems) > 0 || rep.Refused {
		t.Fatalf("reload of the new bundle: problems %v, refused %v", rep.Problems, rep.Refused)
	}
	if got := order(); got != "f,b0,a0" {
		t.Errorf("after the middleware was renamed 40-b, x-order = %q, want f,b0,a0", got)
	}
}

// TestBundleFailuresNameTheRoute: what the host says of a failing route of
// a bundle (the development 500, the log of a failed call, an answer that
// breaks its contract) names the route as well as the bundle, as its load
// errors do: "server/bundles/w.wasm (GET /api/b)". The bundle alone does
// not tell which of its hundred routes failed.
func TestBundleFailuresNameTheRoute(t *testing.T) {
	t.Parallel()
	const decl = `{"routes": [
  {"route": "GET /api/a", "contract": {"responses": {"200": {"description": "An object", "schema": {"type": "object"}}}}},
  {"route": "GET /api/b", "contract": {"summary": "B"}}
]}`
	// Route 0 answers "0", which breaks its contract; route 1 fails with
	// the error code 1.
	wat := strings.Replace(bundleWAT(decl, false), "    (i32.const 0))\n", "    (local.get $r))\n", 1)
	a := newApp(t).watSource("server/bundles/w.wasm", wat)
	srv, logs := a.serve(host.Options{Mode: host.Development})
	got := do(t, srv, "GET", "/api/b", "")
	if want := `"route":"server/bundles/w.wasm (GET /api/b)"`; got.status != 500 || !strings.Contains(got.body, want) {
		t.Errorf("GET /api/b = %d %s, want 500 with %s", got.status, got.body, want)
	}
	do(t, srv, "GET", "/api/a", "")
	for _, want := range []string{
		`msg="guest failed" route="server/bundles/w.wasm (GET /api/b)"`,
		`msg="answer breaks the contract" route="server/bundles/w.wasm (GET /api/a)"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs.String())
		}
	}
}

// TestBundleRoutesWaitOnlyForThemselves: each route of a bundle takes its
// instances through a lane of its own, limits.instances of them, as a
// module of its own would: a route whose calls take every instance it may
// have (here one, sleeping) makes its own callers wait, never another
// route's. In one shared pool a slow route of a hundred stalled them all.
func TestBundleRoutesWaitOnlyForThemselves(t *testing.T) {
	t.Parallel()
	// The fast route's deadline comes before the slow call's, so a wait
	// for the slow route's instance would end in a 503.
	const decl = `{"routes": [{"route": "GET /api/slow"}, {"route": "GET /api/fast", "contract": {"timeout": "500ms"}}]}`
	wat := fmt.Sprintf(`(module
%s%s  (memory (export "memory") 2)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (data (i32.const 1024) "%s")
  (func (export "endpoints_contract") (result i64) (i64.const %d))
%s  (func (export "endpoints_handle_route") (param $r i32) (result i32)
    (if (i32.eqz (local.get $r)) (then (call $sleep (i64.const 30000000000))))
    (i32.store8 (i32.const 0) (i32.add (i32.const 48) (local.get $r)))
    (drop (call $write (i32.const 0) (i32.const 1)))
    (i32.const 0)))
`, watImports, wasiPoll, watString(decl), int64(1024)<<32|int64(len(decl)), sleepFn)
	h, _ := newApp(t).watSource("server/bundles/w.wasm", wat).host(host.Options{Mode: host.Development,
		Limits: config.Limits{Instances: 1, Timeout: config.Duration(3 * time.Second)}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	slow := make(chan response, 1)
	go func() { slow <- do(t, srv, "GET", "/api/slow", "") }()
	if !waitFor(t, 10*time.Second, func() bool { return h.Pools()[0].InUse == 1 }) {
		t.Fatalf("the slow call never took its instance: %+v", h.Pools())
	}
	if got := do(t, srv, "GET", "/api/fast", ""); got.status != 200 || got.body != "1" {
		t.Errorf("GET /api/fast while /api/slow holds its one instance = %d %q, want 200 \"1\" at once", got.status, got.body)
	}
	if got := <-slow; got.status != 500 {
		t.Errorf("GET /api/slow = %d %q, want 500 at its deadline", got.status, got.body)
	}
}

// TestBundleRouteRefusedAlone: in development, a route of a bundle whose
// contract the host refuses (a parameter its path lacks, a contract that
// breaks the schema) is left out alone, as a module of that route would
// be, and reported; the bundle's other routes serve. One mistake in one of
// a hundred Go routes took them all down at `endpoints dev`'s start. In
// production it still fails the start (TestBundleRefused).
func TestBundleRouteRefusedAlone(t *testing.T) {
	t.Parallel()
	const decl = `{"routes": [
  {"route": "GET /api/a", "contract": {"summary": "A"}},
  {"route": "GET /api/users/:id", "contract": {"request": {"params": {"type": "object", "properties": {"userId": {"type": "string"}}}}}},
  {"route": "GET /api/c", "contract": {"summary": 7}}
]}`
	a := newApp(t).watSource("server/bundles/w.wasm", bundleWAT(decl, false))
	var loaded []string // what the progress said of the bundle's load
	h, _ := a.host(host.Options{Mode: host.Development, Progress: func(p host.Progress) {
		if p.Stage == host.StageLoad {
			loaded = append(loaded, fmt.Sprintf("%s %v", p.File, p.Err))
		}
	}})
	if want := []string{"server/bundles/w.wasm <nil>"}; !slices.Equal(loaded, want) {
		t.Errorf("load progress = %q, want %q: the bundle loaded, its refused routes are problems", loaded, want)
	}
	problems := fmt.Sprint(h.Problems())
	for _, want := range []string{`server/bundles/w.wasm (GET /api/users/:id): contract: /request/params/properties/userId`, `server/bundles/w.wasm (GET /api/c): contract: /summary`} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems = %s, want %s", problems, want)
		}
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	if got := do(t, srv, "GET", "/api/a", ""); got.status != 200 || got.body != "0" {
		t.Errorf("GET /api/a = %d %q, want 200 \"0\": the bundle's other routes serve", got.status, got.body)
	}
	if got := do(t, srv, "GET", "/api/c", ""); got.status != 404 {
		t.Errorf("GET /api/c = %d, want 404: its route is left out", got.status)
	}
	_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, Logger: discardLogger(), CacheDir: testCacheDir(t)})
	if err == nil || !strings.Contains(err.Error(), "(GET /api/users/:id)") {
		t.Errorf("host.New in production = %v, want the refused route's error", err)
	}
}

// TestBundlePoolEventsNameTheRoute: the waits for an instance and the
// instances discarded of a bundle's route reach the observer with the
// route's template, as a module of that route gives its own: the bundle's
// pool serves every route, so its own template is "", and every route's
// waits and discards were counted under route="" (which route of fifty
// traps was not to be told from the metrics).
func TestBundlePoolEventsNameTheRoute(t *testing.T) {
	t.Parallel()
	const decl = `{"routes": [{"route": "GET /api/slow"}, {"route": "GET /api/trap", "contract": {}}, {"route": "GET /api/fine", "contract": {}}]}`
	wat := fmt.Sprintf(`(module
%s%s  (memory (export "memory") 2)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (data (i32.const 1024) "%s")
  (func (export "endpoints_contract") (result i64) (i64.const %d))
%s  (func (export "endpoints_handle_route") (param $r i32) (result i32)
    (if (i32.eqz (local.get $r)) (then (call $sleep (i64.const 30000000000))))
    (if (i32.eq (local.get $r) (i32.const 1)) (then (unreachable)))
    (i32.store8 (i32.const 0) (i32.add (i32.const 48) (local.get $r)))
    (drop (call $write (i32.const 0) (i32.const 1)))
    (i32.const 0)))
`, watImports, wasiPoll, watString(decl), int64(1024)<<32|int64(len(decl)), sleepFn)
	rec := &recorder{}
	h, _ := newApp(t).watSource("server/bundles/w.wasm", wat).host(host.Options{Mode: host.Development, Observer: rec.observer(),
		Limits: config.Limits{Instances: 1, Timeout: config.Duration(time.Second)}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	if got := do(t, srv, "GET", "/api/trap", ""); got.status != 500 {
		t.Errorf("GET /api/trap = %d %q, want 500", got.status, got.body)
	}
	if got := do(t, srv, "GET", "/api/fine", ""); got.status != 200 || got.body != "2" {
		t.Errorf("GET /api/fine = %d %q, want 200 \"2\"", got.status, got.body)
	}
	slow := make(chan response, 1)
	go func() { slow <- do(t, srv, "GET", "/api/slow", "") }()
	if !waitFor(t, 10*time.Second, func() bool { return h.Pools()[0].InUse == 1 }) {
		t.Fatalf("the slow call never took its instance: %+v", h.Pools())
	}
	// Its lane's one instance is taken: this call waits (until the first
	// call's deadline frees it, or its own passes).
	do(t, srv, "GET", "/api/slow", "")
	<-slow
	var pool []string
	for _, l := range rec.take() {
		if strings.HasPrefix(l, "wait ") || strings.HasPrefix(l, "discard ") {
			pool = append(pool, l)
		}
	}
	for _, want := range []string{"discard server/bundles/w.wasm /api/trap", "wait server/bundles/w.wasm /api/slow acquired=", "discard server/bundles/w.wasm /api/slow"} {
		if !slices.ContainsFunc(pool, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("no pool event %q among:\n%s", want, strings.Join(pool, "\n"))
		}
	}
	for _, l := range pool {
		if !strings.Contains(l, " /api/") {
			t.Errorf("pool event %q names no route", l)
		}
	}
}

// TestBundleMemoryRecycled: an instance a call leaves past
// limits.recycleMemoryBytes (three quarters of limits.memoryBytes unless
// set) is closed rather than kept, and the next call makes another,
// logged and reported naming the route whose call it was: in a bundle,
// the instance's next call may be another route's, which would run out of
// memory. An instance whose first call took it past the mark is kept,
// with a warning, however many calls follow: a new one would be as large
// after such a call, and recycling it would make an instance for every
// call. Set to limits.memoryBytes, nothing is recycled.
func TestBundleMemoryRecycled(t *testing.T) {
	t.Parallel()
	const decl = `{"routes": [{"route": "GET /api/grow", "contract": {}}, {"route": "GET /api/fine", "contract": {}}]}`
	// Route 0 grows the memory to 13 pages, from the 2 it starts with;
	// the limit allows 16 (1 MiB), and the mark is 12.
	wat := strings.Replace(bundleWAT(decl, false), `(param $r i32) (result i32)
`, `(param $r i32) (result i32)
    (if (i32.and (i32.eqz (local.get $r)) (i32.lt_u (memory.size) (i32.const 13)))
      (then (drop (memory.grow (i32.sub (i32.const 13) (memory.size))))))
`, 1)
	const recycledLog, keptLog = "the instance is closed rather than kept", "the instance is kept, since any new one would be as large"
	tests := []struct {
		name           string
		recycleBytes   int64
		paths          []string
		recycled, made int
		logged, warned int
		memoryAtTheEnd int64
	}{
		{"past the mark after its second call", 0, []string{"/api/fine", "/api/grow", "/api/fine", "/api/grow", "/api/fine"}, 2, 2, 2, 0, 2 << 16},
		{"past the mark after its first call", 0, []string{"/api/grow", "/api/grow", "/api/fine", "/api/grow", "/api/fine"}, 0, 0, 0, 1, 13 << 16},
		{"recycling off", 1 << 20, []string{"/api/fine", "/api/grow", "/api/fine", "/api/grow"}, 0, 0, 0, 0, 13 << 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var recycled []host.PoolEvent
			made := 0
			observer := &host.Observer{
				InstanceRecycled: func(e host.PoolEvent) {
					mu.Lock()
					defer mu.Unlock()
					recycled = append(recycled, e)
				},
				InstanceMade: func(host.PoolEvent) {
					mu.Lock()
					defer mu.Unlock()
					made++
				},
			}
			h, logs := newApp(t).watSource("server/bundles/w.wasm", wat).host(host.Options{Mode: host.Development, Observer: observer,
				Limits: config.Limits{Instances: 1, MemoryBytes: 1 << 20, RecycleMemoryBytes: tt.recycleBytes}})
			srv := httptest.NewServer(h)
			defer srv.Close()
			for _, path := range tt.paths {
				if got := do(t, srv, "GET", path, ""); got.status != 200 {
					t.Errorf("GET %s = %d %s, want 200", path, got.status, got.body)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(recycled) != tt.recycled || made != tt.made {
				t.Errorf("%d instances recycled (%+v), %d made; want %d and %d", len(recycled), recycled, made, tt.recycled, tt.made)
			}
			for _, e := range recycled {
				if want := (host.PoolEvent{Module: "server/bundles/w.wasm", Route: "/api/grow", MemoryBytes: 13 << 16}); e != want {
					t.Errorf("recycled %+v, want %+v", e, want)
				}
			}
			if n := strings.Count(logs.String(), recycledLog); n != tt.logged {
				t.Errorf("%q logged %d times, want %d:\n%s", recycledLog, n, tt.logged, logs)
			}
			if n := strings.Count(logs.String(), keptLog); n != tt.warned {
				t.Errorf("%q logged %d times, want %d:\n%s", keptLog, n, tt.warned, logs)
			}
			if tt.logged > 0 {
				if want := `module=server/bundles/w.wasm route=/api/grow memoryBytes=851968 recycleMemoryBytes=786432`; !strings.Contains(logs.String(), want) {
					t.Errorf("the log lacks %s:\n%s", want, logs)
				}
			}
			if got := h.Pools()[0].MemoryBytes; got != tt.memoryAtTheEnd {
				t.Errorf("the pool holds %d bytes at rest, want %d", got, tt.memoryAtTheEnd)
			}
		})
	}
}

// TestBundleMiddlewareWrapsOtherModulesRoutes: a bundle's middleware
// wraps the app's routes as a module of server/middleware does, those of
// other modules too (a route of server/api, another bundle's), not only
// its own bundle's: so its patterns are checked against every route of
// the app, and one that names only another module's route is no pattern
// that matches nothing, in production either.
func TestBundleMiddlewareWrapsOtherModulesRoutes(t *testing.T) {
	t.Parallel()
	const onOther = `[{"name": "10-b", "declaration": {"routes": ["/api/other"], "phases": ["before", "after"]}}]`
	a := newApp(t).watSource("server/bundles/w.wasm", bundleWithMiddleware(onOther)).
		wat("server/api/other.get.wasm", watModule{contract: `{}`, handle: "(i32.const 0)"})
	h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, Logger: discardLogger(), CacheDir: testCacheDir(t)})
	if err != nil {
		t.Fatalf("a bundle's middleware on another module's route refused: %v", err)
	}
	defer h.Close(context.Background())
	srv := newServer(t, h)
	if got := do(t, srv, "GET", "/api/other", ""); strings.Join(got.header.Values("X-Order"), ",") != "b0,a0" {
		t.Errorf("GET /api/other (server/api/other.get.wasm) = %d, x-order %q; want the bundle's middleware around it, b0,a0", got.status, got.header.Values("X-Order"))
	}
	if got := do(t, srv, "GET", "/api/a", ""); len(got.header.Values("X-Order")) != 0 {
		t.Errorf("GET /api/a, the bundle's own route its pattern does not name: x-order %q, want none", got.header.Values("X-Order"))
	}
}
