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

// runtimeC is the C source of a runtime declaration module declaring
// decl, a C string literal.
func runtimeC(decl string) string {
	return `#include "endpoints.h"

ENDPOINTS_ROUTE(); /* the endpoints_abi_version export */

static const char declaration[] = ` + decl + `;

__attribute__((export_name("endpoints_runtime"))) int64_t endpoints_runtime(void) {
    return (int64_t)(((uint64_t)(uintptr_t)declaration << 32) | (uint64_t)(sizeof declaration - 1));
}
`
}

// TestBuildBuildsRuntimeDeclarations: `endpoints build` builds
// server/endpoints/runtime.{wat,c,rs,ts} like a Go //endpoints:runtime package,
// and the document shows what it declares.
func TestBuildBuildsRuntimeDeclarations(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		tool, file, source, want string
		slow                     bool
		more                     map[string]string // other files of the app
	}{
		{tool: "wat2wasm", file: "server/endpoints/runtime.wat", source: runtimeWAT(`{"openApi":{"document":{"info":{"description":"Declared in WAT"}}}}`), want: "Declared in WAT"},
		{tool: "clang", file: "server/endpoints/runtime.c", source: runtimeC(`"{\"openApi\":{\"document\":{\"info\":{\"description\":\"Declared in C\"}}}}"`), want: "Declared in C"},
		{tool: "rustc", file: "server/endpoints/runtime.rs", slow: true, want: "Declared in Rust", source: `//! The runtime declaration, by hand (ABI §6).

static DECLARATION: &str = r#"{"openApi":{"document":{"info":{"description":"Declared in Rust"}}}}"#;

#[no_mangle]
pub extern "C" fn endpoints_abi_version() -> i32 {
    1
}

#[no_mangle]
pub extern "C" fn endpoints_runtime() -> i64 {
    ((DECLARATION.as_ptr() as i64) << 32) | DECLARATION.len() as i64
}
`},
		{tool: "npm", file: "server/endpoints/runtime.ts", slow: true, want: "Declared in AssemblyScript",
			more: map[string]string{"package.json": `{"private": true, "devDependencies": {"assemblyscript": "0.28.20"}}`},
			source: `// The runtime declaration, by hand (ABI §6). The SDK's abort handler,
// which endpoints build compiles every module with, must be in the program.
import "@wasmendpoints/assemblyscript/abort";

const declaration = String.UTF8.encode('{"openApi":{"document":{"info":{"description":"Declared in AssemblyScript"}}}}');

export function endpoints_abi_version(): i32 {
  return 1;
}

export function endpoints_runtime(): i64 {
  return (<i64>changetype<usize>(declaration) << 32) | <i64>declaration.byteLength;
}
`},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			if tt.slow && testing.Short() {
				t.Skip("-short: this compiler takes seconds")
			}
			requireWat2wasm(t)
			needTool(t, tt.tool)
			files := map[string]string{"server/routes/hello.get.wat": plainRoute("hello"), tt.file: tt.source}
			for k, v := range tt.more {
				files[k] = v
			}
			app := writeApp(t, files)
			code, out, errOut := runCLI("build", app)
			if code != exitOK || !strings.Contains(out, abi.RuntimeModule) {
				t.Fatalf("build = %d, want %s built\n%s\n%s", code, abi.RuntimeModule, out, errOut)
			}
			code, out, errOut = runCLI("openapi", app)
			if code != exitOK || !strings.Contains(out, `"`+tt.want+`"`) {
				t.Errorf("openapi = %d, want the runtime declaration's description %q\n%s\n%s", code, tt.want, out, errOut)
			}
		})
	}
}

// TestBuildSaysWhatItDoesNotBuild: a source of a language endpoints build
// does not compile is named, with what to do, instead of skipped silently;
// with a build command (which may build it) nothing is said.
func TestBuildSaysWhatItDoesNotBuild(t *testing.T) {
	t.Parallel()
	requireWat2wasm(t)
	app := writeApp(t, map[string]string{
		"server/routes/hello.get.wat":  plainRoute("hello"),
		"server/endpoints/runtime.zig": "pub fn main() void {}\n",
	})
	code, out, errOut := runCLI("build", app)
	if code != exitOK || !strings.Contains(errOut, "server/endpoints/runtime.zig is not built: endpoints build compiles Go, C, WAT, AssemblyScript and Rust, not Zig") ||
		!strings.Contains(errOut, "writes server/endpoints/runtime.wasm") {
		t.Errorf("build = %d, want a note on runtime.zig\n%s\n%s", code, out, errOut)
	}
	app = writeApp(t, map[string]string{
		"server/endpoints/runtime.zig": "pub fn main() void {}\n",
		"endpoints.json":               buildConfig(t, "true"),
	})
	if code, out, errOut := runCLI("build", app); code != exitOK || strings.Contains(errOut, "not built") {
		t.Errorf("build with a command = %d, want no note\n%s\n%s", code, out, errOut)
	}
}
