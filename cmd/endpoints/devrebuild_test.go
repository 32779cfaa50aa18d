package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
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
		_ = watchSources(ctx, app, rebuilding, newConsole(&syncBuffer{}, false, false), since)
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
