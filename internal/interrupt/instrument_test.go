package interrupt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// call is one call of an exported function and the results it must give.
type call struct {
	fn   string
	args []uint64
	want []uint64
}

// run makes the calls in order on mod with a Budget far from its deadline,
// failing the test when a result differs.
func run(t *testing.T, mod api.Module, calls []call) {
	t.Helper()
	var b Budget
	b.Reset(time.Now().Add(time.Minute))
	ctx := WithBudget(context.Background(), &b)
	for _, c := range calls {
		fn := mod.ExportedFunction(c.fn)
		if fn == nil {
			t.Fatalf("no export %q", c.fn)
		}
		got, err := fn.Call(ctx, c.args...)
		if err != nil {
			t.Fatalf("%s%v: %v", c.fn, c.args, err)
		}
		if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%s%v = %v, want %v", c.fn, c.args, got, c.want)
		}
	}
}

func TestInstrumentKeepsResults(t *testing.T) {
	tests := []struct {
		name  string
		wat   string
		flags []string
		calls []call
	}{
		{"plain loops", "loop", nil, []call{
			{"sum", []uint64{100}, []uint64{5050}},
			{"calls", []uint64{1000}, []uint64{1000}},
		}},
		{"recursion without loops", "recursion", nil, []call{
			{"fib", []uint64{20}, []uint64{6765}},
			{"is_even", []uint64{1001}, []uint64{0}},
			{"is_odd", []uint64{1001}, []uint64{1}},
			{"twice_fib", []uint64{10}, []uint64{110}},
		}},
		{"tail calls", "tailcall", []string{"--enable-tail-call"}, []call{
			{"count", []uint64{1_000_000, 5}, []uint64{3_000_005}},
		}},
		{"function references in all element encodings and a global", "funcref", nil, []call{
			{"call", []uint64{0}, []uint64{1}},
			{"call", []uint64{1}, []uint64{5}},
			{"call_u", []uint64{0}, []uint64{3}},
			{"call_u", []uint64{1}, []uint64{8}},
			{"init", nil, nil},
			{"call", []uint64{2}, []uint64{2}},
			{"call", []uint64{3}, []uint64{6}},
			{"via_global", nil, []uint64{7}},
			{"via_ref", nil, []uint64{8}},
		}},
		{"start function", "start", nil, []call{
			{"value", nil, []uint64{42}},
		}},
		{"name section", "names", []string{"--debug-names"}, []call{
			{"e_add", []uint64{2, 3}, []uint64{5}},
			{"e_sub", []uint64{5, 3}, []uint64{2}},
			{"e_quadruple", []uint64{5}, []uint64{20}},
		}},
		{"multi-value block types", "multivalue", nil, []call{
			{"fib_iter", []uint64{20}, []uint64{6765}},
			{"swap_sum", []uint64{3, 4}, []uint64{43}},
		}},
		{"dispatch loops", "dispatch", nil, []call{
			{"count", []uint64{0}, []uint64{0}},
			{"count", []uint64{5}, []uint64{5}},
			{"forward", []uint64{0}, []uint64{111}},
		}},
		{"SIMD and bulk memory", "simd_bulk", nil, []call{
			{"fill", []uint64{10}, nil},
			{"simd_sum", []uint64{10}, []uint64{1360}},
			{"lanes", nil, []uint64{1523}},
			{"tables", nil, []uint64{93}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain := wat(t, tt.wat, tt.flags...)
			rt := newRuntime(t, DefaultPeriod)
			t.Run("original", func(t *testing.T) {
				_, mod := instantiate(t, rt, plain)
				run(t, mod, tt.calls)
			})
			t.Run("instrumented", func(t *testing.T) {
				_, mod := instantiate(t, rt, instrument(t, plain, DefaultPeriod))
				run(t, mod, tt.calls)
			})
		})
	}
}

// interruptible is a call that does not end (or not soon), and how it is
// told to stop.
type interruptible struct {
	name    string
	fn      string
	args    []uint64
	stopped bool // Stop before the call, else a deadline 20 ms away
}

// expectInterrupted calls each case on a fresh instance of the
// instrumented module and checks that the call returns ErrInterrupted
// soon after its deadline, and that a fresh instance still works after.
func expectInterrupted(t *testing.T, rt wazero.Runtime, compiled wazero.CompiledModule, config wazero.ModuleConfig, cases []interruptible, after call) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			mod, err := rt.InstantiateModule(ctx, compiled, config)
			if err != nil {
				t.Fatal(err)
			}
			defer mod.Close(ctx)
			var b Budget
			b.Reset(time.Now().Add(20 * time.Millisecond))
			if tt.stopped {
				b.Stop()
			}
			// The watchdog: when the fuel check fails to stop the call,
			// wazero does, 10 s later (see newRuntime), and the test fails
			// instead of hanging.
			watchdog, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			start := time.Now()
			_, err = mod.ExportedFunction(tt.fn).Call(WithBudget(watchdog, &b), tt.args...)
			elapsed := time.Since(start)
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("%s%v: error %v, want ErrInterrupted", tt.fn, tt.args, err)
			}
			if b.Stopped() != tt.stopped {
				t.Errorf("Stopped() = %v, want %v", b.Stopped(), tt.stopped)
			}
			if elapsed > 2*time.Second {
				t.Errorf("%s%v stopped after %v, want soon after its 20 ms deadline", tt.fn, tt.args, elapsed)
			}
			t.Logf("%s%v stopped after %v", tt.fn, tt.args, elapsed)

			fresh, err := rt.InstantiateModule(ctx, compiled, config)
			if err != nil {
				t.Fatalf("instantiate after the interrupt: %v", err)
			}
			defer fresh.Close(ctx)
			run(t, fresh, []call{after})
		})
	}
}

