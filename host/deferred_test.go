package host_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/sections"
	"github.com/wasmendpoints/endpoints/internal/testhook"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

const itemContract = `{"request":{"params":{"type":"object","properties":{"id":{"type":"integer","maximum":9}},"required":["id"]}},"responses":{"200":{"description":"the item"}}}`

// embedSections writes into the module at rel the custom sections endpoints
// build adds (internal/sections).
func (a *app) embedSections(rel string) *app {
	a.t.Helper()
	p := filepath.Join(a.dir, filepath.FromSlash(rel))
	wasm, err := os.ReadFile(p)
	if err != nil {
		a.t.Fatal(err)
	}
	out, err := sections.Embed(context.Background(), a.dir, rel, wasm)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.file(rel, out)
}

// heldHost loads the app serving while compiling, with every background
// load and compilation held until release is closed.
func (a *app) heldHost(release <-chan struct{}) (*host.Host, *logBuffer) {
	a.t.Helper()
	logs := &logBuffer{}
	ctx := testhook.WithHold(context.Background(), release)
	h, err := host.New(ctx, a.dir, host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: a.t.TempDir(), Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		a.t.Fatalf("host.New: %v", err)
	}
	a.t.Cleanup(func() { h.Close(context.Background()) })
	return h, logs
}

func get(h *host.Host, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	return rec
}

// TestDeferredCode: a module carrying its contract sections is routed from
// them when New returns, before its code loads; requests that fail
// validation and the document need no code; the first request that reaches
// the guest loads it (in the interpreter, the cache being empty), and the
// background compiler then moves it to compiled code. A module without the
// sections runs before New returns, to read its contract, and then drops
// that interpreter code to load it again when needed, as one with them.
func TestDeferredCode(t *testing.T) {
	const file, bare = "server/api/items/[id].get.wasm", "server/api/bare.get.wasm"
	a := newApp(t).
		wat(file, watModule{contract: itemContract, handle: plainOK, extra: okData}).embedSections(file).
		wat(bare, watModule{contract: `{"responses":{"200":{"description":"ok"}}}`, handle: plainOK, extra: okData})
	release := make(chan struct{})
	h, _ := a.heldHost(release)
	if h.HasCode(file) {
		t.Fatal("the code of a module with its contract sections loaded before New returned")
	}
	if h.HasCode(bare) {
		t.Fatal("a module without the sections kept the interpreter's code it ran to read its contract: it loads again when needed, as one with them")
	}
	if rec := get(h, "/api/items/12"); rec.Code != 400 || !strings.Contains(rec.Body.String(), "less than or equal to 9") {
		t.Errorf("GET /api/items/12 = %d %s, want the 400 of the section's contract", rec.Code, rec.Body)
	}
	if rec := get(h, "/_endpoints/schema"); !strings.Contains(rec.Body.String(), `"/api/items/{id}"`) || !strings.Contains(rec.Body.String(), `"/api/bare"`) {
		t.Errorf("the document lacks a deferred route: %s", rec.Body)
	}
	if h.HasCode(file) {
		t.Fatal("a 400 or the document loaded the code")
	}
	if rec := get(h, "/api/items/3"); rec.Code != 200 || rec.Body.String() != "ok" {
		t.Fatalf("GET /api/items/3 = %d %s", rec.Code, rec.Body)
	}
	if rec := get(h, "/api/bare"); rec.Code != 200 || rec.Body.String() != "ok" || !h.Interpreted(bare) {
		t.Fatalf("GET /api/bare = %d %s (interpreted: %v), want ok from its code loaded again in the interpreter", rec.Code, rec.Body, h.Interpreted(bare))
	}
	if !h.Interpreted(file) {
		t.Error("the first request should load a module the cache lacks with the interpreter")
	}
	close(release)
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h.Interpreted(file) {
		t.Error("the module still runs in the interpreter after WaitCompiled")
	}
	if n := h.IdleInstances(file); n != 1 {
		t.Errorf("%d idle instances after the move to compiled code, want one warm instance", n)
	}
	if rec := get(h, "/api/items/4"); rec.Code != 200 || rec.Body.String() != "ok" {
		t.Errorf("GET /api/items/4 once compiled = %d %s", rec.Code, rec.Body)
	}
}

