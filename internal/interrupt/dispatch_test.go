package interrupt

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/leb128"
)

// dispatchProgram returns a module whose export "run" (param $limit i32)
// (result i32) is a random dispatch loop, the shape dispatch.go
// recognises: segments that jump to one another in every way the rewrite
// tells apart (a constant set in the loop's local then br, forwards or
// backwards, into the br_table's range or past it; br_if; br_table; a
// computed target), on conditions drawn from a pseudo-random state the
// program updates. Each segment spends one step of $limit and leaves the
// loop when none is left, returning a hash of the segments it ran; else
// no path leaves it: the last segment always jumps. With a large limit it
// runs for seconds, so only the fuel check stops it soon.
func dispatchProgram(seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	n := 1 + rng.IntN(8) // segments
	const (
		limit = 0 // param
		pc    = 1 // locals
		acc   = 2
		x     = 3
	)
	var c []byte
	op := func(b ...byte) { c = append(c, b...) }
	i32 := func(v int32) { op(opI32Const); c = leb128.AppendS32(c, v) }
	// The br_table's labels, the default last: segments, some twice.
	labels := make([]uint32, 1+rng.IntN(n+1))
	for i := range labels {
		labels[i] = uint32(rng.IntN(n))
	}
	// Half the programs jump only with i32.const, local.set, br, the jumps
	// that may go free: they loop only through those.
	kinds := 6
	if rng.IntN(2) == 0 {
		kinds = 1
	}
	jump := func(depth uint32) { // depth: of the loop, from where the jump is
		k := int32(rng.IntN(len(labels) + 2)) // past the range: the default
		switch (rng.IntN(kinds) + 3) % 6 {
		case 0: // br_if
			i32(k)
			op(opLocalSet, pc)
			i32(1)
			op(opBrIf)
		case 1: // br_table
			i32(k)
			op(opLocalSet, pc)
			i32(0)
			op(opBrTable, 0)
		case 2: // a computed target
			op(0x20, x) // local.get
			i32(7)
			op(0x71, opLocalSet, pc) // i32.and
			op(opBr)
		default: // i32.const k; local.set $pc; br
			i32(k)
			op(opLocalSet, pc, opBr)
		}
		c = leb128.AppendU32(c, depth)
	}
	op(opBlock, blockEmpty, opLoop, blockEmpty)
	for range n {
		op(opBlock, blockEmpty)
	}
	op(0x20, pc, opBrTable) // local.get $pc, br_table
	c = leb128.AppendU32(c, uint32(len(labels)-1))
	for _, l := range labels {
		c = leb128.AppendU32(c, l)
	}
	for s := range n {
		op(opEnd)
		loop := uint32(n - 1 - s) // depth of the loop from the segment
		// if $limit == 0 leave, else spend one step.
		op(0x20, limit, 0x45, opBrIf) // local.get, i32.eqz, br_if $exit
		c = leb128.AppendU32(c, loop+1)
		op(0x20, limit)
		i32(1)
		op(opI32Sub, opLocalSet, limit)
		// acc = acc*31 + s; x = x*1103515245 + 12345
		op(0x20, acc)
		i32(31)
		op(0x6c) // i32.mul
		i32(int32(s))
		op(0x6a, opLocalSet, acc) // i32.add
		op(0x20, x)
		i32(1103515245)
		op(0x6c)
		i32(12345)
		op(0x6a, opLocalSet, x)
		for j := range rng.IntN(3) { // jumps on a bit of x
			op(0x20, x)
			i32(int32(16 + j))
			op(0x76) // i32.shr_u
			i32(1)
			op(0x71, opIf, blockEmpty) // i32.and
			jump(loop + 1)
			op(opEnd)
		}
		if s == n-1 || rng.IntN(2) == 0 {
			jump(loop)
		}
	}
	op(opEnd, opEnd, 0x20, acc, opEnd) // loop, $exit, local.get $acc, function
	return mod(
		sec(secType, vec(bs(0x60, 1, 0x7f, 1, 0x7f))),
		sec(secFunction, vec(bs(0))),
		sec(secExport, vec(slices.Concat(str("run"), bs(0, 0)))),
		sec(secCode, vec(fnBody(bs(1, 3, 0x7f), c...))), // (local i32 i32 i32)
	)
}

// FuzzDispatchLoops checks the rewrite of random dispatch loops
// (dispatchProgram): the instrumented program returns what the original
// does, and, given all the steps it may want, it is stopped by a stopped
// Budget instead of running on. go test runs the seeds; go test -fuzz
// FuzzDispatchLoops looks for more.
func FuzzDispatchLoops(f *testing.F) {
	for seed := range uint64(64) {
		f.Add(seed)
	}
	rt := newRuntime(f, 10)
	f.Fuzz(func(t *testing.T, seed uint64) {
		ctx := context.Background()
		plain := dispatchProgram(seed)
		out := instrument(t, plain, 10)
		_, orig := instantiate(t, rt, plain)
		defer orig.Close(ctx)
		compiled, mod := instantiate(t, rt, out)
		defer compiled.Close(ctx)
		defer mod.Close(ctx)
		want, err := orig.ExportedFunction("run").Call(ctx, 1000)
		if err != nil {
			t.Fatalf("the original: run(1000): %v", err)
		}
		var b Budget
		b.Reset(time.Now().Add(time.Minute))
		got, err := mod.ExportedFunction("run").Call(WithBudget(ctx, &b), 1000)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("instrumented: run(1000) = %v, %v; the original returns %v", got, err, want)
		}
		// 2^32-1 steps take seconds; the watchdog (newRuntime) ends the
		// call in 5 when no check does.
		watchdog, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		b.Reset(time.Time{})
		b.Stop()
		if _, err := mod.ExportedFunction("run").Call(WithBudget(watchdog, &b), 0xffffffff); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("run(2^32-1) with a stopped Budget: error %v, want ErrInterrupted", err)
		}
	})
}

