package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// TestBundleLackingARouteIsNotBuilt: a Go route added since the bundle was
// built is a route source not built yet, as its own module missing would
// be: serve, routes and the like refuse to start without it, naming it,
// rather than serve the app without the route and a warning that the
// bundle "is older than its source .".
func TestBundleLackingARouteIsNotBuilt(t *testing.T) {
	app := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(app, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module app\n\ngo 1.24\n")
	write("handlers/a/main.go", "//endpoints:route GET /api/a\npackage main\n")
	write("handlers/mw/main.go", "//endpoints:middleware 10-audit\npackage main\n")
	bundle, err := wasmbin.WithCustom([]byte("\x00asm\x01\x00\x00\x00"), abi.SectionContract,
		[]byte(`{"routes": [{"route": "GET /api/a"}], "middleware": [{"name": "10-audit", "declaration": {"phases": ["before"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	write("server/bundles/go.wasm", string(bundle))
	future := time.Now().Add(time.Hour) // newer than every source
	if err := os.Chtimes(filepath.Join(app, "server", "bundles", "go.wasm"), future, future); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if !checkBuilt(context.Background(), "serve", app, &stderr, false) {
		t.Fatalf("checkBuilt of a bundle with every route = false:\n%s", stderr.String())
	}
	write("handlers/b/main.go", "//endpoints:route POST /api/b\npackage main\n")
	stderr.Reset()
	ok := checkBuilt(context.Background(), "serve", app, &stderr, false)
	for _, want := range []string{"not built yet", "server/bundles/go.wasm lacks POST /api/b (from handlers/b)", "run `endpoints build " + app + "` first"} {
		if ok || !strings.Contains(stderr.String(), want) {
			t.Errorf("checkBuilt with a route the bundle lacks = %v\n%s\nwant false and %q", ok, stderr.String(), want)
		}
	}
	// Older than a source: a warning that says which, not "its source .".
	if err := os.RemoveAll(filepath.Join(app, "handlers", "b")); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(app, "server", "bundles", "go.wasm"), past, past); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	ok = checkBuilt(context.Background(), "serve", app, &stderr, false)
	if want := "warning: server/bundles/go.wasm is older than its Go sources (1 route, 1 middleware) (handlers/"; !ok || !strings.Contains(stderr.String(), want) {
		t.Errorf("checkBuilt with a stale bundle = %v\n%s\nwant true and %q", ok, stderr.String(), want)
	}
}
