package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// runtimeWAT is the WAT source of a runtime declaration module declaring
// decl.
func runtimeWAT(decl string) string {
	return fmt.Sprintf(`(module
  (memory (export %q) 1)
  (data (i32.const 1024) %q)
  (func (export %q) (result i32) (i32.const %d))
  (func (export %q) (result i64) (i64.const %d)))
`, abi.ExportMemory, decl, abi.ExportABIVersion, abi.Version, abi.ExportRuntime, int64(1024)<<32|int64(len(decl)))
}

// TestBuildBuildsARuntimeDeclarationInWAT: `endpoints build` builds
// server/endpoints/runtime.wat like a Go //endpoints:runtime package, and
// the document shows what it declares.
func TestBuildBuildsARuntimeDeclarationInWAT(t *testing.T) {
	requireWat2wasm(t)
	app := writeApp(t, map[string]string{
		"server/routes/hello.get.wat":  plainRoute("hello"),
		"server/endpoints/runtime.wat": runtimeWAT(`{"openApi":{"document":{"info":{"description":"Declared in WAT"}}}}`),
	})
	code, out, errOut := runCLI("build", app)
	if code != exitOK || !strings.Contains(out, abi.RuntimeModule) {
		t.Fatalf("build = %d, want %s built\n%s\n%s", code, abi.RuntimeModule, out, errOut)
	}
	code, out, errOut = runCLI("openapi", app)
	if code != exitOK || !strings.Contains(out, `"Declared in WAT"`) {
		t.Errorf("openapi = %d, want the runtime declaration's description\n%s\n%s", code, out, errOut)
	}
}
