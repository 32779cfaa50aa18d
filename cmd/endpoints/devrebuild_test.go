package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// TestWatchSourcesTellsOfRebuilds: before a saved source's build,
// watchSources names the modules it replaces (Host.Rebuilding, which
// stops their background compilation while the build needs the cores),
// and it calls done once the build wrote them, so that a failed build's
// module compiles again.
func TestWatchSourcesTellsOfRebuilds(t *testing.T) {
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	const module = "server/routes/health.get.wasm"
	src := filepath.Join(app, "server", "routes", "health.get.c")
	out := filepath.Join(app, filepath.FromSlash(module))
	before, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	named := make(chan []string, 1)
	done := make(chan time.Time, 1)
	rebuilding := func(modules []string) func() {
		named <- modules
		return func() {
			fi, err := os.Stat(out)
			if err != nil {
				t.Error(err)
				fi = before
			}
			done <- fi.ModTime()
		}
	}
	// A save after the start's build began: watchSources builds it at once.
	since := before.ModTime().Add(-time.Second)
	later := before.ModTime().Add(time.Second)
	if err := os.Chtimes(src, later, later); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = watchSources(ctx, app, nil, rebuilding, newConsole(&syncBuffer{}, false, false), since, nil)
	}()
	defer func() { cancel(); <-stopped }()
	select {
	case modules := <-named:
		if !slices.Equal(modules, []string{module}) {
			t.Errorf("rebuilding %v, want [%s]", modules, module)
		}
	case <-time.After(time.Minute):
		t.Fatal("watchSources built the saved source without telling of it")
	}
	select {
	case written := <-done:
		if !written.After(before.ModTime()) {
			t.Errorf("done was called before the build wrote %s", module)
		}
	case <-time.After(time.Minute):
		t.Fatal("done was never called after the build")
	}
}

