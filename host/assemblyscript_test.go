package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestAssemblyScriptAbort builds an app that installed only the compiler,
// so endpoints build supplies the SDK it ships, and checks that a throw in
// a handler is logged with its message and place and answered 500, and
// that the next request gets a fresh instance.
func TestAssemblyScriptAbort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	linkAssemblyScript(t, dir)
	src := filepath.Join(dir, "server", "api", "boom.get.ts")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(`import { Contract, Request, Schema, endpoint, respond, JSONValue } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

endpoint(
  new Contract().summary("Fail on purpose").query("fail", Schema.boolean()).response(200, "fine", Schema.object()),
  (req: Request): void => {
    const fail = req.query("fail");
    if (fail != null && fail.asBool()) throw new Error("boom on purpose");
    respond(200, JSONValue.object());
  },
);
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.App(t.Context(), dir, dir, nil); err != nil {
		t.Fatal(err)
	}
	srv, logs := (&app{t: t, dir: dir}).serve(host.Options{Mode: host.Development})
	if got := do(t, srv, "GET", "/api/boom?fail=true", ""); got.status != 500 {
		t.Errorf("a throwing handler = %d %s, want 500", got.status, got.body)
	}
	if !strings.Contains(logs.String(), "abort: boom on purpose at server/api/boom.get.ts:") {
		t.Errorf("the log does not say why the handler failed:\n%s", logs)
	}
	if got := do(t, srv, "GET", "/api/boom", ""); got.status != 200 || got.body != "{}" {
		t.Errorf("the next request = %d %s, want 200 {}", got.status, got.body)
	}
}

// linkAssemblyScript links the compiler examples/users-as installs (the
// first call installs it) into the app at dir, so that endpoints build
// finds it and supplies the SDK it ships.
func linkAssemblyScript(t *testing.T, dir string) {
	t.Helper()
	builtExample(t, "users-as") // installs the compiler in examples/users-as
	modules, err := filepath.Abs(filepath.Join("..", "examples", "users-as", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []struct{ name, target string }{
		{"node_modules/assemblyscript", filepath.Join(modules, "assemblyscript")},
		{"node_modules/.bin/asc", "../assemblyscript/bin/asc.js"},
	} {
		p := filepath.Join(dir, filepath.FromSlash(link.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(link.target, p); err != nil {
			t.Fatal(err)
		}
	}
}