func TestInstrumentStopsRunawayCalls(t *testing.T) {
	tests := []struct {
		wat   string
		flags []string
		cases []interruptible
		after call
	}{
		{"loop", nil, []interruptible{
			{name: "infinite loop at its deadline", fn: "spin"},
			{name: "infinite loop stopped", fn: "spin", stopped: true},
		}, call{"sum", []uint64{10}, []uint64{55}}},
		{"recursion", nil, []interruptible{
			{name: "deep recursion at its deadline", fn: "fib", args: []uint64{45}},
			{name: "mutual recursion stopped", fn: "is_even", args: []uint64{1 << 30}, stopped: true},
		}, call{"fib", []uint64{10}, []uint64{55}}},
		{"dispatch", nil, []interruptible{
			{name: "jump back at its deadline", fn: "spin_back"},
			{name: "jump back stopped", fn: "spin_back", stopped: true},
			{name: "jump to its own segment", fn: "spin_self", stopped: true},
			{name: "jump back through the default", fn: "spin_default", stopped: true},
			{name: "br_if back", fn: "spin_br_if", stopped: true},
			{name: "jump to a computed segment", fn: "spin_computed", args: []uint64{0}, stopped: true},
			{name: "constant in another local", fn: "spin_other_local", stopped: true},
			{name: "br_table back", fn: "spin_br_table", args: []uint64{0}, stopped: true},
			{name: "jump back from a nested dispatch loop", fn: "spin_nested", stopped: true},
			{name: "br_table of a nested dispatch loop back to the outer", fn: "spin_nested_exit", stopped: true},
			{name: "jump back from an if", fn: "spin_in_if", args: []uint64{1}, stopped: true},
			{name: "jump back with calls at its deadline", fn: "spin_calls", args: []uint64{0}},
		}, call{"count", []uint64{3}, []uint64{3}}},
		{"tailcall", []string{"--enable-tail-call"}, []interruptible{
			{name: "tail-call loop at its deadline", fn: "ping", args: []uint64{0}},
			{name: "indirect tail-call loop at its deadline", fn: "spin_indirect", args: []uint64{0}},
		}, call{"count", []uint64{10, 0}, []uint64{30}}},
	}
	for _, tt := range tests {
		t.Run(tt.wat, func(t *testing.T) {
			rt := newRuntime(t, DefaultPeriod)
			compiled, err := rt.CompileModule(context.Background(), instrument(t, wat(t, tt.wat, tt.flags...), DefaultPeriod))
			if err != nil {
				t.Fatal(err)
			}
			expectInterrupted(t, rt, compiled, wazero.NewModuleConfig().WithName(""), tt.cases, tt.after)
		})
	}
}

