package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestImportsTheHostLacks: a module importing what the host does not
// provide fails its load naming the module and the function, not with
// wazero's "module[env] not instantiated".
func TestImportsTheHostLacks(t *testing.T) {
	const exports = `(memory (export "memory") 1)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "endpoints_handle") (result i32) (i32.const 0))`
	tests := []struct {
		name, imports, want string
	}{
		{"AssemblyScript's abort", `(import "env" "abort" (func (param i32 i32 i32 i32)))`,
			`server/routes/x.get.wasm: imports function env.abort, but the host provides only the modules "endpoints", "wasi_snapshot_preview1" (AssemblyScript: pass --use abort= to asc`},
		{"a function ABI v1 lacks", `(import "endpoints" "request_body" (func (param i32 i32) (result i32)))`,
			`imports function endpoints.request_body, which the endpoints module does not have in ABI v1`},
		{"a host function with another signature", `(import "endpoints" "log" (func (param i32 i32)))`,
			`imports function endpoints.log with signature (i32, i32) -> (); the host's is (i32, i32, i32) -> ()`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).watSource("server/routes/x.get.wasm", "(module\n  "+tt.imports+"\n  "+exports+")")
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("host.New error = %v\nwant it to contain %s", err, tt.want)
			}
		})
	}
	t.Run("an imported memory", func(t *testing.T) {
		a := newApp(t).watSource("server/routes/x.get.wasm", `(module
  (import "env" "memory" (memory 1))
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "endpoints_handle") (result i32) (i32.const 0)))`)
		_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
		if want := `imports memory env.memory; a module exports its own memory as "memory"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("host.New error = %v\nwant it to contain %s", err, want)
		}
	})
}
