package host_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/sections"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// TestCheckRoutesFromSections: the app check `endpoints build` runs
// (sections.Check) routes a module from its contract sections and never
// runs its code: a module whose code traps when instantiated, but whose
// sections declare a contract, passes the check, as it passes serve's
// start, which defers its code too; a load that runs the code refuses it.
// What the sections declare is what the check counts: one route, one
// operation, in a document it built.
func TestCheckRoutesFromSections(t *testing.T) {
	const file = "server/api/items.get.wasm"
	a := newApp(t).watSource(file, `(module
  (memory (export "memory") 1)
  (func $trap unreachable)
  (start $trap)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "endpoints_contract") (result i64) (i64.const 0))
  (func (export "endpoints_handle") (result i32) (i32.const 0)))`)
	p := filepath.Join(a.dir, filepath.FromSlash(file))
	wasm, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	contract := `{"responses":{"200":{"description":"the items","schema":{"$ref":"#/$defs/Items"}}},"$defs":{"Items":{"type":"array"}}}`
	if wasm, err = wasmbin.WithCustom(wasm, abi.SectionContract, []byte(contract)); err == nil {
		wasm, err = wasmbin.WithCustom(wasm, abi.SectionABIVersion, []byte(strconv.Itoa(abi.Version)))
	}
	if err != nil {
		t.Fatal(err)
	}
	a.file(file, wasm)
	got, err := sections.Check(context.Background(), a.dir)
	if err != nil {
		t.Fatalf("the check of a module routed from its sections: %v", err)
	}
	if got.Routes != 1 || got.Operations != 1 || got.DocumentBytes == 0 {
		t.Errorf("check = %+v, want 1 route, 1 operation and a document", got)
	}
	// A load that runs the code (no deferred code) refuses the module:
	// the check passed without running it.
	h, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		_ = h.Close(context.Background())
		t.Fatal("a load that runs the module's code accepted code that traps at its start")
	}
	if !strings.Contains(err.Error(), file) {
		t.Errorf("the eager load's error does not name the module: %v", err)
	}
}
