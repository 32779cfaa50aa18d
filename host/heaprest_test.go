package host_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// TestReloadGivesHeapBackAtRest: the heap a reload's background
// compilation freed goes back to the system once the host rests, as the
// start's does, not only the start's: endpoints dev rested at 400-500 MB
// after a few saves of the users example's Go bundle, 120 MB after its
// start, all of the difference free heap the Go runtime kept.
func TestReloadGivesHeapBackAtRest(t *testing.T) {
	const file = "server/api/v.get.wasm"
	a := newApp(t).file(file, assemble(t, versionModule(1, false)))
	released := make(chan struct{}, 16)
	ctx := testhook.WithHeapReleased(context.Background(), time.Millisecond, func() { released <- struct{}{} })
	h, err := host.New(ctx, a.dir, host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: discardLogger()})
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	defer h.Close(context.Background())
	wait := func(what string) {
		t.Helper()
		if err := h.WaitCompiled(t.Context()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-released:
		case <-time.After(time.Minute):
			t.Fatalf("the heap was not given back after %s's compilation", what)
		}
	}
	wait("the start")
	for v := 2; v <= 3; v++ {
		if err := os.WriteFile(filepath.Join(a.dir, file), assemble(t, versionModule(v, false)), 0o644); err != nil {
			t.Fatal(err)
		}
		if report := h.Reload(t.Context()); len(report.Changed) != 1 || len(report.Problems) > 0 {
			t.Fatalf("reload to v%d: %s", v, report)
		}
		wait("a reload")
	}
	if rec := get(h, "/api/v"); rec.Code != 200 || rec.Body.String() != `{"version":3}` {
		t.Fatalf("GET /api/v after the reloads = %d %s, want v3", rec.Code, rec.Body)
	}
}

// TestReloadLetsThePreviousVersionGo: once a reload replaced a module,
// nothing holds the previous version's pool, nor with it its code and
// the decoded module wazero keeps beside the code (some 13 MB for the
// users example's Go bundle): the version that replaced it held the
// pools whose compilation its load stopped, after the reload needed
// them, until the next reload.
func TestReloadLetsThePreviousVersionGo(t *testing.T) {
	const file = "server/api/v.get.wasm"
	a := newApp(t).file(file, assemble(t, versionModule(1, false)))
	for _, tiers := range []bool{false, true} {
		h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Development, ServeWhileCompiling: tiers, CacheDir: t.TempDir(), Logger: discardLogger()})
		if err != nil {
			t.Fatalf("host.New: %v", err)
		}
		pools := h.ModulePools(file)
		if len(pools) != 1 {
			t.Fatalf("%d pools serve %s, want 1", len(pools), file)
		}
		collected := pools[0].Collected()
		pools = nil
		if err := os.WriteFile(filepath.Join(a.dir, file), assemble(t, versionModule(2, false)), 0o644); err != nil {
			t.Fatal(err)
		}
		if report := h.Reload(t.Context()); len(report.Changed) != 1 || len(report.Problems) > 0 {
			t.Fatalf("reload to v2: %s", report)
		}
		if err := h.WaitCompiled(t.Context()); err != nil {
			t.Fatal(err)
		}
		if rec := get(h, "/api/v"); rec.Code != 200 || rec.Body.String() != `{"version":2}` {
			t.Fatalf("GET /api/v after the reload = %d %s, want v2", rec.Code, rec.Body)
		}
		freed := poll.Until(time.Minute, func() bool {
			runtime.GC()
			select {
			case <-collected:
				return true
			default:
				return false
			}
		})
		if !freed {
			t.Errorf("serving while compiling %v: v1's pool is still held after a reload replaced it", tiers)
		}
		h.Close(context.Background())
		if err := os.WriteFile(filepath.Join(a.dir, file), assemble(t, versionModule(1, false)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
