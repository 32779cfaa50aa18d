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
