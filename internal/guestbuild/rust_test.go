package guestbuild

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// needRust skips the test without a Rust compiler that can build
// WebAssembly, and under -short: the first Rust build compiles the SDK.
func needRust(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: compiling Rust takes seconds")
	}
	if _, err := findRust(context.Background()); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs rustc and libstd-rust-dev-wasm32: %v", err)
		}
		t.Skip(err)
	}
}

// TestRustRoute builds the Rust users example's GET route and checks the
// module's shape: the three ABI exports, memory, and imports from the
// endpoints host and WASI only.
func TestRustRoute(t *testing.T) {
	needRust(t)
	out := filepath.Join(t.TempDir(), "get.wasm")
	src := filepath.Join(cRepoRoot, "examples", "users-rs", "server", "api", "users", "[id].get.rs")
	if err := Rust(t.Context(), src, out); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rt := wazero.NewRuntime(t.Context())
	defer rt.Close(t.Context())
	mod, err := rt.CompileModule(t.Context(), bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"endpoints_abi_version", "endpoints_contract", "endpoints_handle"} {
		if _, ok := mod.ExportedFunctions()[name]; !ok {
			t.Errorf("the module does not export %s", name)
		}
	}
	if _, ok := mod.ExportedMemories()["memory"]; !ok {
		t.Error("the module does not export its memory")
	}
	for _, f := range mod.ImportedFunctions() {
		if m, _, _ := f.Import(); m != "endpoints" && m != "wasi_snapshot_preview1" {
			t.Errorf("the module imports %s from %q", f.DebugName(), m)
		}
	}
}

// TestRustREADMERoutesBuild builds every whole crate of the Rust SDK's
// README, as a developer copies it: each block that declares its module
// (endpoint!, plain_route!, middleware!), the database handler of "Data"
// among them. A block that is part of a route has no such macro.
func TestRustREADMERoutesBuild(t *testing.T) {
	whole := readmeModules(t, "rust", "rust", func(src string) bool {
		return strings.Contains(src, "\nendpoint!(") || strings.Contains(src, "\nplain_route!(") || strings.Contains(src, "\nmiddleware! {")
	})
	// The endpoint, the plain route, the middleware and the query of "Data".
	if len(whole) != 4 {
		t.Fatalf("found %d whole crates in the README, want 4", len(whole))
	}
	needRust(t)
	dir := t.TempDir()
	for i, src := range whole {
		in := filepath.Join(dir, "block"+strconv.Itoa(i+1)+".rs")
		if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Rust(t.Context(), in, strings.TrimSuffix(in, ".rs")+".wasm"); err != nil {
			t.Errorf("the README's crate %d does not build: %v\n%s", i+1, err, src)
		}
	}
}

// TestRustBuildsOfOneRouteAtOnce: two builds of the same route at once
// (endpoints dev rebuilding a saved route while endpoints build runs) both
// succeed. rustc names its object files after the output's name, not the
// temporary file's, so each build keeps them in a directory of its own:
// in the route's directory, one build removed the other's before it
// linked ("rust-lld: error: cannot open .get.wasm.route...rcgu.o").
func TestRustBuildsOfOneRouteAtOnce(t *testing.T) {
	needRust(t)
	// The SDK first, so that both builds compile the route at once.
	if err := Rust(t.Context(), filepath.Join(cRepoRoot, "examples", "users-rs", "server", "routes", "health.get.rs"), filepath.Join(t.TempDir(), "health.wasm")); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(cRepoRoot, "examples", "users-rs", "server", "api", "users", "[id].get.rs")
	out := filepath.Join(t.TempDir(), "[id].get.wasm")
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- Rust(t.Context(), src, out) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != filepath.Base(out) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the route's directory holds %q, want the module alone", names)
	}
}

// TestRustErrors checks that a Rust route that does not compile fails
// with the source's name and rustc's diagnostic, and leaves no module.
func TestRustErrors(t *testing.T) {
	needRust(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "broken.get.rs")
	if err := os.WriteFile(src, []byte("use endpoints::{plain_route, Request};\n\nplain_route!(|_r: &Request| undefined_function());\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "broken.get.wasm")
	err := Rust(t.Context(), src, out)
	if err == nil {
		t.Fatal("a route calling an undefined function compiled")
	}
	for _, want := range []string{"compile Rust route " + src, "broken.get.rs:3", "undefined_function"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("a failed build left %s", out)
	}
}

// TestRustCompilerFromRUSTC: a RUSTC the developer set is the compiler,
// or the build fails naming it; it is never passed over for another rustc
// in PATH or /usr/bin, which would build with a compiler they did not
// choose (an older one, failing on what theirs accepts) without a word.
func TestRustCompilerFromRUSTC(t *testing.T) {
	noWasm := filepath.Join(t.TempDir(), "rustc")
	sysroot := t.TempDir() // a sysroot without lib/rustlib/wasm32-*
	if err := os.WriteFile(noWasm, []byte("#!/bin/sh\necho "+sysroot+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-rustc")
	src := filepath.Join(cRepoRoot, "examples", "users-rs", "server", "api", "users", "[id].get.rs")
	for _, tc := range []struct{ name, rustc, want string }{
		{"missing", missing, "RUSTC=" + missing + ": "},
		{"without a wasm32 standard library", noWasm, "RUSTC=" + noWasm + ": " + noWasm + " has no wasm32-wasip1 or wasm32-wasi standard library"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("RUSTC", tc.rustc)
			err := Rust(t.Context(), src, filepath.Join(t.TempDir(), "get.wasm"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RUSTC=%s: the build's error = %v, want one saying %q", tc.rustc, err, tc.want)
			}
		})
	}
}
