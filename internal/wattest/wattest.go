// Package wattest assembles WebAssembly text modules for tests of the
// packages that serve an app, so each test writes its guests inline.
package wattest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// Write assembles the WAT source src into the module rel (a slash path
// such as "server/api/users/[id].get.wasm") of the app directory app. It
// skips the test when wat2wasm is not installed, and fails it instead in
// CI (the CI environment variable set), which installs wabt.
func Write(t testing.TB, app, rel, src string) {
	t.Helper()
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("wat2wasm is required (CI installs wabt): %v", err)
		}
		t.Skipf("wat2wasm not installed: %v", err)
	}
	srcFile := filepath.Join(t.TempDir(), "m.wat")
	if err := os.WriteFile(srcFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := guestbuild.WAT(context.Background(), srcFile, filepath.Join(app, filepath.FromSlash(rel))); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
}
