package guestbuild

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// TestToolchainOutputIsNoModuleUntilItIsDone: while a tool writes a
// route's module, and after a build killed halfway, nothing under the
// app's routes but the finished modules is named as one (*.wasm): the
// host lists every such file under server/ as a route module, dotted
// directories included (a route may live under .well-known), so a
// half-written output, or one a crash left behind, would load as a route
// of a path nobody declared, or fail a load.
func TestToolchainOutputIsNoModuleUntilItIsDone(t *testing.T) {
	app := t.TempDir()
	src := filepath.Join(app, "server", "api", "users.get.c")
	out := filepath.Join(app, "server", "api", "users.get.wasm")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("int x;"), 0o644); err != nil {
		t.Fatal(err)
	}
	var during []string
	err := runToolchain(context.Background(), "compile C route", src, out, func(tmp string) *exec.Cmd {
		// The tool's output exists from here on (a tool writes it as it
		// goes); a load at this moment lists these.
		if err := os.WriteFile(tmp, []byte("\x00asm"), 0o600); err != nil {
			t.Fatal(err)
		}
		during = modules(t, app)
		return exec.Command("true")
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(during) != 0 {
		t.Errorf("while the tool ran, a load would list %v as route modules; want none", during)
	}
	if got := modules(t, app); len(got) != 1 || got[0] != "server/api/users.get.wasm" {
		t.Errorf("after the build, the modules are %v; want server/api/users.get.wasm", got)
	}
}

// modules lists the files under app's server directory named as route
// modules, as the host's load does (appload.Dir.Modules).
func modules(t *testing.T, app string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(app, "server"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), routefile.Extension) {
			rel, _ := filepath.Rel(app, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