func TestInstrumentChecksEveryPeriod(t *testing.T) {
	tests := []struct {
		name       string
		wat        string
		flags      []string
		period     int32
		call       call
		wantChecks int64
	}{
		{"loop of 1001 iterations", "loop", nil, 100, call{"sum", []uint64{1000}, []uint64{500500}}, 10},
		{"loop at the entry: no entry check", "loop", nil, 100, call{"calls", []uint64{99}, []uint64{99}}, 0},
		{"loop at the entry of 100 iterations", "loop", nil, 100, call{"calls", []uint64{100}, []uint64{100}}, 1},
		{"177 recursive calls", "recursion", nil, 10, call{"fib", []uint64{10}, []uint64{55}}, 17},
		{"an entry and 177 recursive calls", "recursion", nil, 89, call{"twice_fib", []uint64{10}, []uint64{110}}, 2},
		{"1000 mutually recursive calls", "recursion", nil, 10, call{"is_even", []uint64{999}, []uint64{0}}, 100},
		{"1001 tail calls", "tailcall", []string{"--enable-tail-call"}, 100, call{"count", []uint64{1000, 0}, []uint64{3000}}, 10},
		{"an entry and 21 loop iterations", "multivalue", nil, 11, call{"fib_iter", []uint64{20}, []uint64{6765}}, 2},
		{"a dispatch loop jumping back to itself 1000 times", "dispatch", nil, 100, call{"count", []uint64{1000}, []uint64{1000}}, 10},
		{"a dispatch loop jumping back 1 time", "dispatch", nil, 1, call{"count", []uint64{1}, []uint64{1}}, 1},
		{"a dispatch loop jumping forward only", "dispatch", nil, 1, call{"forward", []uint64{0}, []uint64{111}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCoreFeatures(features))
			defer rt.Close(ctx)
			var checks atomic.Int64
			check := Check(tt.period)
			_, err := rt.NewHostModuleBuilder(ImportModule).NewFunctionBuilder().
				WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, stack []uint64) {
					checks.Add(1)
					check.Call(ctx, m, stack)
				}), nil, []api.ValueType{api.ValueTypeI32}).
				Export(ImportName).Instantiate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = rt.NewHostModuleBuilder("env").NewFunctionBuilder().
				WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
					stack[0] = api.EncodeI32(2 * api.DecodeI32(stack[0]))
				}), []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
				Export("twice").Instantiate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, mod := instantiate(t, rt, instrument(t, wat(t, tt.wat, tt.flags...), tt.period))
			run(t, mod, []call{tt.call})
			if got := checks.Load(); got != tt.wantChecks {
				t.Errorf("%s%v with period %d: %d checks, want %d", tt.call.fn, tt.call.args, tt.period, got, tt.wantChecks)
			}
		})
	}
}

