package host_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// TestReloadAbandonsReplacedCompile: a module replaced by a reload before
// the background compiler got to it is not compiled (a developer who
// saves a Go bundle twice in a few seconds must not have the compiler
// spend seconds of a core on the first version beside the load of the
// second), and the version that replaced it is compiled and served.
func TestReloadAbandonsReplacedCompile(t *testing.T) {
	const file = "server/api/v.get.wasm"
	v1, v2 := assemble(t, versionModule(1, false)), assemble(t, versionModule(2, false))
	a := newApp(t).file(file, v1)
	hosts := make(chan *host.Host, 1)
	var first sync.Once
	reloaded := make(chan struct{}) // closed once the hook's reload is done
	ctx := testhook.WithCompiling(context.Background(), func() {
		// Right before the first background compilation, v1's: a reload
		// replaces v1 by v2.
		first.Do(func() {
			defer close(reloaded)
			h := <-hosts
			if err := os.WriteFile(filepath.Join(a.dir, file), v2, 0o644); err != nil {
				t.Error(err)
				return
			}
			if report := h.Reload(context.Background()); len(report.Changed) != 1 || len(report.Problems) > 0 {
				t.Errorf("reload to v2: %s", report)
			}
		})
	})
	h, err := host.New(ctx, a.dir, host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: discardLogger()})
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	defer h.Close(context.Background())
	hosts <- h
	// The reload queues compilations of its own: WaitCompiled waits for
	// those queued before it is called.
	<-reloaded
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := get(h, "/api/v"); rec.Code != 200 || rec.Body.String() != `{"version":2}` {
		t.Fatalf("GET /api/v after the reload = %d %s, want v2", rec.Code, rec.Body)
	}
	if h.Interpreted(file) {
		t.Errorf("v2 still runs in the interpreter after WaitCompiled")
	}
	// Had v1 been compiled, it would be in the compilation cache and load
	// compiled now; it must load in the interpreter, as code never
	// compiled does.
	release := h.HoldCompiler()
	defer release()
	if err := os.WriteFile(filepath.Join(a.dir, file), v1, 0o644); err != nil {
		t.Fatal(err)
	}
	if report := h.Reload(t.Context()); len(report.Changed) != 1 || len(report.Problems) > 0 {
		t.Fatalf("reload back to v1: %s", report)
	}
	if !h.Interpreted(file) {
		t.Errorf("v1, replaced before the compiler got to it, was compiled anyway: it loads compiled from the cache")
	}
}

// TestReloadResumesStoppedCompile: a reload stops the background
// compilation of a module while it loads the module's new bytes; when
// those fail to load, the previous version keeps serving and is compiled
// after all.
func TestReloadResumesStoppedCompile(t *testing.T) {
	const file = "server/api/v.get.wasm"
	v1 := assemble(t, versionModule(1, false))
	a := newApp(t).file(file, v1)
	hosts := make(chan *host.Host, 1)
	var first sync.Once
	reloaded := make(chan struct{}) // closed once the hook's reload is done
	ctx := testhook.WithCompiling(context.Background(), func() {
		// Right before v1's compilation: a reload of bytes that are not
		// a module stops it, and fails.
		first.Do(func() {
			defer close(reloaded)
			h := <-hosts
			if err := os.WriteFile(filepath.Join(a.dir, file), []byte("not wasm"), 0o644); err != nil {
				t.Error(err)
				return
			}
			if report := h.Reload(context.Background()); len(report.Problems) != 1 {
				t.Errorf("reload of a broken module: %s, want one problem", report)
			}
		})
	})
	h, err := host.New(ctx, a.dir, host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: discardLogger()})
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	defer h.Close(context.Background())
	hosts <- h
	// The reload queues compilations of its own: WaitCompiled waits for
	// those queued before it is called.
	<-reloaded
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := get(h, "/api/v"); rec.Code != 200 || rec.Body.String() != `{"version":1}` {
		t.Fatalf("GET /api/v after the failed reload = %d %s, want v1", rec.Code, rec.Body)
	}
	if h.Interpreted(file) {
		t.Errorf("v1 still runs in the interpreter after WaitCompiled: its compilation, stopped for the reload, never resumed")
	}
}

// TestDeferredStartGivesBackCompilerMemory: once the background
// compilations of a cold start are done, the host gives the heap the
// compiler freed back to the system (a forced collection, which
// runtime/metrics counts), rather than rest at the compiler's peak: a
// cold start of the users example rested at 1 GB RSS of which 51 MB was
// heap in use.
func TestDeferredStartGivesBackCompilerMemory(t *testing.T) {
	const file = "server/api/v.get.wasm"
	a := newApp(t).file(file, assemble(t, versionModule(1, false)))
	forced := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(forced)
	before := forced[0].Value.Uint64()
	h, _ := a.host(host.Options{Mode: host.Production, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: discardLogger()})
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h.Interpreted(file) {
		t.Fatalf("the module still runs in the interpreter after WaitCompiled")
	}
	if !waitFor(t, 10*time.Second, func() bool {
		metrics.Read(forced)
		return forced[0].Value.Uint64() > before
	}) {
		t.Errorf("no forced collection after the start's background compilation: the compiler's garbage stays in the process")
	}
}
