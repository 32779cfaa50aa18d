package interrupt

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmendpoints/endpoints/internal/poll"
)

// features are the WebAssembly features the test runtimes enable: every
// one wazero v1.12 offers, so that the fixtures of every proposal compile.
const features = api.CoreFeaturesV2 |
	experimental.CoreFeaturesTailCall |
	experimental.CoreFeaturesExceptionHandling |
	experimental.CoreFeaturesTypedFunctionReferences |
	experimental.CoreFeaturesThreads |
	experimental.CoreFeaturesExtendedConst

// waitFor checks cond at once, then at every tick of a 5 ms ticker, until
// it holds or d has passed, and reports whether it held: the tests wait
// with it for a condition, never for a fixed time.
func waitFor(t testing.TB, d time.Duration, cond func() bool) bool {
	t.Helper()
	return poll.Until(d, cond)
}

// tool returns the path of a command a test needs, and skips the test when
// it is not installed. CI installs all of them (clang, lld, wabt).
func tool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (CI installs it): %v", name, err)
	}
	return path
}

// built caches the fixtures built by this test binary, by command line.
var built sync.Map // string -> []byte

// build runs a command that writes out, once per test binary, and returns
// what it wrote.
func build(t testing.TB, out string, env []string, name string, args ...string) []byte {
	t.Helper()
	key := name + " " + filepath.Base(out) + " " + filepath.Join(args...)
	if b, ok := built.Load(key); ok {
		return b.([]byte)
	}
	cmd := exec.Command(tool(t, name), args...)
	cmd.Env = append(os.Environ(), env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	built.Store(key, b)
	return b
}

// buildDir holds the fixtures built by this test binary.
var buildDir = sync.OnceValue(func() string {
	dir, err := os.MkdirTemp("", "interrupt-test-")
	if err != nil {
		panic(err)
	}
	return dir
})

// TestMain removes the fixtures built by the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	os.RemoveAll(buildDir())
	os.Exit(code)
}

// wat builds testdata/name.wat with wat2wasm and the given flags.
func wat(t testing.TB, name string, flags ...string) []byte {
	t.Helper()
	out := filepath.Join(buildDir(), name+".wasm")
	args := append(slices.Clone(flags), filepath.Join("testdata", name+".wat"), "-o", out)
	return build(t, out, nil, "wat2wasm", args...)
}

// cGuest builds testdata/hot.c with clang.
func cGuest(t testing.TB) []byte {
	t.Helper()
	out := filepath.Join(buildDir(), "hot.wasm")
	return build(t, out, nil, "clang", "--target=wasm32-wasi", "-O2", "-nostdlib",
		"-Wl,--no-entry", "-Wl,--export-all", "-o", out, filepath.Join("testdata", "hot.c"))
}

// goGuest builds testdata/goguest for wasip1 as a reactor.
func goGuest(t testing.TB) []byte {
	t.Helper()
	out := filepath.Join(buildDir(), "goguest.wasm")
	return build(t, out, []string{"GOOS=wasip1", "GOARCH=wasm"}, "go",
		"build", "-buildmode=c-shared", "-o", out, "./testdata/goguest")
}

// newRuntime returns a runtime with every feature enabled, the interrupt
// host module (with period) and an "env" module providing twice(x) = 2x.
//
// Its calls also end when their context is done (WithCloseOnContextDone),
// with wazero's own exit code: a watchdog for the tests, so that a call the
// fuel check fails to stop fails the test instead of hanging it. Calls
// whose context has no Done channel do not use it.
func newRuntime(t testing.TB, period int32) wazero.Runtime {
	t.Helper()
	ctx := context.Background()
	config := wazero.NewRuntimeConfig().WithCoreFeatures(features).WithCloseOnContextDone(true)
	rt := wazero.NewRuntimeWithConfig(ctx, config)
	t.Cleanup(func() { rt.Close(ctx) })
	if err := NewHostModule(ctx, rt, period); err != nil {
		t.Fatal(err)
	}
	_, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
			stack[0] = api.EncodeI32(2 * api.DecodeI32(stack[0]))
		}), []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
		Export("twice").Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// instantiate compiles wasm in rt and instantiates it without a name, so
// that a module can be instantiated many times.
func instantiate(t testing.TB, rt wazero.Runtime, wasm []byte) (wazero.CompiledModule, api.Module) {
	t.Helper()
	ctx := context.Background()
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	return compiled, mod
}

// instrument instruments wasm with period, failing the test on error.
func instrument(t testing.TB, wasm []byte, period int32) []byte {
	t.Helper()
	out, err := Instrument(wasm, period)
	if err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	return out
}
