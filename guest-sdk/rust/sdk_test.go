package rustsdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCrate runs the crate's own unit tests and documentation examples
// with the host's rustc: the JSON parser and encoder and the contract
// builders, which need no wasm host.
func TestCrate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiling the crate takes seconds")
	}
	rustc, err := exec.LookPath("rustc")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs rustc: %v", err)
		}
		t.Skip(err)
	}
	rustdoc := filepath.Join(filepath.Dir(rustc), "rustdoc")
	dir := t.TempDir()
	run := func(name string, args ...string) {
		t.Helper()
		out, err := exec.CommandContext(t.Context(), name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run(rustc, "--edition", "2021", "--test", "--crate-name", "endpoints", "src/lib.rs", "-o", filepath.Join(dir, "unit"))
	run(filepath.Join(dir, "unit"))
	run(rustc, "--edition", "2021", "--crate-type", "rlib", "--crate-name", "endpoints", "src/lib.rs", "-o", filepath.Join(dir, "libendpoints.rlib"))
	run(rustdoc, "--edition", "2021", "--test", "--crate-name", "endpoints", "src/lib.rs", "--extern", "endpoints="+filepath.Join(dir, "libendpoints.rlib"))
}
