package interrupt

import (
	"context"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// BenchmarkInstrumentedCall compares one call of a hot loop and of a
// recursive function: plain, instrumented (with a Budget reset per call, as
// the host does) and with wazero's WithCloseOnContextDone (with a context
// that has a deadline). Divide the ns/op of the last two by the first to
// get the ratios of the package doc.
//
//	go test ./internal/interrupt -run XXX -bench InstrumentedCall -count 6
func BenchmarkInstrumentedCall(b *testing.B) {
	workloads := []struct {
		name string
		wat  string
		fn   string
		args []uint64
	}{
		{"loop sum(1e6)", "loop", "sum", []uint64{1_000_000}},
		{"recursion fib(25)", "recursion", "fib", []uint64{25}},
	}
	for _, w := range workloads {
		plain := wat(b, w.wat)
		b.Run(w.name, func(b *testing.B) {
			b.Run("plain", func(b *testing.B) {
				fn := benchFunction(b, wazero.NewRuntimeConfig(), plain, w.fn)
				ctx := context.Background()
				for b.Loop() {
					if _, err := fn.Call(ctx, w.args...); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("instrumented", func(b *testing.B) {
				fn := benchFunction(b, wazero.NewRuntimeConfig(), instrument(b, plain, DefaultPeriod), w.fn)
				var budget Budget
				for b.Loop() {
					budget.Reset(time.Now().Add(time.Minute))
					if _, err := fn.Call(WithBudget(context.Background(), &budget), w.args...); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("WithCloseOnContextDone", func(b *testing.B) {
				fn := benchFunction(b, wazero.NewRuntimeConfig().WithCloseOnContextDone(true), plain, w.fn)
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				for b.Loop() {
					if _, err := fn.Call(ctx, w.args...); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// benchFunction instantiates wasm in a new runtime with config, the
// interrupt host module and env.twice, and returns its export fn.
func benchFunction(b *testing.B, config wazero.RuntimeConfig, wasm []byte, fn string) api.Function {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, config)
	b.Cleanup(func() { rt.Close(ctx) })
	if err := NewHostModule(ctx, rt, DefaultPeriod); err != nil {
		b.Fatal(err)
	}
	_, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {}),
			[]api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
		Export("twice").Instantiate(ctx)
	if err != nil {
		b.Fatal(err)
	}
	mod, err := rt.Instantiate(ctx, wasm)
	if err != nil {
		b.Fatal(err)
	}
	return mod.ExportedFunction(fn)
}

// BenchmarkInstrument measures the rewrite of a Go guest (about 1.9 MB).
func BenchmarkInstrument(b *testing.B) {
	wasm := goGuest(b)
	b.SetBytes(int64(len(wasm)))
	for b.Loop() {
		if _, err := Instrument(wasm, DefaultPeriod); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoGuestRewrite runs testdata/goguest's branchy loop (1000
// iterations whose bodies jump forward) plain, with a check at every loop
// header (every-loop) and with the dispatch rewrite (dispatch), a Budget
// reset per call as the host does. guest-sdk/go's
// BenchmarkWasmGuestDBRewrite does the same for a whole request.
//
//	go test ./internal/interrupt -run XXX -bench GoGuestRewrite -benchtime 20000x -count 6
func BenchmarkGoGuestRewrite(b *testing.B) {
	plain := goGuest(b)
	for _, v := range []struct {
		name string
		opts *Options // nil: not rewritten
	}{
		{"plain", nil},
		{"every-loop", &Options{EveryLoop: true}},
		{"dispatch", &Options{}},
	} {
		b.Run(v.name, func(b *testing.B) {
			wasm := plain
			if v.opts != nil {
				var err error
				if wasm, err = InstrumentWith(plain, DefaultPeriod, *v.opts); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			rt := wazero.NewRuntime(ctx)
			b.Cleanup(func() { rt.Close(ctx) })
			wasi_snapshot_preview1.MustInstantiate(ctx, rt)
			if err := NewHostModule(ctx, rt, DefaultPeriod); err != nil {
				b.Fatal(err)
			}
			mod, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions("_initialize"))
			if err != nil {
				b.Fatal(err)
			}
			fn := mod.ExportedFunction("branchy")
			var budget Budget
			callCtx := WithBudget(ctx, &budget)
			defer cputime.Report(b)()
			for b.Loop() {
				budget.Reset(time.Now().Add(time.Minute))
				if _, err := fn.Call(callCtx, 1000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
