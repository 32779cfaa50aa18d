package guestbuild

import (
	"context"
	"os"
	"path/filepath"
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
