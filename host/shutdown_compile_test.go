package host_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// shutdownBound is how long TestShutdownAbandonsCompilation lets Shutdown
// take: generous, for a loaded machine. Without the abandon Shutdown never
// returns here, the compilation being held until it does.
const shutdownBound = 30 * time.Second

// TestShutdownAbandonsCompilation: a SIGTERM during a cold start's
// background compilation must not wait for the compiler (seconds, past a
// container's stop grace period). The compilation is held in progress
// until Shutdown has returned; the host then serves nothing, and the
// compilation, released, ends without swapping its code in.
func TestShutdownAbandonsCompilation(t *testing.T) {
	a := newApp(t).wat("server/api/hello.get.wasm", watModule{contract: `{"responses":{"200":{"description":"ok"}}}`, handle: plainOK, extra: okData})
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	ctx := testhook.WithCompiling(context.Background(), func() {
		started <- struct{}{}
		<-release
	})
	h, err := host.New(ctx, a.dir, host.Options{Mode: host.Production, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	if rec := get(h, "/api/hello"); rec.Code != 200 {
		t.Fatalf("GET /api/hello while compiling = %d %s, want 200 from the interpreter", rec.Code, rec.Body)
	}
	select {
	case <-started:
	case <-time.After(shutdownBound):
		t.Fatal("the background compilation never started")
	}
	done := make(chan error, 1)
	go func() { done <- h.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Shutdown = %v", err)
		}
	case <-time.After(shutdownBound):
		t.Errorf("Shutdown still waits for the compilation after %s", shutdownBound)
	}
	close(release)
	if rec := get(h, "/api/hello"); rec.Code != 503 {
		t.Errorf("GET /api/hello after Shutdown = %d, want 503", rec.Code)
	}
	if err := h.WaitCompiled(context.Background()); err != nil {
		t.Errorf("WaitCompiled after the abandoned compilation ended = %v", err)
	}
}
