package host_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestGoBundleRoutePanicFailsItAlone: a Go route of a bundle whose init
// panics at registration (here a tag whose value does not fit) fails
// alone, its error naming the route, its source line and the panic: the
// bundle's other routes serve, at a start in development and at a
// reload, where the route's previous version keeps serving too; a start
// in production refuses the app, naming it; the development 404 of the
// failed route at a start says why (it said nothing). The panic trapped the
// bundle's initialisation, and every route of the app was gone.
func TestGoBundleRoutePanicFailsItAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	requireTool(t, "go")
	t.Parallel()
	dir := goRoutesApp(t, 3)
	rebuild := func() {
		t.Helper()
		sources, err := guestbuild.Find(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := guestbuild.Build(t.Context(), dir, dir, guestbuild.BundleGo(sources), nil); err != nil {
			t.Fatal(err)
		}
	}
	rebuild()
	h, _ := (&app{t: t, dir: dir}).host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()

	src := filepath.Join(dir, "handlers", "r01", "main.go")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(strings.Replace(string(orig), `minimum:"1"`, `minimum:"one"`, 1), "Route: 1}", "Route: 101}", 1)
	if !strings.Contains(broken, `minimum:"one"`) {
		t.Fatal("the route's source is not the one this test breaks")
	}
	if err := os.WriteFile(src, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	rebuild() // it compiles: the mistake shows when the route registers
	wantErr := []string{"server/bundles/go.wasm (GET /api/r01/:id): handlers/r01/main.go:16: registering the route panicked: ", `tag minimum:"one"`}
	checkErr := func(what string, err error) {
		t.Helper()
		for _, want := range wantErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %v, want an error with %q", what, err, want)
			}
		}
	}
	report := h.Reload(t.Context())
	checkErr("the reload's problems", fmt.Errorf("%v", report.Problems))
	for _, tc := range []struct{ path, want string }{
		{"/api/r00/7", `{"id":7,"route":0}`},
		{"/api/r01/7", `{"id":7,"route":1}`}, // its previous version
		{"/api/r02/7", `{"id":7,"route":2}`},
		{"/health", "ok"},
	} {
		if got := do(t, srv, "GET", tc.path, ""); got.status != 200 || got.body != tc.want {
			t.Errorf("after the reload, GET %s = %d %s, want 200 %s", tc.path, got.status, got.body, tc.want)
		}
	}

	// A start with the broken bundle serves its other routes.
	fresh, _ := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Development})
	for _, tc := range []struct {
		path   string
		status int
	}{{"/api/r00/7", 200}, {"/api/r01/7", 404}, {"/api/r02/7", 200}, {"/health", 200}} {
		if got := do(t, fresh, "GET", tc.path, ""); got.status != tc.status {
			t.Errorf("at a start, GET %s = %d %s, want %d", tc.path, got.status, got.body, tc.status)
		}
	}
	// Its 404 says why, in development.
	if got := do(t, fresh, "GET", "/api/r01/7", ""); !strings.Contains(got.body, `"unserved":"the route GET /api/r01/:id of server/bundles/go.wasm did not load: server/bundles/go.wasm (GET /api/r01/:id): handlers/r01/main.go:16: registering the route panicked: `) {
		t.Errorf("at a start, GET /api/r01/7 = %d %s, want a 404 naming the route's failure", got.status, got.body)
	}
	if got := do(t, fresh, "GET", "/api/none", ""); strings.Contains(got.body, "failed") {
		t.Errorf("at a start, GET /api/none = %d %s, want a 404 naming no failure", got.status, got.body)
	}
	_, err = host.New(context.Background(), dir, host.Options{Mode: host.Production, Logger: discardLogger(), CacheDir: testCacheDir(t)})
	checkErr("host.New in production", err)

	// Fixed, the route serves its new code.
	if err := os.WriteFile(src, []byte(strings.Replace(string(orig), "Route: 1}", "Route: 101}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rebuild()
	if report := h.Reload(t.Context()); len(report.Problems) > 0 {
		t.Errorf("the reload of the fixed route = %v, want no problem", report.Problems)
	}
	if got := do(t, srv, "GET", "/api/r01/7", ""); got.status != 200 || got.body != `{"id":7,"route":101}` {
		t.Errorf("after the fix, GET /api/r01/7 = %d %s, want its new answer", got.status, got.body)
	}
}
