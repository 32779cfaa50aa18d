package guestbuild

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asApp is an app directory with the AssemblyScript compiler that
// examples/users-as installed (and no SDK: the build supplies its own),
// holding the given files; the test is skipped when the example has not
// installed it.
func asApp(t testing.TB, files map[string]string) string {
	t.Helper()
	modules, err := filepath.Abs(filepath.Join(cRepoRoot, "examples", "users-as", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "assemblyscript", "package.json")); err != nil {
		t.Skip("examples/users-as has not installed its compiler (npm install there):", err)
	}
	app := t.TempDir()
	if err := os.MkdirAll(filepath.Join(app, "node_modules", ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(modules, "assemblyscript"), filepath.Join(app, "node_modules", "assemblyscript")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../assemblyscript/bin/asc.js", filepath.Join(app, "node_modules", ".bin", "asc")); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(app, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return app
}

// asRoute is a plain AssemblyScript route answering text.
func asRoute(text string) string {
	return `import { Request, plainRoute, respondText } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";
plainRoute((req: Request): void => { respondText(200, "` + text + `"); });
`
}

// TestAssemblyScriptBatch: Build compiles the AssemblyScript routes that
// miss the module cache in one Node.js process per batch; each module is
// the one asc makes for the route alone, and a route that does not
// compile fails alone, with asc's diagnostics and its file named.
func TestAssemblyScriptBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	app := asApp(t, map[string]string{
		"server/routes/a.get.ts":   asRoute("a"),
		"server/routes/b.get.ts":   asRoute("b"),
		"server/routes/c.get.ts":   asRoute("c"),
		"server/routes/bad.get.ts": asRoute("bad") + "const x: i32 = \"not a number\";\n",
	})
	built, err := App(t.Context(), app, app, nil)
	if err == nil || !strings.Contains(err.Error(), "bad.get.ts") || !strings.Contains(err.Error(), "TS2322") {
		t.Fatalf("the build error = %v, want asc's TS2322 for bad.get.ts", err)
	}
	for _, b := range built {
		if (b.Err != nil) != (b.Module == "server/routes/bad.get.wasm") {
			t.Errorf("%s: error %v", b.Module, b.Err)
		}
	}
	alone := filepath.Join(t.TempDir(), "a.wasm")
	if err := AssemblyScript(t.Context(), app, filepath.Join(app, "server", "routes", "a.get.ts"), alone); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(alone)
	got, _ := os.ReadFile(filepath.Join(app, "server", "routes", "a.get.wasm"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("the batch's module (%d bytes) differs from asc's for the route alone (%d bytes)", len(got), len(want))
	}
	if leftovers, _ := filepath.Glob(filepath.Join(app, "server", "routes", ".*.tmp")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// BenchmarkAssemblyScriptRoutes compiles three routes with a process per
// route (asc, as before batches) and with one batch, reporting the CPU
// time of the compiler processes (cpu-ms/op) beside the wall time. Run it
// with -benchtime 1x: each op compiles for seconds.
func BenchmarkAssemblyScriptRoutes(b *testing.B) {
	app := asApp(b, map[string]string{
		"server/routes/a.get.ts": asRoute("a"),
		"server/routes/b.get.ts": asRoute("b"),
		"server/routes/c.get.ts": asRoute("c"),
	})
	var jobs []ascJob
	for _, name := range []string{"a", "b", "c"} {
		jobs = append(jobs, ascJob{src: filepath.Join(app, "server", "routes", name+".get.ts"), out: filepath.Join(app, "server", "routes", name+".get.wasm")})
	}
	childCPU := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, mode := range []struct {
		name  string
		build func() error
	}{
		{"process-per-route", func() error {
			for _, j := range jobs {
				if err := AssemblyScript(b.Context(), app, j.src, j.out); err != nil {
					return err
				}
			}
			return nil
		}},
		{"one-batch", func() error {
			var errs []error
			err := assemblyScriptBatch(b.Context(), app, jobs, func(_ int, _ time.Duration, _ reads, err error) {
				if err != nil {
					errs = append(errs, err)
				}
			})
			if err == nil && len(errs) > 0 {
				err = errs[0]
			}
			return err
		}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			before := childCPU()
			for b.Loop() {
				if err := mode.build(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((childCPU()-before).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
