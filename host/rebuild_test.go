package host_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// TestRebuildingStopsCompile: while new bytes of a module are built
// (Host.Rebuilding, as endpoints dev calls it when a route's source is
// saved), the background compilation of the version it serves stops, so
// that the build has the cores; once the build is over, that version
// compiles again when the build left its bytes as they were (it failed,
// or wrote the same bytes), and never when the build wrote new ones:
// the reload that loads them takes over, serving them, or compiling the
// previous version again when they fail.
func TestRebuildingStopsCompile(t *testing.T) {
	const file = "server/api/v.get.wasm"
	v1, v2 := assemble(t, versionModule(1, false)), assemble(t, versionModule(2, false))
	for _, tc := range []struct {
		name string
		// built is what the build writes to file (nil: nothing, it
		// failed).
		built []byte
		// compiled: v1 runs compiled code once the build is over and
		// the compilations are done, before any reload.
		compiled bool
		// after is what GET /api/v answers after the reload that
		// follows and the compilations it queued.
		after string
	}{
		{"the build fails", nil, true, `{"version":1}`},
		{"the build writes the same bytes", v1, true, `{"version":1}`},
		{"the build writes new bytes", v2, false, `{"version":2}`},
		{"the build writes bytes that fail to load", []byte("not wasm"), false, `{"version":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApp(t).file(file, v1)
			hosts := make(chan *host.Host, 1)
			var first sync.Once
			var done func()
			rebuilding := make(chan struct{}) // closed once the hook called Rebuilding
			ctx := testhook.WithCompiling(context.Background(), func() {
				// Right before v1's compilation: its source is saved.
				first.Do(func() {
					defer close(rebuilding)
					done = (<-hosts).Rebuilding([]string{file})
				})
			})
			h, err := host.New(ctx, a.dir, host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: discardLogger()})
			if err != nil {
				t.Fatalf("host.New: %v", err)
			}
			defer h.Close(context.Background())
			hosts <- h
			<-rebuilding
			if err := h.WaitCompiled(t.Context()); err != nil {
				t.Fatal(err)
			}
			if !h.Interpreted(file) {
				t.Fatalf("v1 was compiled while its new bytes were being built")
			}
			if tc.built != nil {
				if err := os.WriteFile(filepath.Join(a.dir, file), tc.built, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			done()
			done() // a second call does nothing
			if err := h.WaitCompiled(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := !h.Interpreted(file); got != tc.compiled {
				t.Errorf("after the build, v1 runs compiled code: %v, want %v", got, tc.compiled)
			}
			h.Reload(t.Context())
			if err := h.WaitCompiled(t.Context()); err != nil {
				t.Fatal(err)
			}
			if rec := get(h, "/api/v"); rec.Code != 200 || rec.Body.String() != tc.after {
				t.Fatalf("GET /api/v after the reload = %d %s, want %s", rec.Code, rec.Body, tc.after)
			}
			if h.Interpreted(file) {
				t.Errorf("the module served after the reload still runs in the interpreter after WaitCompiled")
			}
		})
	}
}

// TestRebuildingLeavesOthersAlone: Rebuilding stops the compilation of
// the modules it names only, and names of modules the host does not
// serve are ignored.
func TestRebuildingLeavesOthersAlone(t *testing.T) {
	const file = "server/api/v.get.wasm"
	a := newApp(t).file(file, assemble(t, versionModule(1, false)))
	hosts := make(chan *host.Host, 1)
	var first sync.Once
	var done func()
	rebuilding := make(chan struct{})
	ctx := testhook.WithCompiling(context.Background(), func() {
		first.Do(func() {
			defer close(rebuilding)
			done = (<-hosts).Rebuilding([]string{"server/api/other.get.wasm"})
		})
	})
	h, err := host.New(ctx, a.dir, host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: discardLogger()})
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	defer h.Close(context.Background())
	hosts <- h
	<-rebuilding
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h.Interpreted(file) {
		t.Errorf("v1 was not compiled though another module was being built")
	}
	done()
}
