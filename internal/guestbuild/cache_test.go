package guestbuild

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/modcache"
)

// useCache points Build at a fresh module cache for the test.
func useCache(t *testing.T) {
	t.Helper()
	old := moduleCache
	moduleCache = modcache.Open(t.TempDir())
	t.Cleanup(func() { moduleCache = old })
}

// writeFiles writes files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuildCachesRust: a second build of an unchanged Rust route copies
// the module the first made, byte for byte, even when the module was
// deleted; a change of a file the route includes builds it again.
func TestBuildCachesRust(t *testing.T) {
	needRust(t)
	useCache(t)
	app := t.TempDir()
	writeFiles(t, app, map[string]string{
		"lib/greeting.rs": "pub const GREETING: &str = \"hello\";\n",
		"server/routes/hi.get.rs": `use endpoints::{plain_route, respond_text, Request};

#[path = "../../lib/greeting.rs"]
mod greeting;

plain_route!(|_req: &Request| -> Result<(), endpoints::Errno> { respond_text(200, greeting::GREETING, "text/plain") });
`,
	})
	module := filepath.Join(app, "server", "routes", "hi.get.wasm")
	build := func(wantCached bool) []byte {
		t.Helper()
		built, err := App(t.Context(), app, app, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(built) != 1 || built[0].Cached != wantCached {
			t.Fatalf("built %+v, want one module with Cached %v", built, wantCached)
		}
		b, err := os.ReadFile(module)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := build(false)
	if err := os.Remove(module); err != nil {
		t.Fatal(err)
	}
	if again := build(true); !bytes.Equal(again, first) {
		t.Error("the cached module differs from the one built")
	}
	writeFiles(t, app, map[string]string{"lib/greeting.rs": "pub const GREETING: &str = \"hello again\";\n"})
	if changed := build(false); bytes.Equal(changed, first) {
		t.Error("a change of an included file gave the same module")
	}
}

// TestCacheKeyAssemblyScript: the key of an AssemblyScript route changes
// with any .ts file of the app and with the installed SDK, and not with
// files asc never reads.
func TestCacheKeyAssemblyScript(t *testing.T) {
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
	writeFiles(t, app, map[string]string{"server/api/a.get.ts": "// a\n", "lib/shared.ts": "// shared\n"})
	src := Source{Lang: LangAS, Path: "server/api/a.get.ts", Module: "server/api/a.get.wasm"}
	key := func() string {
		t.Helper()
		k, err := cacheKey(t.Context(), app, src, appHashes{})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	seen := map[string]string{}
	for _, step := range []struct {
		name  string
		files map[string]string
		same  bool
	}{
		{"first", nil, false},
		{"nothing changed", nil, true},
		{"a README", map[string]string{"README.md": "# notes\n"}, true},
		{"a file under node_modules", map[string]string{"node_modules/x/y.ts": "// y\n"}, true},
		{"the route", map[string]string{"server/api/a.get.ts": "// a, changed\n"}, false},
		{"a shared file", map[string]string{"lib/shared.ts": "// shared, changed\n"}, false},
		{"a new .ts file", map[string]string{"lib/more.ts": "// more\n"}, false},
		{"the installed SDK", map[string]string{"node_modules/@wasmendpoints/assemblyscript/index.ts": "// sdk\n"}, false},
		{"asconfig.json", map[string]string{"asconfig.json": "{}\n"}, false},
	} {
		writeFiles(t, app, step.files)
		k := key()
		prev, repeated := seen[k]
		if step.same && !repeated || !step.same && repeated {
			t.Errorf("after %s: key repeated %v (of %q), want %v", step.name, repeated, prev, step.same)
		}
		seen[k] = step.name
	}
}
