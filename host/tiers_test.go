package host_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/conformance"
)

// TestServeWhileCompiling: a module the cache does not hold serves at once
// with the interpreter, moves to compiled code when the background
// compiler is done, and starts compiled the next time.
func TestServeWhileCompiling(t *testing.T) {
	cache := t.TempDir()
	a := newApp(t).wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
	opts := host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: cache}
	h, _ := a.host(opts)
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	release := h.HoldCompiler()
	defer func() {
		if release != nil {
			release()
		}
	}()
	const file = "server/api/echo.get.wasm"
	a.wat(file, echoWithMarker)
	if report := h.Reload(t.Context()); !strings.Contains(report.String(), "added "+file) {
		t.Fatalf("reload: %s", report)
	}
	get := func(when string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/echo", nil))
		if rec.Code != 200 || rec.Header().Get("X-Handler") != "ran" || !strings.Contains(rec.Body.String(), `"route":"/api/echo"`) {
			t.Errorf("%s: GET /api/echo = %d %s", when, rec.Code, rec.Body)
		}
	}
	if !h.Interpreted(file) {
		t.Fatalf("a module the cache does not hold should start in the interpreter")
	}
	get("interpreted")
	// Requests keep coming while the pool moves to the compiled code: none
	// may fail for it.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/echo", nil))
				if rec.Code != 200 {
					failed.Add(1)
				}
			}
		}()
	}
	release()
	release = nil
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d requests failed while the module moved to compiled code", n)
	}
	if h.Interpreted(file) {
		t.Errorf("the module still runs in the interpreter after WaitCompiled")
	}
	get("compiled")

	again, _ := a.host(opts)
	if again.Interpreted(file) {
		t.Errorf("a module compiled into the cache before should start compiled")
	}
}

// TestServeWhileCompilingGo runs the conformance suite against the Go users
// example served while its modules compile: interpreted answers are the
// compiled ones.
func TestServeWhileCompilingGo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling the Go example's modules takes seconds")
	}
	srv, _ := (&app{t: t, dir: builtExample(t, "users")}).serve(host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: t.TempDir()})
	for _, r := range conformance.Run(context.Background(), srv.Client(), srv.URL, conformance.Users) {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Case.Name, r.Err)
		}
	}
}
