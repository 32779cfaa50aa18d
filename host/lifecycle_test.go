package host_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// slowModule logs "running", sleeps ms milliseconds, then answers "done".
func slowModule(ms int) watModule {
	data, write := watWrite(4096, "done")
	return watModule{
		imports: wasiPoll,
		extra:   sleepFn + data + `  (data (i32.const 8192) "running")` + "\n",
		handle: `(call $log (i32.const 1) (i32.const 8192) (i32.const 7)) (call $sleep (i64.const ` +
			strconv.FormatInt(int64(ms)*1e6, 10) + `)) ` + write + ` (i32.const 0)`,
	}
}

// serveHost serves h on a real HTTP server for the test.
func serveHost(t *testing.T, h *host.Host) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// TestShutdownFinishesRequestsInFlight: Shutdown lets a running request
// finish, refuses new ones with 503, then closes.
func TestShutdownFinishesRequestsInFlight(t *testing.T) {
	t.Parallel()
	a := newApp(t).
		wat("server/routes/slow.get.wasm", slowModule(300)).
		wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
	h, logs := a.host(host.Options{Mode: host.Development})
	srv := serveHost(t, h)
	slow := make(chan fetched, 1)
	go func() { slow <- fetch(srv, "/slow") }()
	if !waitFor(t, 10*time.Second, func() bool { return strings.Contains(logs.String(), "msg=running") }) {
		t.Fatalf("the slow guest did not start:\n%s", logs)
	}
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(context.Background()) }()
	// New requests are refused while the slow one runs.
	if !waitFor(t, 10*time.Second, func() bool { return fetch(srv, "/ok").status == 503 }) {
		t.Fatal("requests after Shutdown began were still served")
	}
	if got := <-slow; got.status != 200 || got.body != "done" {
		t.Errorf("the request in flight got %d %q, want 200 done", got.status, got.body)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown = %v, want nil", err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Errorf("Close after Shutdown = %v, want nil", err)
	}
}

// TestShutdownStopsGuestsWhenItsContextEnds: a guest that would sleep for
// a minute is stopped when Shutdown's context ends.
func TestShutdownStopsGuestsWhenItsContextEnds(t *testing.T) {
	a := newApp(t).wat("server/routes/slow.get.wasm", slowModule(60_000))
	h, logs := a.host(host.Options{Mode: host.Development, Limits: config.Limits{Timeout: config.Duration(2 * time.Minute)}})
	srv := serveHost(t, h)
	slow := make(chan fetched, 1)
	go func() { slow <- fetch(srv, "/slow") }()
	if !waitFor(t, 10*time.Second, func() bool { return strings.Contains(logs.String(), "msg=running") }) {
		t.Fatalf("the slow guest did not start:\n%s", logs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("Shutdown took %s: the sleeping guest was not stopped", took)
	}
	got := <-slow
	if got.status != 503 || !strings.Contains(got.body, "shutting down") {
		t.Errorf("the stopped request got %d %s, want a 503 saying the host is shutting down", got.status, got.body)
	}
}

// TestCloseDuringReload: Close waits for a reload in progress, and the
// version that reload loaded is never served nor left open.
func TestCloseDuringReload(t *testing.T) {
	t.Parallel()
	a := newApp(t).wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
	h, logs := a.host(host.Options{Mode: host.Development})
	// A module whose start function takes 300 ms makes the reload slow.
	data, write := watWrite(4096, "new")
	a.wat("server/routes/new.get.wasm", watModule{imports: wasiPoll, extra: sleepFn + data +
		`  (func (export "_initialize") (call $sleep (i64.const 300000000)))` + "\n", handle: write + ` (i32.const 0)`})
	reloaded := make(chan host.ReloadReport, 1)
	go func() { reloaded <- h.Reload(context.Background()) }()
	if !waitFor(t, 10*time.Second, func() bool { return strings.Contains(logs.String(), "loading server/routes/new.get.wasm") }) {
		t.Fatalf("the reload did not start:\n%s", logs)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatalf("Close = %v", err)
	}
	report := <-reloaded
	if len(report.Problems) == 0 || !errors.Is(report.Problems[len(report.Problems)-1], host.ErrClosed) {
		t.Errorf("the reload that Close interrupted reported %v, want host.ErrClosed", report.Problems)
	}
	if routes := h.Routes(); len(routes) != 0 {
		t.Errorf("a closed host serves %v", routes)
	}
	if again := h.Reload(context.Background()); len(again.Problems) != 1 || !errors.Is(again.Problems[0], host.ErrClosed) {
		t.Errorf("Reload after Close = %v, want host.ErrClosed", again.Problems)
	}
}

// TestShutdownStopsWatch: Watch returns when the host shuts down.
func TestShutdownStopsWatch(t *testing.T) {
	a := newApp(t).wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
	h, _ := a.host(host.Options{Mode: host.Development})
	watching := startWatch(t, context.Background(), h, nil)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	select {
	case err := <-watching:
		if err != nil {
			t.Errorf("Watch = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch still runs after Shutdown")
	}
}
