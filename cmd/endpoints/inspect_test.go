package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspect builds modules in C and WAT with endpoints build, which
// records their contract and ABI version in custom sections, and reads
// them back with endpoints inspect.
func TestInspect(t *testing.T) {
	needTool(t, "wat2wasm")
	app := cApp(t)
	if code, _, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	for _, tt := range []struct {
		file, kind, summary string
	}{
		{"server/api/users/[id].get.wasm", "endpoint", "Get a user"},
		{"server/routes/health.get.wasm", "plain route", ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errOut := runCLI("inspect", "--json", filepath.Join(app, filepath.FromSlash(tt.file)))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var info moduleInfo
			if err := json.Unmarshal([]byte(out), &info); err != nil {
				t.Fatal(err)
			}
			var c struct{ Summary string }
			_ = json.Unmarshal(info.Contract, &c)
			if info.Kind != tt.kind || c.Summary != tt.summary || !strings.HasPrefix(info.ABI, "v1 (endpoints.abi_version section)") || info.Size == 0 {
				t.Errorf("inspect = kind %q, abi %q, summary %q; want %q, v1 from its section, %q", info.Kind, info.ABI, c.Summary, tt.kind, tt.summary)
			}
		})
	}
	t.Run("a WAT module not built by endpoints build", func(t *testing.T) {
		code, out, _ := runCLI("inspect", filepath.Join("..", "..", "host", "testdata", "hello", "server", "api", "hello.get.wasm"))
		if code != exitOK || !strings.Contains(out, "abi       v1 (endpoints_abi_version returns it)") || !strings.Contains(out, "its contract is in code") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("not a module", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "x.wasm")
		os.WriteFile(bad, []byte("hello"), 0o644)
		if code, _, errOut := runCLI("inspect", bad); code == exitOK || !strings.Contains(errOut, "not a valid WebAssembly module") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
}

// TestConformanceCommand runs `endpoints conformance` on the C twin of the
// users example, which passes, and on a copy whose 404 answer says
// something else, which fails naming the case and what was expected.
func TestConformanceCommand(t *testing.T) {
	needTool(t, "wat2wasm")
	app := cApp(t)
	code, out, errOut := runCLI("conformance", app)
	if code != exitOK || !strings.Contains(out, "  ok   a declared 404") || !strings.Contains(out, "cases passed") {
		t.Fatalf("conformance on users-c: exit %d\n%s\n%s", code, out, errOut)
	}
	src := filepath.Join(app, "server", "api", "users", "[id].get.c")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(strings.Replace(string(b), `" not found\"}"`, `" is missing\"}"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI("conformance", app)
	if code != exitError || !strings.Contains(out, "FAIL a declared 404") || !strings.Contains(out, `want {"message":"user 9 not found"}`) {
		t.Errorf("conformance on a broken port: exit %d\n%s", code, out)
	}
}