// TestInstrumentGoGuestChecks counts the checks of Go loops with period
// 1, less those of the same call with no iteration (the export's entry,
// the loop's entry): one per iteration of branchy, whose body's forward
// jumps are free, and of collatz, whose every step jumps back to the
// loop's test. A check at every loop header also paid for each forward
// jump.
func TestInstrumentGoGuestChecks(t *testing.T) {
	plain := goGuest(t)
	ctx := context.Background()
	// calls returns a function that calls an export of a fresh instance of
	// the guest rewritten with opts and period 1, and counts its checks.
	calls := func(opts Options) func(fn string, arg uint64) (uint64, int) {
		rt := wazero.NewRuntime(ctx)
		t.Cleanup(func() { rt.Close(ctx) })
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		n := 0
		_, err := rt.NewHostModuleBuilder(ImportModule).NewFunctionBuilder().
			WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
				n++
				stack[0] = 1
			}), nil, []api.ValueType{api.ValueTypeI32}).
			Export(ImportName).Instantiate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out, err := InstrumentWith(plain, 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		compiled, err := rt.CompileModule(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		config := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize")
		return func(fn string, arg uint64) (uint64, int) {
			mod, err := rt.InstantiateModule(ctx, compiled, config)
			if err != nil {
				t.Fatal(err)
			}
			defer mod.Close(ctx)
			n = 0
			got, err := mod.ExportedFunction(fn).Call(ctx, arg)
			if err != nil || len(got) != 1 {
				t.Fatalf("%s(%d) = %v, %v", fn, arg, got, err)
			}
			return got[0], n
		}
	}
	every, dispatch := calls(Options{EveryLoop: true}), calls(Options{})
	tests := []struct {
		fn         string
		arg, none  uint64 // arguments with iterations, and with none
		iterations int
		want       uint64
	}{
		{"branchy", 1000, 0, 1000, uint64(branchyTwin(1000))},
		{"collatz", 27, 1, 111, 111},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			perIteration := func(call func(string, uint64) (uint64, int)) int {
				got, n := call(tt.fn, tt.arg)
				if got != tt.want {
					t.Fatalf("%s(%d) = %d, want %d", tt.fn, tt.arg, got, tt.want)
				}
				_, base := call(tt.fn, tt.none)
				return n - base
			}
			e, d := perIteration(every), perIteration(dispatch)
			t.Logf("%s(%d), %d iterations: %d checks with a check at every loop header, %d with the dispatch rewrite", tt.fn, tt.arg, tt.iterations, e, d)
			if d != tt.iterations {
				t.Errorf("%d checks with the dispatch rewrite, want %d: one per iteration", d, tt.iterations)
			}
			if e < d {
				t.Errorf("%d checks with a check at every loop header, want at least the dispatch rewrite's %d", e, d)
			}
		})
	}
}

// branchyTwin is testdata/goguest's branchy, run natively.
func branchyTwin(n int32) int32 {
	var zero, one, two, bit int32
	for i := int32(0); i < n; i++ {
		switch i % 3 {
		case 0:
			zero++
		case 1:
			one++
		default:
			two++
		}
		if i&4 != 0 {
			bit++
		}
	}
	return zero<<24 | one<<16 | two<<8 | bit
}

// TestInstrumentCGuestsUnchanged: clang gives no loop of a C route the
// dispatch shape, so a C guest is rewritten byte for byte as with a check
// at every loop header, and runs the same code as before the dispatch
// rewrite. (Should a clang one day emit the shape, the rewrite stays
// sound, and this test says to measure the C guest: fewer checks, but
// perhaps more code.)
func TestInstrumentCGuestsUnchanged(t *testing.T) {
	tool(t, "clang")
	var sources []string
	err := filepath.WalkDir(filepath.Join("..", "..", "examples", "users-c", "server"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".c" {
			sources = append(sources, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) == 0 {
		t.Fatal("no C sources under examples/users-c/server")
	}
	modules := map[string][]byte{"testdata/hot.c": cGuest(t)}
	for _, src := range sources {
		out := filepath.Join(t.TempDir(), "route.wasm")
		if err := guestbuild.C(context.Background(), src, out); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		modules[src] = b
	}
	for name, wasm := range modules {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dispatch := instrument(t, wasm, DefaultPeriod)
			every, err := InstrumentWith(wasm, DefaultPeriod, Options{EveryLoop: true})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dispatch, every) {
				t.Errorf("%s: the dispatch rewrite differs from a check at every loop header (%d and %d bytes): clang made a dispatch loop; measure the C guest with both", name, len(dispatch), len(every))
			}
		})
	}
}