func TestInstrumentKeepsNames(t *testing.T) {
	rt := newRuntime(t, DefaultPeriod)
	compiled, _ := instantiate(t, rt, instrument(t, wat(t, "names", "--debug-names"), DefaultPeriod))
	imports := compiled.ImportedFunctions()
	if len(imports) != 2 {
		t.Fatalf("%d imported functions, want 2", len(imports))
	}
	importTests := []struct {
		index        uint32
		module, name string
		wantName     string
		wantParams   []string
	}{
		{0, "env", "twice", "twice", []string{"x"}},
		{1, ImportModule, ImportName, "", nil},
	}
	for _, tt := range importTests {
		t.Run("import "+tt.module+"."+tt.name, func(t *testing.T) {
			def := imports[tt.index]
			if mod, name, _ := def.Import(); mod != tt.module || name != tt.name {
				t.Errorf("import %d is %s.%s, want %s.%s", tt.index, mod, name, tt.module, tt.name)
			}
			if def.Name() != tt.wantName {
				t.Errorf("import %d is named %q, want %q", tt.index, def.Name(), tt.wantName)
			}
			if !slices.Equal(def.ParamNames(), tt.wantParams) {
				t.Errorf("import %d has parameters %q, want %q", tt.index, def.ParamNames(), tt.wantParams)
			}
		})
	}
	exportTests := []struct {
		export     string
		wantIndex  uint32 // 1 more than in names.wat
		wantName   string
		wantParams []string
	}{
		{"e_add", 2, "add", []string{"lhs", "rhs"}},
		{"e_sub", 3, "sub", []string{"minuend", "subtrahend"}},
		{"e_quadruple", 4, "quadruple", []string{"value"}},
	}
	exports := compiled.ExportedFunctions()
	for _, tt := range exportTests {
		t.Run("export "+tt.export, func(t *testing.T) {
			def, ok := exports[tt.export]
			if !ok {
				t.Fatalf("no export %q", tt.export)
			}
			if def.Index() != tt.wantIndex {
				t.Errorf("index %d, want %d", def.Index(), tt.wantIndex)
			}
			if def.Name() != tt.wantName {
				t.Errorf("named %q, want %q", def.Name(), tt.wantName)
			}
			if !slices.Equal(def.ParamNames(), tt.wantParams) {
				t.Errorf("parameters %q, want %q", def.ParamNames(), tt.wantParams)
			}
		})
	}
}

func TestInstrumentCGuest(t *testing.T) {
	plain := cGuest(t)
	rt := newRuntime(t, DefaultPeriod)
	calls := []call{
		{"mix", []uint64{1_000_000}, nil},
		{"fib", []uint64{25}, []uint64{75025}},
	}
	// mix has no closed form: take the original's result as the reference.
	_, orig := instantiate(t, rt, plain)
	got, err := orig.ExportedFunction("mix").Call(context.Background(), 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	calls[0].want = got

	compiled, mod := instantiate(t, rt, instrument(t, plain, DefaultPeriod))
	t.Run("results", func(t *testing.T) { run(t, mod, calls) })
	expectInterrupted(t, rt, compiled, wazero.NewModuleConfig().WithName(""), []interruptible{
		{name: "infinite loop at its deadline", fn: "spin"},
		{name: "deep recursion at its deadline", fn: "fib", args: []uint64{45}},
	}, calls[1])
}

func TestInstrumentGoGuest(t *testing.T) {
	plain := goGuest(t)
	ctx := context.Background()
	rt := newRuntime(t, DefaultPeriod)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	out := instrument(t, plain, DefaultPeriod)
	t.Logf("Go guest: %d bytes, instrumented %d (+%.1f%%)", len(plain), len(out), 100*float64(len(out)-len(plain))/float64(len(plain)))
	if validate, err := exec.LookPath("wasm-validate"); err == nil { // a validator other than wazero's
		file := filepath.Join(t.TempDir(), "goguest.wasm")
		if err := os.WriteFile(file, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(validate, file).CombinedOutput(); err != nil {
			t.Errorf("wasm-validate: %v\n%s", err, msg)
		}
	}
	compiled, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	config := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize")
	mod, err := rt.InstantiateModule(ctx, compiled, config)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("results", func(t *testing.T) {
		run(t, mod, []call{{"collatz", []uint64{27}, []uint64{111}}})
	})
	expectInterrupted(t, rt, compiled, config, []interruptible{
		{name: "infinite loop at its deadline", fn: "spin"},
		{name: "infinite loop stopped", fn: "spin", stopped: true},
	}, call{"collatz", []uint64{97}, []uint64{118}})
}
