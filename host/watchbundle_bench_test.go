package host_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/cputime"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// BenchmarkWatchReloadBundle measures the time from a new Go bundle
// written into the app (a saved Go route, once `go build` is done: 12 MB
// for the users example) to the version that carries it being served,
// under Watch, on a host serving while compiling with a compilation
// cache, as endpoints dev runs it. Each round writes bytes never seen
// before (the example's bundle with a custom section of its own), so the
// cache never holds them: the interpreter runs the new bundle while the
// compiler works in the background. "pause" saves once the previous
// version's compilation is over; "busy" saves while it still runs, as a
// developer saving twice in a few seconds does. It reports milliseconds
// per reload, the load's share of them as the host reports it, and the
// CPU time the process spent from the write to the report (cpu-ms/reload:
// on a shared machine the steadier figure; in "busy" it includes what the
// previous version's compiler spent before the reload stopped it).
//
//	go test ./host -run '^$' -bench WatchReloadBundle -benchtime 3x
func BenchmarkWatchReloadBundle(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: building and compiling the users example's bundle takes seconds")
	}
	built := builtExample(b, "users+bundle")
	bundle, err := os.ReadFile(filepath.Join(built, filepath.FromSlash(guestbuild.BundleModule)))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		pause bool
	}{{"pause", true}, {"busy", false}} {
		b.Run(bc.name, func(b *testing.B) {
			// A copy of the built example: this benchmark writes into it.
			dir := b.TempDir()
			if err := os.CopyFS(dir, os.DirFS(built)); err != nil {
				b.Fatal(err)
			}
			a := &app{t: b, dir: dir}
			h, _ := a.host(host.Options{Mode: host.Development, ServeWhileCompiling: true, CacheDir: b.TempDir(), Logger: discardLogger()})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			reports := make(chan host.ReloadReport, 16)
			startWatch(b, ctx, h, func(r host.ReloadReport) { reports <- r })
			if err := h.WaitCompiled(ctx); err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(dir, filepath.FromSlash(guestbuild.BundleModule))
			var total, loads, cpu time.Duration
			b.ResetTimer()
			for i := range b.N {
				// A custom section (id 0) of 9 bytes: a name of 1 byte,
				// "n", then 7 digits.
				wasm := fmt.Appendf(bytes.Clone(bundle), "\x00\x09\x01n%07d", i)
				if bc.pause {
					if err := h.WaitCompiled(ctx); err != nil {
						b.Fatal(err)
					}
				}
				// Written aside and renamed, as a build writes it: the
				// watcher never sees half a bundle.
				if err := os.WriteFile(path+".tmp", wasm, 0o644); err != nil {
					b.Fatal(err)
				}
				cpu0, start := cputime.Process(), time.Now()
				if err := os.Rename(path+".tmp", path); err != nil {
					b.Fatal(err)
				}
				var r host.ReloadReport
				select {
				case r = <-reports:
				case <-time.After(2 * time.Minute):
					b.Fatal("the new bundle was not reloaded within 2 minutes")
				}
				// Served: the reload swapped the version in when it
				// returned its report.
				total += time.Since(start)
				cpu += cputime.Process() - cpu0
				loads += r.Took
				if len(r.Problems) > 0 || !slices.Contains(r.Changed, guestbuild.BundleModule) {
					b.Fatalf("reload: %s: %v", r, r.Problems)
				}
				if got := serveOnce(h, "GET", "/health"); got != "200 ok" {
					b.Fatalf("GET /health after the reload = %s", got)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/reload")
			b.ReportMetric(float64(loads.Milliseconds())/float64(b.N), "load-ms/reload")
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/reload")
			b.ReportMetric(0, "ns/op")
			cancel()
			_ = h.WaitCompiled(context.Background())
		})
	}
}
