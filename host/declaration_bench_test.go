package host_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/cputime"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// BenchmarkBundleDeclaration measures the Go SDK's part of a saved
// route's reload: the users example's bundle declaring its routes (the
// endpoints_contract export: every route's schemas derived and its
// contract written) in wazero's interpreter, which runs a saved bundle's
// new version until the compiler is done, in a fresh instance each
// round. The host's functions are stubs that answer zero: the
// declaration calls none. It reports the declaration's wall and CPU
// milliseconds; compare two versions of the SDK by running it in each
// tree in turn.
//
//	go test ./host -run '^$' -bench BundleDeclaration -benchtime 10x
func BenchmarkBundleDeclaration(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: building the users example's bundle takes seconds")
	}
	built := builtExample(b, "users+bundle")
	wasm, err := os.ReadFile(filepath.Join(built, filepath.FromSlash(guestbuild.BundleModule)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	compiled, err := r.CompileModule(ctx, wasm)
	if err != nil {
		b.Fatal(err)
	}
	stubs := map[string]wazero.HostModuleBuilder{}
	for _, f := range compiled.ImportedFunctions() {
		module, name, _ := f.Import()
		if module == wasi_snapshot_preview1.ModuleName {
			continue
		}
		if stubs[module] == nil {
			stubs[module] = r.NewHostModuleBuilder(module)
		}
		results := len(f.ResultTypes())
		stubs[module].NewFunctionBuilder().WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
			clear(stack[:results])
		}), f.ParamTypes(), f.ResultTypes()).Export(name)
	}
	for module, s := range stubs {
		if _, err := s.Instantiate(ctx); err != nil {
			b.Fatalf("stubs of %s: %v", module, err)
		}
	}
	var wall, cpu time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		mod, err := r.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0, start := cputime.Process(), time.Now()
		res, err := mod.ExportedFunction(abi.ExportContract).Call(ctx)
		wall += time.Since(start)
		cpu += cputime.Process() - cpu0
		if err != nil {
			b.Fatal(err)
		}
		if res[0] == 0 {
			b.Fatal("the bundle declared nothing")
		}
		b.StopTimer()
		mod.Close(ctx)
		b.StartTimer()
	}
	b.ReportMetric(float64(wall.Microseconds())/1000/float64(b.N), "ms/declaration")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/declaration")
	b.ReportMetric(0, "ns/op")
}
