package host_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestWatchReloadsOnChange: files written into the app are served without
// a call to Reload, including a new directory, and each reload is
// reported once per burst.
func TestWatchReloadsOnChange(t *testing.T) {
	v1, v2 := assemble(t, versionModule(1, false)), assemble(t, versionModule(2, false))
	a := newApp(t).file("server/api/v.get.wasm", v1)
	h, _ := a.host(host.Options{Mode: host.Development})
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var reports []string
	done := startWatch(t, ctx, h, func(r host.ReloadReport) {
		mu.Lock()
		reports = append(reports, r.String())
		mu.Unlock()
	})
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	get := func(path string) string {
		rec := serveOnce(h, "GET", path)
		return rec
	}
	write := func(rel string, data []byte) {
		p := filepath.Join(a.dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("server/api/v.get.wasm", v2)
	if !waitFor(t, 3*time.Second, func() bool { return get("/api/v") == `200 {"version":2}` }) {
		t.Fatalf("the changed module was not served: %s", get("/api/v"))
	}
	write("server/api/deep/new/w.get.wasm", v1)
	if !waitFor(t, 3*time.Second, func() bool { return get("/api/deep/new/w") == `200 {"version":1}` }) {
		t.Fatalf("a module in a new directory was not served: %s", get("/api/deep/new/w"))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 2 || !strings.Contains(reports[0], "changed server/api/v.get.wasm") || !strings.Contains(reports[1], "added server/api/deep/new/w.get.wasm") {
		t.Errorf("reports %q, want one per change", reports)
	}
}

// serveOnce answers one request through ServeHTTP: "status body".
func serveOnce(h *host.Host, method, path string) string {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return fmt.Sprintf("%d %s", rec.Code, rec.Body.String())
}

// BenchmarkWatchReload measures the time from a module file written into
// the app to its new version answering, under Watch: WAT modules, and Go
// modules (3-4 MB, compiled by wazero with a warm cache after the first
// round). go-new writes a Go module never seen before at every round (a
// saved change to a Go route, once built) to a host serving while
// compiling, as endpoints dev does, once the previous version's
// background compilation is over: the interpreter runs it. It reports
// milliseconds per reload.
//
//	go test ./host -run '^$' -bench WatchReload -benchtime 20x
func BenchmarkWatchReload(b *testing.B) {
	goGuest := func(src string) []byte {
		out := filepath.Join(b.TempDir(), "m.wasm")
		if err := guestbuild.Go(context.Background(), src, out); err != nil {
			b.Fatal(err)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	for _, bc := range []struct {
		name     string
		versions func() [2][]byte
		answers  [2]string
		fresh    bool
	}{
		{"wat", func() [2][]byte {
			return [2][]byte{assemble(b, versionModule(1, false)), assemble(b, versionModule(2, false))}
		}, [2]string{`200 {"version":1}`, `200 {"version":2}`}, false},
		{"go", func() [2][]byte {
			return [2][]byte{goGuest("../examples/users/handlers/health"), goGuest("testdata/guests/panic.get")}
		}, [2]string{"200 ok", `200 {"fine":true}`}, false},
		{"go-new", func() [2][]byte {
			return [2][]byte{goGuest("../examples/users/handlers/health"), goGuest("testdata/guests/panic.get")}
		}, [2]string{"200 ok", `200 {"fine":true}`}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			versions := bc.versions()
			a := newApp(b).file("server/api/v.get.wasm", versions[0])
			opts := host.Options{Mode: host.Development, Logger: discardLogger()}
			if bc.fresh {
				opts.ServeWhileCompiling, opts.CacheDir = true, b.TempDir()
			}
			h, _ := a.host(opts)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			startWatch(b, ctx, h, nil)
			path := filepath.Join(a.dir, "server/api/v.get.wasm")
			var total time.Duration
			b.ResetTimer()
			for i := range b.N {
				v := (i + 1) % 2
				wasm := versions[v]
				if bc.fresh {
					// A custom section (id 0) of 9 bytes: a name of 1
					// byte, "n", then 7 digits.
					wasm = fmt.Appendf(bytes.Clone(wasm), "\x00\x09\x01n%07d", i)
				}
				if bc.fresh {
					// The previous version's background compilation is
					// over, as after a pause between two saves.
					if err := h.WaitCompiled(ctx); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				if err := os.WriteFile(path, wasm, 0o644); err != nil {
					b.Fatal(err)
				}
				if !waitFor(b, 10*time.Second, func() bool { return serveOnce(h, "GET", "/api/v") == bc.answers[v] }) {
					b.Fatalf("version %d never served: %s", v, serveOnce(h, "GET", "/api/v"))
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/reload")
			b.ReportMetric(0, "ns/op")
		})
	}
}
