package wasmbin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmendpoints/endpoints/internal/leb128"
)

// segment is a data segment of a test module: active at offset unless
// flags says otherwise (1: passive).
type segment struct {
	flags  uint32
	offset int32
	init   string
}

// dataModule is a module of one memory of a page, its data segs, and a
// data count section when dataCount.
func dataModule(segs []segment, dataCount bool) []byte {
	section := func(out []byte, id byte, payload []byte) []byte {
		out = append(out, id)
		out = leb128.AppendU32(out, uint32(len(payload)))
		return append(out, payload...)
	}
	out := append([]byte(nil), magic...)
	out = section(out, SectionMemory, []byte{1, 0, 1}) // one memory, min 1 page
	if dataCount {
		out = section(out, sectionDataCount, leb128.AppendU32(nil, uint32(len(segs))))
	}
	if segs == nil {
		return out
	}
	payload := leb128.AppendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		payload = leb128.AppendU32(payload, s.flags)
		if s.flags == 0 {
			payload = append(payload, 0x41)
			payload = leb128.AppendS32(payload, s.offset)
			payload = append(payload, 0x0b)
		}
		payload = leb128.AppendU32(payload, uint32(len(s.init)))
		payload = append(payload, s.init...)
	}
	return section(out, SectionData, payload)
}

// memoryAfterStart is the memory of a new instance of wasm, as wazero
// initialises it.
func memoryAfterStart(t *testing.T, wasm []byte) []byte {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	mod, err := r.Instantiate(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := mod.Memory().Read(0, mod.Memory().Size())
	return bytes.Clone(b)
}

// countSegments is the number of data segments of wasm.
func countSegments(t *testing.T, wasm []byte) uint32 {
	t.Helper()
	sections, err := Sections(wasm)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sections {
		if s.ID == SectionData {
			n, _, err := readU32(s.Payload, 0)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// TestMergeData: the segments a gap of at most maxGap bytes separates
// become one, and a new instance's memory is the same byte for byte; data
// of a form MergeData does not merge is left as it is, the module
// returned unchanged.
func TestMergeData(t *testing.T) {
	const maxGap = 8
	for _, tc := range []struct {
		name      string
		segs      []segment
		dataCount bool
		want      uint32 // segments after; 0: the module unchanged
	}{
		{"adjacent and close segments", []segment{{0, 16, "ab"}, {0, 18, "cd"}, {0, 25, "ef"}, {0, 35, "gh"}}, false, 1},
		{"a gap wider than maxGap", []segment{{0, 16, "ab"}, {0, 20, "cd"}, {0, 100, "ef"}, {0, 104, "gh"}}, false, 2},
		{"an empty segment between", []segment{{0, 0, "ab"}, {0, 4, ""}, {0, 6, "cd"}}, false, 1},
		{"at the end of the memory", []segment{{0, 65530, "abc"}, {0, 65533, "def"}}, false, 1},
		{"far apart: nothing to merge", []segment{{0, 0, "ab"}, {0, 1000, "cd"}}, false, 0},
		{"overlapping segments", []segment{{0, 16, "abcd"}, {0, 18, "xy"}}, false, 0},
		{"out of order", []segment{{0, 20, "cd"}, {0, 100, "gh"}, {0, 16, "ab"}, {0, 96, "ef"}}, false, 2},
		{"overlapping out of order", []segment{{0, 18, "xy"}, {0, 16, "abcd"}}, false, 0},
		{"a passive segment", []segment{{0, 16, "ab"}, {1, 0, "zz"}, {0, 18, "cd"}}, false, 0},
		{"a data count section", []segment{{0, 16, "ab"}, {0, 18, "cd"}}, true, 0},
		{"no data section", nil, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := dataModule(tc.segs, tc.dataCount)
			got, merged, err := MergeData(wasm, maxGap)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == 0 {
				if merged || !bytes.Equal(got, wasm) {
					t.Errorf("MergeData merged %v, changed the module %v; want it unchanged", merged, !bytes.Equal(got, wasm))
				}
				return
			}
			if n := countSegments(t, got); !merged || n != tc.want {
				t.Errorf("MergeData merged %v into %d segments, want %d", merged, n, tc.want)
			}
			if !bytes.Equal(memoryAfterStart(t, got), memoryAfterStart(t, wasm)) {
				t.Error("the merged module's memory differs from the original's after instantiation")
			}
		})
	}
}

// TestMergeDataRefusesMalformed: a data segment that runs past its
// section is an error wrapping ErrMalformed.
func TestMergeDataRefusesMalformed(t *testing.T) {
	payload := []byte{1, 0, 0x41, 0, 0x0b, 10, 'a', 'b'} // one segment of 10 bytes, 2 given
	wasm := append(append(bytes.Clone(magic), SectionData, byte(len(payload))), payload...)
	if _, _, err := MergeData(wasm, 8); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "runs past its section") {
		t.Errorf("MergeData of a cut segment = %v, want an ErrMalformed saying it runs past its section", err)
	}
}

// TestMergeDataGoModule: a module Go builds (its linker cuts the data
// into thousands of segments, not in the order of their offsets) merges
// into a few, and a new instance's memory is the same byte for byte.
func TestMergeDataGoModule(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a Go program for wasip1")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command: %v", err)
	}
	dir := t.TempDir()
	src := "package main\n\nimport \"fmt\"\n\nvar table = map[string]int{\"a\": 1, \"b\": 2}\n\nfunc main() { fmt.Println(table) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "main.wasm")
	cmd := exec.Command(goTool, "build", "-o", out, "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GO111MODULE=off")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	merged, ok, err := MergeData(wasm, DefaultDataGap)
	if err != nil || !ok {
		t.Fatalf("MergeData = %v, %v; want the segments merged", ok, err)
	}
	before, after := countSegments(t, wasm), countSegments(t, merged)
	if after*100 > before {
		t.Errorf("%d segments merged into %d, want a hundredth or fewer", before, after)
	}
	if !bytes.Equal(memoryBeforeStart(t, merged), memoryBeforeStart(t, wasm)) {
		t.Error("the merged module's memory differs from the original's after instantiation")
	}
}

// memoryBeforeStart is the memory of a new instance of a WASI module,
// its start function not run.
func memoryBeforeStart(t *testing.T, wasm []byte) []byte {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	mod, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := mod.Memory().Read(0, mod.Memory().Size())
	return bytes.Clone(b)
}
