package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// BenchmarkStartup50 measures host.New on an app of 50 Go route modules,
// with a cold compilation cache (an empty directory each time) and a warm
// one. The modules are one Go guest made distinct by a custom section
// holding its index, so each compiles on its own as 50 real routes would.
//
//	go test ./host -run '^$' -bench Startup50 -benchtime 3x
func BenchmarkStartup50(b *testing.B) {
	out := filepath.Join(b.TempDir(), "health.wasm")
	if err := guestbuild.Go(context.Background(), "../examples/users/handlers/health", out); err != nil {
		b.Fatal(err)
	}
	base, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	a := newApp(b)
	for i := range 50 {
		// A custom section (id 0): name "n", then the index.
		payload := append([]byte{1, 'n'}, fmt.Sprintf("%02d", i)...)
		mod := append(append(append([]byte{}, base...), 0, byte(len(payload))), payload...)
		a.file(fmt.Sprintf("server/routes/r%02d.get.wasm", i), mod)
	}
	load := func(b *testing.B, cache string) time.Duration {
		start := time.Now()
		h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: cache, Logger: discardLogger()})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if n := len(h.Routes()); n != 50 {
			b.Fatalf("%d routes, want 50", n)
		}
		h.Close(context.Background())
		return took
	}
	b.Run("cold", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			total += load(b, b.TempDir())
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/start")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("warm", func(b *testing.B) {
		cache := b.TempDir()
		load(b, cache)
		var total time.Duration
		for range b.N {
			total += load(b, cache)
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/start")
		b.ReportMetric(0, "ns/op")
	})
}
