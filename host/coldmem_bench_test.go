package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/sections"
)

// coldRoutes is how many Go routes BenchmarkColdStartRSS serves: enough to
// see the cost per route, few enough to compile in a minute or two.
const coldRoutes = 10

// BenchmarkColdStartRSS measures the resident memory at rest after a cold
// start (an empty compilation cache, the interpreter serving while the
// compiler works) of an app of coldRoutes Go routes, each the users
// example's GET /api/users/{id} made distinct by a custom section, with
// and without the contract sections endpoints build adds (without them,
// the host runs each module to read its contract). Each start is measured
// once the background compilation is done: rest-MB is VmRSS then, live-MB
// the RSS after a collection returned what is free to the system, and
// interp-peak the most modules' interpreter code open at once.
//
//	GOMAXPROCS=2 go test ./host -run '^$' -bench ColdStartRSS -benchtime 1x
func BenchmarkColdStartRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads the resident set size from /proc")
	}
	out := filepath.Join(b.TempDir(), "get-user.wasm")
	if err := guestbuild.Go(context.Background(), "../examples/users/handlers/get-user", out); err != nil {
		b.Fatal(err)
	}
	plain, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	const rel = "server/api/users/[id].get.wasm"
	withSections, err := sections.Embed(context.Background(), b.TempDir(), rel, plain)
	if err != nil {
		b.Fatal(err)
	}
	for _, variant := range []struct {
		name string
		base []byte
	}{
		{"without-sections", plain},
		{"with-sections", withSections},
	} {
		b.Run(variant.name, func(b *testing.B) {
			a := newApp(b)
			for i := range coldRoutes {
				// A custom section (id 0): name "n", then the index.
				payload := append([]byte{1, 'n'}, fmt.Sprintf("%02d", i)...)
				mod := append(append(append([]byte{}, variant.base...), 0, byte(len(payload))), payload...)
				a.file(fmt.Sprintf("server/api/r%02d/[id].get.wasm", i), mod)
			}
			var rest, live, peak float64
			for range b.N {
				// What the previous start left goes back to the system
				// first, so that each start is measured alone.
				debug.FreeOSMemory()
				h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, ServeWhileCompiling: true, CacheDir: b.TempDir(), Logger: discardLogger()})
				if err != nil {
					b.Fatal(err)
				}
				if err := h.WaitCompiled(context.Background()); err != nil {
					b.Fatal(err)
				}
				rest += float64(procStatus(b, "VmRSS"))
				peak += float64(h.InterpreterUse().PeakCodes)
				debug.FreeOSMemory()
				live += float64(procStatus(b, "VmRSS"))
				h.Close(context.Background())
			}
			n := float64(b.N)
			b.ReportMetric(rest/n/(1<<20), "rest-MB")
			b.ReportMetric(live/n/(1<<20), "live-MB")
			b.ReportMetric(peak/n, "interp-peak")
			b.ReportMetric(0, "ns/op")
		})
	}
}