// TestRegrouped: once endpoints.json changed, dev rebuilds the modules
// whose routes its build settings regrouped ("goBundle", "goBundles"),
// and no other: a saved endpoints.json that changes nothing of the build
// rebuilds nothing.
func TestRegrouped(t *testing.T) {
	a := guestbuild.Source{Lang: guestbuild.LangGo, Path: "handlers/a", Module: "server/api/a.get.wasm"}
	b := guestbuild.Source{Lang: guestbuild.LangGo, Path: "handlers/admin/b", Module: "server/api/admin/b.get.wasm"}
	c := guestbuild.Source{Lang: guestbuild.LangC, Path: "server/api/c.get.c", Module: "server/api/c.get.wasm"}
	bundle := func(module string, routes ...guestbuild.Source) guestbuild.Source {
		return guestbuild.Source{Lang: guestbuild.LangGo, Path: "handlers", Module: module, Routes: routes}
	}
	for _, tt := range []struct {
		name        string
		before, now []guestbuild.Source
		want        []string
	}{
		{"nothing changed", []guestbuild.Source{bundle(guestbuild.BundleModule, a, b), c}, []guestbuild.Source{bundle(guestbuild.BundleModule, a, b), c}, nil},
		{"goBundle false", []guestbuild.Source{bundle(guestbuild.BundleModule, a, b), c}, []guestbuild.Source{a, b, c}, []string{a.Module, b.Module}},
		{"goBundle true again", []guestbuild.Source{a, b, c}, []guestbuild.Source{bundle(guestbuild.BundleModule, a, b), c}, []string{guestbuild.BundleModule}},
		{"admin apart", []guestbuild.Source{bundle(guestbuild.BundleModule, a, b), c},
			[]guestbuild.Source{bundle("server/bundles/admin.wasm", b), bundle(guestbuild.BundleModule, a), c}, []string{"server/bundles/admin.wasm", guestbuild.BundleModule}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := modulesOf(regrouped(tt.before, tt.now)); !slices.Equal(got, tt.want) && (len(got) > 0 || len(tt.want) > 0) {
				t.Errorf("regrouped builds %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOrphansWaitForTheirHeirs: a module no source builds any more is
// removed at once when its routes are gone, but a bundle whose routes
// another module now builds (its directory renamed out of its goBundles
// pattern) serves until that module is written: it was removed before the
// build, and its routes answered 404 for the second the build took.
func TestOrphansWaitForTheirHeirs(t *testing.T) {
	route := func(dir, module string) guestbuild.Source {
		return guestbuild.Source{Lang: guestbuild.LangGo, Path: dir, Module: module}
	}
	bundle := func(module, dir string, routes ...guestbuild.Source) guestbuild.Source {
		return guestbuild.Source{Lang: guestbuild.LangGo, Path: dir, Module: module, Routes: routes}
	}
	before := []guestbuild.Source{
		bundle("server/bundles/go.wasm", "handlers/hello", route("handlers/hello", "server/api/hello.get.wasm")),
		bundle("server/bundles/orders.wasm", "handlers/orders",
			route("handlers/orders/a", "server/api/orders/a.get.wasm"), route("handlers/orders/b", "server/api/orders/b.get.wasm")),
		{Lang: guestbuild.LangC, Path: "server/api/x.get.c", Module: "server/api/x.get.wasm"},
	}
	// handlers/orders renamed handlers/shop, which no goBundles pattern
	// matches; the C route deleted.
	now := []guestbuild.Source{
		bundle("server/bundles/go.wasm", "handlers", route("handlers/hello", "server/api/hello.get.wasm"),
			route("handlers/shop/a", "server/api/orders/a.get.wasm"), route("handlers/shop/b", "server/api/orders/b.get.wasm")),
	}
	orphans := orphansOf(before, now)
	var got []string
	for _, o := range orphans {
		got = append(got, o.source.Module+" <- "+strings.Join(o.heirs, ","))
	}
	if want := []string{"server/bundles/orders.wasm <- server/bundles/go.wasm", "server/api/x.get.wasm <- "}; !slices.Equal(got, want) {
		t.Fatalf("orphansOf = %q, want %q", got, want)
	}

	app := t.TempDir()
	for _, m := range []string{"server/bundles/orders.wasm", "server/api/x.get.wasm"} {
		p := filepath.Join(app, filepath.FromSlash(m))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(m string) bool {
		_, err := os.Stat(filepath.Join(app, filepath.FromSlash(m)))
		return err == nil
	}
	var out syncBuffer
	c := newConsole(&out, false, false)
	building := []string{"server/bundles/go.wasm"}
	left := removeOrphans(app, orphans, func(o orphan) bool {
		return !slices.ContainsFunc(o.heirs, func(h string) bool { return slices.Contains(building, h) })
	}, c)
	if exists("server/api/x.get.wasm") || !exists("server/bundles/orders.wasm") || len(left) != 1 {
		t.Errorf("before the build: the deleted route's module is there: %v, the renamed bundle's: %v (%d left); want it gone, and the bundle kept",
			exists("server/api/x.get.wasm"), exists("server/bundles/orders.wasm"), len(left))
	}
	left = removeOrphans(app, left, func(o orphan) bool { return slices.Contains(o.heirs, "server/bundles/go.wasm") }, c)
	if exists("server/bundles/orders.wasm") || len(left) != 0 {
		t.Errorf("once its heir is written, the renamed bundle's module is still there")
	}
	if want := "removed server/bundles/orders.wasm: its routes are built into server/bundles/go.wasm now"; !strings.Contains(out.String(), want) {
		t.Errorf("console:\n%s\nwant %q", out.String(), want)
	}
}

// TestWatchSourcesKeepsAMovedBundleUntilItsHeirIsBuilt: a bundle's
// directory renamed out of its goBundles pattern moves its routes into
// the app's go.wasm; the old bundle is removed once go.wasm is written,
// not before the build, when its routes had nothing to serve them for as
// long as the build took.
func TestWatchSourcesKeepsAMovedBundleUntilItsHeirIsBuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	needGo(t)
	t.Parallel()
	app := filepath.Join(t.TempDir(), "moves")
	if code, out, errOut := runCLI("new", app); code != exitOK {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	if err := os.MkdirAll(filepath.Join(app, "handlers", "users"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(app, "handlers", "hello"), filepath.Join(app, "handlers", "users", "hello")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, app, map[string]string{"endpoints.json": `{"build": {"goBundles": {"users": ["handlers/users/**"]}}}`})
	sources, err := appSources(app, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.Build(t.Context(), app, app, sources, nil); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(app, "server", "bundles", "users.wasm")
	if _, err := os.Stat(old); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		modules   []string
		oldExists bool
	}
	building, built := make(chan seen, 1), make(chan seen, 1)
	exists := func() bool { _, err := os.Stat(old); return err == nil }
	rebuilding := func(modules []string) func() {
		building <- seen{modules, exists()}
		return func() { built <- seen{nil, exists()} }
	}
	watchSourcesOf(t, app, nil, rebuilding)
	if err := os.Rename(filepath.Join(app, "handlers", "users"), filepath.Join(app, "handlers", "people")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-building:
		if !slices.Equal(s.modules, []string{"server/bundles/go.wasm"}) || !s.oldExists {
			t.Errorf("as go.wasm's build began: rebuilding %v, users.wasm there: %v; want go.wasm alone, users.wasm still serving", s.modules, s.oldExists)
		}
	case <-time.After(time.Minute):
		t.Fatal("the renamed directory was never built")
	}
	select {
	case s := <-built:
		if s.oldExists {
			t.Error("users.wasm is still there once go.wasm, which builds its routes now, was written")
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the build never ended")
	}
}

// TestWatchSourcesIgnoresGoTests: saving a Go test file, or a file under
// a Go package's testdata, rebuilds nothing (go build reads neither); it
// rebuilt the route's Go module and so reloaded it. The save of a route
// source after them is the first build watchSources begins, and of that
// source's module alone.
func TestWatchSourcesIgnoresGoTests(t *testing.T) {
	needGo(t)
	t.Parallel()
	app := filepath.Join(t.TempDir(), "tests")
	if code, out, errOut := runCLI("new", app); code != exitOK {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	const marker = "server/routes/ping.get.c"
	writeFiles(t, app, map[string]string{marker: "int x;\n"})
	building := make(chan []string, 4)
	rebuilding := func(modules []string) func() {
		building <- modules
		return func() {}
	}
	watchSourcesOf(t, app, nil, rebuilding)
	writeFiles(t, app, map[string]string{
		"handlers/hello/hello_test.go":       "package hello\n",
		"handlers/hello/testdata/golden.go":  "package golden\n",
		"handlers/hello/testdata/want.json":  "{}\n",
		"handlers/hello/testdata/more/x.go":  "package more\n",
		"handlers/hello/hello_extra_test.go": "package hello_test\n",
	})
	writeFiles(t, app, map[string]string{marker: "int y;\n"})
	select {
	case modules := <-building:
		if want := []string{"server/routes/ping.get.wasm"}; !slices.Equal(modules, want) {
			t.Errorf("the first build after saving Go test files and testdata, then %s: rebuilding %v, want %v alone", marker, modules, want)
		}
	case <-time.After(time.Minute):
		t.Fatalf("saving %s built nothing", marker)
	}
}

// TestWatchSourcesAppliesOverrides: the dev watcher groups the sources by
// the build settings the start's build used, --set and ENDPOINTS_*
// overrides included: with build.goBundle=false set, a saved Go route
// rebuilds its own module, not the bundle (which the start did not build
// and whose routes the per-route modules already serve).
func TestWatchSourcesAppliesOverrides(t *testing.T) {
	needGo(t)
	t.Parallel()
	app := filepath.Join(t.TempDir(), "unbundled")
	if code, out, errOut := runCLI("new", app); code != exitOK {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	found, err := guestbuild.Find(app)
	if err != nil {
		t.Fatal(err)
	}
	var want []string // the Go routes' own modules, as built unbundled
	for _, s := range found {
		if s.Lang == guestbuild.LangGo {
			want = append(want, s.Module)
		}
	}
	if len(want) == 0 || slices.Contains(want, "server/bundles/go.wasm") {
		t.Fatalf("the new app's Go routes build into %v; want modules of their own", want)
	}
	ov, err := config.ParseOverride("build.goBundle=false")
	if err != nil {
		t.Fatal(err)
	}
	building := make(chan []string, 4)
	rebuilding := func(modules []string) func() {
		building <- modules
		return func() {}
	}
	watchSourcesOf(t, app, []config.Override{ov}, rebuilding)
	hello := filepath.Join(app, "handlers", "hello", "main.go")
	data, err := os.ReadFile(hello)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, app, map[string]string{"handlers/hello/main.go": string(data) + "\n// saved\n"})
	select {
	case modules := <-building:
		if !slices.Equal(modules, want) {
			t.Errorf("saving main.go with build.goBundle=false set rebuilds %v, want %v", modules, want)
		}
	case <-time.After(time.Minute):
		t.Fatal("saving main.go built nothing")
	}
}

// watchSourcesOf runs watchSources on app with the overrides ovs, telling
// rebuilding, until the test ends; it returns once the sources are
// watched.
func watchSourcesOf(t *testing.T, app string, ovs []config.Override, rebuilding func(modules []string) func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	var ready watchers
	go func() {
		defer close(stopped)
		_ = watchSources(testhook.WithWatching(ctx, ready.watching), app, ovs, rebuilding, newConsole(&syncBuffer{}, false, false), time.Now(), nil)
	}()
	t.Cleanup(func() { cancel(); <-stopped })
	if !waitUntil(t, 30*time.Second, func() bool { return ready.all("sources") }) {
		t.Fatal("the sources were not watched within 30 s")
	}
}
