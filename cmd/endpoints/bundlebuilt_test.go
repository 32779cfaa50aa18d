package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
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
	var stderr bytes.Buffer
	// Never built: the bundle is what is missing, not a module per route.
	if ok := checkBuilt(context.Background(), "serve", app, nil, &stderr, false); ok ||
		!strings.Contains(stderr.String(), "1 route module(s) of "+app+" are not built yet: server/bundles/go.wasm (1 route, 1 middleware from handlers)\n") {
		t.Errorf("checkBuilt of an app never built = %v\n%s\nwant false, naming its bundle alone", ok, stderr.String())
	}
	stderr.Reset()
	write("server/bundles/go.wasm", string(bundle))
	future := time.Now().Add(time.Hour) // newer than every source
	if err := os.Chtimes(filepath.Join(app, "server", "bundles", "go.wasm"), future, future); err != nil {
		t.Fatal(err)
	}
	if !checkBuilt(context.Background(), "serve", app, nil, &stderr, false) {
		t.Fatalf("checkBuilt of a bundle with every route = false:\n%s", stderr.String())
	}
	write("handlers/b/main.go", "//endpoints:route POST /api/b\npackage main\n")
	stderr.Reset()
	ok := checkBuilt(context.Background(), "serve", app, nil, &stderr, false)
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
	ok = checkBuilt(context.Background(), "serve", app, nil, &stderr, false)
	if want := "warning: server/bundles/go.wasm is older than its Go sources (1 route, 1 middleware) (handlers/"; !ok || !strings.Contains(stderr.String(), want) {
		t.Errorf("checkBuilt with a stale bundle = %v\n%s\nwant true and %q", ok, stderr.String(), want)
	}
}

// TestBundledRemovesGoBundlesNoLongerMade: a Go bundle an earlier build
// wrote that the build settings no longer make (a goBundles entry taken
// out, or every bundle once "goBundle" is false) is removed, since it
// would claim routes that now build elsewhere; a bundle that declares a
// route no Go source of the app builds is not the app's Go bundle, and
// stays.
func TestBundledRemovesGoBundlesNoLongerMade(t *testing.T) {
	sources := []guestbuild.Source{
		{Lang: guestbuild.LangGo, Path: "handlers/a", Module: "server/api/a.get.wasm"},
		{Lang: guestbuild.LangGo, Path: "admin/b", Module: "server/api/admin/b.get.wasm"},
	}
	bundle := func(t *testing.T, app, name, decl string) {
		t.Helper()
		wasm, err := wasmbin.WithCustom([]byte("\x00asm\x01\x00\x00\x00"), abi.SectionContract, []byte(decl))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(app, "server", "bundles"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(app, "server", "bundles", name), wasm, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name     string
		build    config.Build
		kept     []string
		modules  []string
		removing string
	}{
		{"one bundle again", config.Build{}, []string{"go.wasm", "rust.wasm"}, []string{guestbuild.BundleModule}, "removed server/bundles/admin.wasm, a Go bundle of an earlier build"},
		{"admin apart", config.Build{GoBundles: map[string][]string{"admin": {"admin/**"}}}, []string{"admin.wasm", "go.wasm", "rust.wasm"},
			[]string{"server/bundles/admin.wasm", guestbuild.BundleModule}, ""},
		{"no bundle", config.Build{GoBundle: new(false)}, []string{"rust.wasm"}, []string{"server/api/a.get.wasm", "server/api/admin/b.get.wasm"},
			`removed server/bundles/admin.wasm: endpoints.json says "goBundle": false`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app := t.TempDir()
			bundle(t, app, "go.wasm", `{"routes": [{"route": "GET /api/a"}]}`)
			bundle(t, app, "admin.wasm", `{"routes": [{"route": "GET /api/admin/b"}]}`)
			bundle(t, app, "rust.wasm", `{"routes": [{"route": "GET /api/admin/b"}, {"route": "GET /api/r"}]}`)
			var stdout bytes.Buffer
			got, err := bundled(app, tt.build, sources, &stdout)
			if err != nil {
				t.Fatal(err)
			}
			var modules []string
			for _, s := range got {
				modules = append(modules, s.Module)
			}
			if !slices.Equal(modules, tt.modules) {
				t.Errorf("bundled builds %v, want %v", modules, tt.modules)
			}
			left, _ := filepath.Glob(filepath.Join(app, "server", "bundles", "*.wasm"))
			for i := range left {
				left[i] = filepath.Base(left[i])
			}
			if !slices.Equal(left, tt.kept) || !strings.Contains(stdout.String(), tt.removing) {
				t.Errorf("bundles left %v, stdout %q; want %v and %q", left, stdout.String(), tt.kept, tt.removing)
			}
		})
	}
}
