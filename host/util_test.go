package host_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
	"github.com/wasmendpoints/endpoints/internal/testhook"

	// The tests configure the redis driver by name in endpoints.json.
	_ "github.com/wasmendpoints/endpoints/storage/redis"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustRequest(t *testing.T, method, target string) *http.Request {
	t.Helper()
	return httptest.NewRequest(method, target, nil)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// waitFor checks cond at once, then at every tick of a 5 ms ticker, until
// it holds or d has passed, and reports whether it held. It is how the
// tests of this package wait for an event they can only observe as a
// condition (a log line, an answer, a file gone), never for a fixed time:
// d only bounds a wait that should end much sooner, so make it generous.
//
//	if !waitFor(t, 10*time.Second, func() bool { return strings.Contains(logs.String(), "msg=running") }) {
//		t.Fatalf("the guest did not start:\n%s", logs)
//	}
func waitFor(t testing.TB, d time.Duration, cond func() bool) bool {
	t.Helper()
	return poll.Until(d, cond)
}

// startWatch runs h.Watch with onReload in a goroutine and returns once
// its watcher is set up (the hook of internal/testhook), so that a file
// written from then on is seen. The channel receives what Watch returned.
// The host logs each reload's problems and warnings, as by default.
func startWatch(t testing.TB, ctx context.Context, h *host.Host, onReload func(host.ReloadReport)) <-chan error {
	t.Helper()
	return startWatchWith(t, ctx, h, host.WatchOptions{OnReload: onReload})
}

// startWatchWith is startWatch with the options of Watch.
func startWatchWith(t testing.TB, ctx context.Context, h *host.Host, opts host.WatchOptions) <-chan error {
	t.Helper()
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- h.Watch(testhook.WithWatching(ctx, func(string) { close(ready) }), opts)
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Watch returned %v before it watched", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not set up its watcher within 10 s")
	}
	return done
}
