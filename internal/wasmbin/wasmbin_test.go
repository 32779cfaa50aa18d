package wasmbin_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

func assemble(t *testing.T, src string) []byte {
	t.Helper()
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs wabt")
		}
		t.Skip("needs wat2wasm (wabt)")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.wat"), filepath.Join(dir, "m.wasm")
	os.WriteFile(in, []byte(src), 0o644)
	if err := guestbuild.WAT(context.Background(), in, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const module = `(module
  (import "endpoints" "log" (func $log (param i32 i32 i32)))
  (import "env" "mem" (memory 1))
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "negative") (result i32) (i32.const -300))
  (func (export "computed") (result i32) (i32.add (i32.const 1) (i32.const 1)))
  (func (export "endpoints_handle") (result i32) (local i32) (i32.const 0)))`

func TestConstExport(t *testing.T) {
	wasm := assemble(t, module)
	for _, tt := range []struct {
		export string
		want   int32
		ok     bool
	}{
		{"endpoints_abi_version", 1, true},
		{"negative", -300, true},
		{"computed", 0, false},
		{"endpoints_handle", 0, false}, // it has a local
		{"missing", 0, false},
	} {
		n, ok, err := wasmbin.ConstExport(wasm, tt.export)
		if err != nil || n != tt.want || ok != tt.ok {
			t.Errorf("ConstExport(%s) = %d, %v, %v; want %d, %v", tt.export, n, ok, err, tt.want, tt.ok)
		}
	}
}

func TestCustomSections(t *testing.T) {
	wasm := assemble(t, module)
	if _, ok, err := wasmbin.Custom(wasm, "endpoints.contract"); ok || err != nil {
		t.Fatalf("a fresh module has the section: %v %v", ok, err)
	}
	with, err := wasmbin.WithCustom(wasm, "endpoints.contract", []byte(`{"summary":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	again, err := wasmbin.WithCustom(with, "endpoints.contract", []byte(`{"summary":"y"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := wasmbin.Custom(again, "endpoints.contract")
	if err != nil || !ok || string(got) != `{"summary":"y"}` {
		t.Errorf("Custom = %q, %v, %v; want the replaced payload", got, ok, err)
	}
	if n, ok, _ := wasmbin.ConstExport(again, "endpoints_abi_version"); !ok || n != 1 {
		t.Error("the module's code changed with its custom sections")
	}
	for _, bad := range [][]byte{nil, []byte("\x00asm\x01\x00\x00\x00\x00\x7f"), append(append([]byte{}, wasm[:8]...), 0x01, 0xff, 0xff, 0xff, 0xff, 0x7f)} {
		if _, err := wasmbin.Sections(bad); !errors.Is(err, wasmbin.ErrMalformed) {
			t.Errorf("Sections(%q) = %v, want ErrMalformed", bad, err)
		}
	}
}

func TestMemoryPages(t *testing.T) {
	header := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	tests := []struct {
		name   string
		module []byte
		pages  uint32
		ok     bool
	}{
		{"a memory of 3 pages", append(append([]byte{}, header...), wasmbin.SectionMemory, 3, 1, 0x00, 3), 3, true},
		{"min 200 with a max (flag 1)", append(append([]byte{}, header...), wasmbin.SectionMemory, 5, 1, 0x01, 0xc8, 0x01, 0x80), 200, true},
		{"no memory section", header, 0, false},
	}
	for _, tt := range tests {
		pages, ok, err := wasmbin.MemoryPages(tt.module)
		if err != nil || pages != tt.pages || ok != tt.ok {
			t.Errorf("%s: MemoryPages = %d, %v, %v; want %d, %v", tt.name, pages, ok, err, tt.pages, tt.ok)
		}
	}
	if _, _, err := wasmbin.MemoryPages(append(append([]byte{}, header...), wasmbin.SectionMemory, 1, 1)); err == nil {
		t.Error("a memory section cut short parsed")
	}
}

func TestExportsFunction(t *testing.T) {
	wasm := assemble(t, module)
	for _, tt := range []struct {
		export string
		want   bool
	}{
		{"endpoints_handle", true},
		{"negative", true},
		{"endpoints_on_validation_error", false},
		{"mem", false}, // an import, not an export
	} {
		if got, err := wasmbin.ExportsFunction(wasm, tt.export); err != nil || got != tt.want {
			t.Errorf("ExportsFunction(%s) = %v, %v; want %v", tt.export, got, err, tt.want)
		}
	}
	if _, err := wasmbin.ExportsFunction(wasm[:len(wasm)-3], "negative"); err == nil {
		t.Error("a module cut short parsed")
	}
}

func TestImportsFunction(t *testing.T) {
	wasm := assemble(t, `(module
  (import "env" "mem" (memory 1))
  (import "endpoints" "log" (func (param i32 i32 i32)))
  (import "other" "db_query" (func (param i32)))
  (import "endpoints" "db_exec" (func (param i32))))`)
	for _, tt := range []struct {
		module, prefix string
		want           bool
	}{
		{"endpoints", "db_", true},
		{"endpoints", "log", true},
		{"endpoints", "http_", false},
		{"other", "db_", true},
		{"env", "mem", false}, // a memory, not a function
	} {
		if got, err := wasmbin.ImportsFunction(wasm, tt.module, tt.prefix); err != nil || got != tt.want {
			t.Errorf("ImportsFunction(%s, %s) = %v, %v; want %v", tt.module, tt.prefix, got, err, tt.want)
		}
	}
	if got, err := wasmbin.ImportsFunction(assemble(t, `(module)`), "endpoints", "db_"); err != nil || got {
		t.Errorf("a module without imports: %v, %v", got, err)
	}
	if _, err := wasmbin.ImportsFunction(wasm[:len(wasm)-3], "endpoints", "db_"); err == nil {
		t.Error("a module cut short parsed")
	}
}
