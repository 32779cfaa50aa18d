package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// byeRoute is a second Go route for the app endpoints new makes: GET
// /api/bye answers text, a JSON string.
func byeRoute(text string) string {
	return `//endpoints:route GET /api/bye
package main

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

func init() {
	endpoints.HandleFunc(endpoints.Operation{Summary: "Bye"}, func(*struct{}) (string, error) { return ` + "`" + text + "`" + `, nil })
}

func main() {}
`
}

// notCompiling is Go that does not compile, for a route's package.
const notCompiling = "\nvar broken int = \"not an int\"\n"

// twoRouteApp makes the app endpoints new makes, with GET /api/bye beside
// its GET /api/hello (bye's source: text).
func twoRouteApp(t *testing.T, bye string) string {
	t.Helper()
	needGo(t)
	app := filepath.Join(t.TempDir(), "two")
	if code, out, errOut := runCLI("new", app); code != exitOK {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	writeFiles(t, app, map[string]string{"handlers/bye/main.go": bye})
	return app
}

// TestDevStartsWithoutARouteThatDoesNotCompile: dev starting with one Go
// route of the bundle that does not compile builds the bundle without it
// and serves the others; the broken route's 404 and the build's output
// name the compiler's error, file and line. Every route of the bundle
// answered 404.
func TestDevStartsWithoutARouteThatDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	app := twoRouteApp(t, byeRoute("bye")+notCompiling)
	addr, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	if status, body := httpGet(t, addr+"/api/hello?name=Ada"); status != 200 || !strings.Contains(body, "Hello, Ada!") {
		t.Errorf("GET /api/hello = %d %s, want it served\n%s\n%s", status, body, stdout.String(), stderr.String())
	}
	status, body := httpGet(t, addr+"/api/bye")
	for _, want := range []string{`"unserved":"the route GET /api/bye of server/bundles/go.wasm did not load`, `(GET /api/bye): handlers/bye does not compile:`, `handlers/bye/main.go:12:`, "cannot use"} {
		if status != 404 || !strings.Contains(body, want) {
			t.Errorf("GET /api/bye = %d %s, want a 404 saying %q", status, body, want)
		}
	}
	for _, want := range []string{"FAIL handlers/bye (go): does not compile; server/bundles/go.wasm is built without it",
		"handlers/bye/main.go:12:", "GET /api/bye keeps its previous version serving, or without one answers 404"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("dev's start says:\n%s\nwant %q", stderr.String(), want)
		}
	}
	// The bundle carries its sections as any build's, the route left out
	// declared failed there: its load read them instead of running it.
	wasm, err := os.ReadFile(filepath.Join(app, "server", "bundles", "go.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok, err := wasmbin.Custom(wasm, abi.SectionContract)
	if err != nil || !ok {
		t.Errorf("server/bundles/go.wasm built without bye has no %s section (%v)", abi.SectionContract, err)
	}
	var decl abi.Bundle
	if err := json.Unmarshal(section, &decl); ok && err != nil {
		t.Errorf("its %s section: %v", abi.SectionContract, err)
	}
	routes := map[string]abi.BundleRoute{}
	for _, r := range decl.Routes {
		routes[r.Route] = r
	}
	if r := routes["GET /api/hello"]; ok && (r.Error != "" || len(r.Contract) == 0) {
		t.Errorf("its section's GET /api/hello = %+v, want its contract", r)
	}
	if r := routes["GET /api/bye"]; ok && !strings.Contains(r.Error, "handlers/bye/main.go:12:") {
		t.Errorf("its section's GET /api/bye = %+v, want it declared failed with the compiler's error", r)
	}
	// The build said it; the load that follows does not say it again (as
	// a problem of the app, nor as a log record).
	if n := strings.Count(stdout.String()+stderr.String(), "handlers/bye/main.go:12:"); n != 1 {
		t.Errorf("dev's start prints the compiler's error %d times, want once:\n%s\n%s", n, stdout.String(), stderr.String())
	}
}

// TestDevServesSavesBesideARouteThatDoesNotCompile: with dev running, a
// Go route saved so that it does not compile keeps its previous version
// serving, while a save of another route of the bundle serves its new
// code (it waited for the broken one's fix); the fix serves both.
func TestDevServesSavesBesideARouteThatDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	t.Parallel()
	app := twoRouteApp(t, byeRoute("bye"))
	addr, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	get := func(path string) string {
		_, body := httpGet(t, addr+path)
		return body
	}
	serves := func(path, want string) bool {
		return waitUntil(t, 60*time.Second, func() bool { return strings.Contains(get(path), want) })
	}
	if !serves("/api/bye", `"bye"`) {
		t.Fatalf("GET /api/bye = %s before any save\n%s\n%s", get("/api/bye"), stdout.String(), stderr.String())
	}
	writeFiles(t, app, map[string]string{"handlers/bye/main.go": byeRoute("bye v2") + notCompiling})
	const leftOut = "built server/bundles/go.wasm (2 routes) without 1 route that does not compile"
	if got := waitFor(t, stdout, regexp.MustCompile(`(`+regexp.QuoteMeta(leftOut)+`|build of server/bundles/go\.wasm failed)`), done); got != leftOut {
		t.Errorf("the save of a broken bye: %q, want %q", got, leftOut)
	} else {
		waitFor(t, stdout, regexp.MustCompile(`(handlers/bye/main\.go:12:)`), done)
	}

	hello := filepath.Join(app, "handlers", "hello", "main.go")
	src, err := os.ReadFile(hello)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, app, map[string]string{"handlers/hello/main.go": strings.Replace(string(src), `"Hello, "`, `"Hi, "`, 1)})
	if !serves("/api/hello?name=Ada", "Hi, Ada!") {
		t.Fatalf("the save of hello beside a broken bye was not served: %s\n%s\n%s", get("/api/hello?name=Ada"), stdout.String(), stderr.String())
	}
	if got := get("/api/bye"); !strings.Contains(got, `"bye"`) {
		t.Errorf("GET /api/bye = %s while its source does not compile, want its previous version's %q", got, `"bye"`)
	}

	writeFiles(t, app, map[string]string{"handlers/bye/main.go": byeRoute("bye v2")})
	if !serves("/api/bye", `"bye v2"`) {
		t.Fatalf("bye's fix was not served: %s\n%s\n%s", get("/api/bye"), stdout.String(), stderr.String())
	}
	if got := get("/api/hello?name=Ada"); !strings.Contains(got, "Hi, Ada!") {
		t.Errorf("GET /api/hello = %s after bye's fix, want its last save served", got)
	}
	// Each build without bye printed its compiler's error once; the
	// reloads of what it built did not print it again.
	out := stdout.String() + stderr.String()
	if builds, errs := strings.Count(out, leftOut), strings.Count(out, "handlers/bye/main.go:12:"); errs != builds {
		t.Errorf("%d builds without bye printed its compiler's error %d times, want once each:\n%s\n%s", builds, errs, stdout.String(), stderr.String())
	}
}
