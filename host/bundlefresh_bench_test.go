package host_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/abihost"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/cputime"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
	"github.com/wasmendpoints/endpoints/internal/linearmem"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// BenchmarkBundleFreshInstance measures what a fresh instance of a Go
// bundle costs the host, and where it goes: the users example's routes
// linked into one bundle, as endpoints build makes it. The host makes
// one at a cold start, for each instance a burst adds to a pool, and in
// place of each instance a failed call discards (a panic, a trap): in a
// bundle, the failing route's next call makes it (engine.Lane), so that
// the route pays for its own failures (BenchmarkBundleFailingNeighbour).
//
// Each round, in turn:
//
//   - instance: the engine's Pool.Warm and Close, what the host does for
//     a fresh instance (the code instrumented and compiled once, before);
//   - instantiate: wazero's InstantiateModule alone, without the start
//     function (the module's memory made, its data segments copied: the
//     engine merged them, wasmbin.MergeData);
//   - initialize: the start function (_initialize) of such an instance:
//     the Go runtime's start and every package's init, the routes'
//     registrations (endpoints.BundleInit) among them.
//
// It reports each as CPU time per instance (NAME-cpu-us/instance; on a
// shared machine the steadier figure). The host calls nothing more on a
// fresh instance: its contract is read once, at load, from the warm
// instance. Memories are mapped outside the Go heap where the host maps
// them (internal/linearmem).
//
// ENDPOINTS_BENCH_BUNDLE, when set, names another build of the bundle
// (server/bundles/go.wasm of a checkout before a change), measured in
// the same rounds, alternating with this one's, as before-NAME: a change
// to the SDK shows side by side.
//
//	go test ./host -run '^$' -bench BundleFreshInstance -benchtime 200x
func BenchmarkBundleFreshInstance(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: building the users example's bundle takes seconds")
	}
	built := builtExample(b, "users+bundle")
	wasm, err := os.ReadFile(filepath.Join(built, filepath.FromSlash(guestbuild.BundleModule)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{MemoryBytes: config.DefaultMemoryBytes, MapMemory: linearmem.Supported, Logger: discardLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close(ctx) })
	variants := []*freshVariant{newFreshVariant(b, e, "", wasm)}
	if other := os.Getenv("ENDPOINTS_BENCH_BUNDLE"); other != "" {
		before, err := os.ReadFile(other)
		if err != nil {
			b.Fatalf("ENDPOINTS_BENCH_BUNDLE: %v", err)
		}
		variants = append(variants, newFreshVariant(b, e, "before-", before))
	}
	const rounds = 10
	perRound := max(b.N/rounds, 1)
	b.ResetTimer()
	for range rounds {
		for _, v := range variants {
			v.round(b, ctx, perRound)
		}
	}
	b.StopTimer()
	n := float64(rounds * perRound)
	for _, v := range variants {
		if v.instance == 0 {
			return // no CPU time on this platform
		}
		b.ReportMetric(float64(v.instance.Microseconds())/n, v.name+"instance-cpu-us/instance")
		b.ReportMetric(float64(v.instantiate.Microseconds())/n, v.name+"instantiate-cpu-us/instance")
		b.ReportMetric(float64(v.initialize.Microseconds())/n, v.name+"initialize-cpu-us/instance")
	}
	if len(variants) == 2 {
		b.ReportMetric(float64(variants[0].initialize)/float64(variants[1].initialize), "initialize/before")
		b.ReportMetric(float64(variants[0].instance)/float64(variants[1].instance), "instance/before")
	}
	b.ReportMetric(0, "ns/op") // the figures above are the result
}

// freshVariant is one build of the bundle BenchmarkBundleFreshInstance
// measures, and the CPU time its instances took.
type freshVariant struct {
	name string // "" or "before-": the prefix of its metrics
	pool *engine.Pool

	// runtime and compiled instantiate it apart from the engine, to time
	// the start function alone.
	runtime  wazero.Runtime
	compiled wazero.CompiledModule

	instance, instantiate, initialize time.Duration
}

func newFreshVariant(b *testing.B, e *engine.Engine, name string, wasm []byte) *freshVariant {
	ctx := context.Background()
	const file = guestbuild.BundleModule
	c, err := e.Prepare(ctx, wasm, file, false)
	if err != nil {
		b.Fatal(err)
	}
	v := &freshVariant{name: name, pool: e.NewPool(c, file, 1, false)}
	b.Cleanup(func() { v.pool.Close(ctx) })

	// The same code as the engine's (host/internal/engine/interrupt.go:
	// instrumented by internal/interrupt, its data segments merged), in a
	// runtime of its own.
	instrumented, err := interrupt.Instrument(wasm, interrupt.DefaultPeriod)
	if err != nil {
		b.Fatal(err)
	}
	if instrumented, _, err = wasmbin.MergeData(instrumented, wasmbin.DefaultDataGap); err != nil {
		b.Fatal(err)
	}
	v.runtime = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithMemoryLimitPages(uint32(config.DefaultMemoryBytes/65536)))
	b.Cleanup(func() { _ = v.runtime.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, v.runtime)
	if err := abihost.Instantiate(ctx, v.runtime); err != nil {
		b.Fatal(err)
	}
	if err := interrupt.NewHostModule(ctx, v.runtime, interrupt.DefaultPeriod); err != nil {
		b.Fatal(err)
	}
	if v.compiled, err = v.runtime.CompileModule(ctx, instrumented); err != nil {
		b.Fatal(err)
	}
	return v
}

// round makes n fresh instances each way, and adds up their CPU time.
func (v *freshVariant) round(b *testing.B, ctx context.Context, n int) {
	start := cputime.Process()
	for range n {
		in, err := v.pool.Warm(ctx)
		if err != nil {
			b.Fatal(err)
		}
		in.Close(ctx)
	}
	v.instance += cputime.Process() - start
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions()
	for range n {
		start := cputime.Process()
		mctx := ctx
		if linearmem.Supported {
			mctx = experimental.WithMemoryAllocator(ctx, &linearmem.Recorder{})
		}
		mod, err := v.runtime.InstantiateModule(mctx, v.compiled, cfg)
		if err != nil {
			b.Fatal(err)
		}
		v.instantiate += cputime.Process() - start
		start = cputime.Process()
		if _, err := mod.ExportedFunction(abi.StartFunction).Call(ctx); err != nil {
			b.Fatal(err)
		}
		v.initialize += cputime.Process() - start
		_ = mod.Close(ctx) // frees the memory mem allocated
	}
}