// TestDeferredCodeBackground: with nobody asking, the background loader
// loads deferred code (interpreted first, the cache being empty) and moves
// it to compiled code.
func TestDeferredCodeBackground(t *testing.T) {
	const file = "server/api/items/[id].get.wasm"
	a := newApp(t).wat(file, watModule{contract: itemContract, handle: plainOK, extra: okData}).embedSections(file)
	release := make(chan struct{})
	h, _ := a.heldHost(release)
	close(release)
	if err := h.WaitCompiled(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !h.HasCode(file) || h.Interpreted(file) {
		t.Errorf("after WaitCompiled: code %v, interpreted %v; want compiled code", h.HasCode(file), h.Interpreted(file))
	}
	if rec := get(h, "/api/items/3"); rec.Code != 200 {
		t.Errorf("GET /api/items/3 = %d %s", rec.Code, rec.Body)
	}
}

// TestDeferredCodeThatDisagrees: code that turns out not to be what its
// sections declare answers 500 saying why (in development), is logged, and
// WaitCompiled reports it; the other routes serve.
func TestDeferredCodeThatDisagrees(t *testing.T) {
	const endpoint, plain, good = "server/api/items/[id].get.wasm", "server/routes/plain.get.wasm", "server/api/good.get.wasm"
	a := newApp(t).
		wat(endpoint, watModule{contract: itemContract, handle: plainOK, extra: okData}).embedSections(endpoint).
		wat(plain, watModule{contract: `{"responses":{"200":{"description":"ok"}}}`, handle: plainOK, extra: okData}).
		wat(good, watModule{contract: `{"responses":{"200":{"description":"ok"}}}`, handle: plainOK, extra: okData}).embedSections(good)
	// The endpoint's section says another contract than its export; the
	// plain route carries the version section but not its contract's.
	rewrite := func(rel string, f func([]byte) ([]byte, error)) {
		p := filepath.Join(a.dir, filepath.FromSlash(rel))
		wasm, err := os.ReadFile(p)
		if err == nil {
			wasm, err = f(wasm)
		}
		if err != nil {
			t.Fatal(err)
		}
		a.file(rel, wasm)
	}
	rewrite(endpoint, func(w []byte) ([]byte, error) {
		w, err := wasmbin.WithoutCustom(w, abi.SectionContract)
		if err != nil {
			return nil, err
		}
		return wasmbin.WithCustom(w, abi.SectionContract, []byte(strings.Replace(itemContract, `"maximum":9`, `"maximum":99`, 1)))
	})
	rewrite(plain, func(w []byte) ([]byte, error) { return wasmbin.WithCustom(w, abi.SectionABIVersion, []byte("1")) })

	release := make(chan struct{})
	h, logs := a.heldHost(release)
	for target, want := range map[string]string{
		"/api/items/42": "its endpoints.contract section and its endpoints_contract export disagree",
		"/plain":        "no endpoints.contract section",
	} {
		rec := get(h, target)
		if rec.Code != 500 || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET %s = %d %s, want a 500 saying %q", target, rec.Code, rec.Body, want)
		}
	}
	// The document lists the endpoint's 500, whose schema takes the body.
	rec := get(h, "/api/items/42")
	readAnsweredDocument(t, h.Document()).check(t, "GET", "/api/items/{id}", response{status: rec.Code, header: rec.Header(), body: rec.Body.String()}, false)
	if rec := get(h, "/api/good"); rec.Code != 200 {
		t.Errorf("GET /api/good = %d %s", rec.Code, rec.Body)
	}
	close(release)
	err := h.WaitCompiled(t.Context())
	var le *host.LoadError
	if !errors.As(err, &le) || len(le.Problems) != 2 || !strings.Contains(err.Error(), endpoint) || !strings.Contains(err.Error(), plain) {
		t.Errorf("WaitCompiled = %v, want a LoadError naming %s and %s", err, endpoint, plain)
	}
	if c := h.Ready(t.Context())[0]; c.Name != host.CheckRoutes || c.Err == nil || !strings.Contains(c.Err.Error(), "2 route module(s) failed to load") {
		t.Errorf("readiness %s: %v, want it to fail for the two modules", c.Name, c.Err)
	}
	if !strings.Contains(logs.String(), "route module failed to load") {
		t.Errorf("the failure was not logged:\n%s", logs)
	}
	if rec := get(h, "/api/items/42"); rec.Code != 500 {
		t.Errorf("GET /api/items/42 again = %d, want 500", rec.Code)
	}
}

// TestCodeStillLoading: a request whose route's code does not load before
// its deadline is told to retry: 503 with Retry-After, and in development
// data saying the route's code is still loading; in production no data.
// Once the code loads, the route serves.
func TestCodeStillLoading(t *testing.T) {
	const file = "server/api/items/[id].get.wasm"
	for _, mode := range []host.Mode{host.Development, host.Production} {
		t.Run(mode.String(), func(t *testing.T) {
			a := newApp(t).
				wat(file, watModule{contract: itemContract, handle: plainOK, extra: okData}).embedSections(file).
				file("endpoints.json", []byte(`{"limits": {"timeout": "100ms"}}`))
			release := make(chan struct{})
			ctx := testhook.WithLoadingCode(context.Background(), func() { <-release })
			h, err := host.New(ctx, a.dir, host.Options{Mode: mode, ServeWhileCompiling: true, CacheDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logBuffer{}, nil))})
			if err != nil {
				t.Fatalf("host.New: %v", err)
			}
			t.Cleanup(func() { h.Close(context.Background()) })
			released := false
			t.Cleanup(func() {
				if !released {
					close(release)
				}
			})
			rec := get(h, "/api/items/3")
			if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" {
				t.Fatalf("GET /api/items/3 while its code loads = %d (Retry-After %q) %s, want 503 with Retry-After: 1", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
			}
			body := rec.Body.String()
			if dev := mode == host.Development; dev != strings.Contains(body, "still loading") || dev != strings.Contains(body, "retry") {
				t.Errorf("503 body in %s = %s, want data saying the code is still loading and to retry in development only", mode, body)
			}
			// Listed by the document; in production, its example.
			readAnsweredDocument(t, h.Document()).check(t, "GET", "/api/items/{id}", response{status: rec.Code, header: rec.Header(), body: body}, mode == host.Production)
			close(release)
			released = true
			if err := h.WaitCompiled(t.Context()); err != nil {
				t.Fatal(err)
			}
			if rec := get(h, "/api/items/3"); rec.Code != 200 {
				t.Errorf("GET /api/items/3 once loaded = %d %s", rec.Code, rec.Body)
			}
		})
	}
}
