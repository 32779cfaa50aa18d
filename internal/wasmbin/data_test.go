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
	return dataModulePages(segs, dataCount, 1)
}

// dataModulePages is dataModule with a memory of pages pages.
func dataModulePages(segs []segment, dataCount bool, pages uint32) []byte {
	section := func(out []byte, id byte, payload []byte) []byte {
		out = append(out, id)
		out = leb128.AppendU32(out, uint32(len(payload)))
		return append(out, payload...)
	}
	out := append([]byte(nil), magic...)
	out = section(out, SectionMemory, leb128.AppendU32([]byte{1, 0}, pages)) // one memory, min pages
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

// instantiation is what instantiating wasm with wazero gives: the bytes
// of its memory, or the error.
func instantiation(t testing.TB, wasm []byte, imports ...[]byte) (memory []byte, err error) {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	for i, imp := range imports {
		if _, err := r.InstantiateWithConfig(ctx, imp, wazero.NewModuleConfig().WithName(importModuleName(i))); err != nil {
			t.Fatal(err)
		}
	}
	mod, err := r.Instantiate(ctx, wasm)
	if err != nil {
		return nil, err
	}
	b, _ := mod.Memory().Read(0, mod.Memory().Size())
	return bytes.Clone(b), nil
}

func importModuleName(i int) string { return "env" + strings.Repeat("+", i) }

// TestMergeDataPastMemory: when a segment runs past the memory's initial
// size, the instantiation of the module MergeData returns fails as the
// original's does, naming the same segment (merged, the indices of the
// segments change: it leaves such a module as it is).
func TestMergeDataPastMemory(t *testing.T) {
	for _, segs := range [][]segment{
		{{0, 65530, "abc"}, {0, 65534, "defgh"}},
		{{0, 65534, "defgh"}, {0, 100, "x"}, {0, 102, "y"}},
		{{0, 16, "ab"}, {0, 18, "cd"}, {0, -4, "zz"}},
	} {
		wasm := dataModule(segs, false)
		got, merged, err := MergeData(wasm, 8)
		if err != nil {
			t.Fatal(err)
		}
		_, errBefore := instantiation(t, wasm)
		_, errAfter := instantiation(t, got)
		if errBefore == nil || errAfter == nil || errBefore.Error() != errAfter.Error() {
			t.Errorf("segments %v: merged %v; instantiating the original fails with %v, the merged one with %v; want the same error", segs, merged, errBefore, errAfter)
		}
	}
}

// TestMergeDataImportedMemory: the zeros MergeData writes between two
// segments would overwrite what is in an imported memory there, which
// the module's own segments leave as it is: it leaves such a module as
// it is.
func TestMergeDataImportedMemory(t *testing.T) {
	// env: a memory of a page, exported, its first 64 bytes 0xff.
	section := func(out []byte, id byte, payload []byte) []byte {
		out = append(out, id)
		out = leb128.AppendU32(out, uint32(len(payload)))
		return append(out, payload...)
	}
	env := append([]byte(nil), magic...)
	env = section(env, SectionMemory, []byte{1, 0, 1})
	env = section(env, SectionExport, []byte{1, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0})
	env = section(env, SectionData, append([]byte{1, 0, 0x41, 0, 0x0b, 64}, bytes.Repeat([]byte{0xff}, 64)...))

	guest := append([]byte(nil), magic...)
	guest = section(guest, SectionImport, []byte{1, 3, 'e', 'n', 'v', 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0, 1})
	data := []byte{2, 0, 0x41, 16, 0x0b, 2, 'a', 'b', 0, 0x41, 24, 0x0b, 2, 'c', 'd'}
	guest = section(guest, SectionData, data)
	// The guest exports the memory it imported, for the test to read.
	guest = section(guest[:len(guest)-len(data)-2], SectionExport, []byte{1, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0})
	guest = section(guest, SectionData, data)

	got, merged, err := MergeData(guest, 8)
	if err != nil {
		t.Fatal(err)
	}
	before, err := instantiation(t, guest, env)
	if err != nil {
		t.Fatal(err)
	}
	after, err := instantiation(t, got, env)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before[:64], after[:64]) {
		t.Errorf("merged %v: the imported memory holds %x after the merged module's instantiation, %x after the original's", merged, after[:64], before[:64])
	}
}

// FuzzMergeData: whatever the segments (in any order, overlapping,
// passive, past the memory, close or far apart), instantiating the module
// MergeData returns gives the memory, or the error, that instantiating
// the original gives. Each 4 bytes of the input make a segment: its
// flags (passive when the first byte is odd), offset (second and third
// bytes, in units of 17 bytes, so that some segments fall past the
// memory's page) and length (fourth byte).
func FuzzMergeData(f *testing.F) {
	f.Add([]byte{0, 1, 0, 4, 0, 1, 1, 4, 0, 3, 0, 9})
	f.Add([]byte{0, 5, 0, 20, 0, 1, 0, 2, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 15, 40, 0, 0, 14, 200, 0, 2, 0, 1})
	f.Add([]byte{0, 9, 0, 3, 1, 0, 0, 3, 0, 10, 0, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		var segs []segment
		for i := 0; i+4 <= len(in) && len(segs) < 64; i += 4 {
			s := segment{flags: uint32(in[i] & 1), offset: int32(uint16(in[i+1])<<8|uint16(in[i+2])) * 17}
			for j := range int(in[i+3]) {
				s.init += string(rune('a' + (i/4+j)%26))
			}
			segs = append(segs, s)
		}
		wasm := dataModule(segs, false)
		got, _, err := MergeData(wasm, 32)
		if err != nil {
			t.Fatal(err)
		}
		before, errBefore := instantiation(t, wasm)
		after, errAfter := instantiation(t, got)
		if (errBefore == nil) != (errAfter == nil) || errBefore != nil && errBefore.Error() != errAfter.Error() {
			t.Fatalf("segments %v: instantiating the original: %v, the merged module: %v", segs, errBefore, errAfter)
		}
		if !bytes.Equal(before, after) {
			t.Fatalf("segments %v: the merged module's memory differs from the original's", segs)
		}
	})
}

// TestMergeDataBoundsGrowth: the zeros MergeData writes out are bounded
// by the bytes of the data it merges, so that a module of many small
// segments each a gap apart (one byte every 1025) does not grow a
// thousandfold, in the code cache and in the memory of its decoding;
// what it merges still gives the same memory.
func TestMergeDataBoundsGrowth(t *testing.T) {
	var segs []segment
	for i := range 2000 {
		segs = append(segs, segment{offset: int32(i * (DefaultDataGap + 1)), init: "x"})
	}
	wasm := dataModulePages(segs, false, 32)
	got, merged, err := MergeData(wasm, DefaultDataGap)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 2*len(wasm) {
		t.Errorf("merged %v: the module grew from %d bytes to %d, want at most twice", merged, len(wasm), len(got))
	}
	if !merged || countSegments(t, got) >= uint32(len(segs)) {
		t.Errorf("merged %v into %d segments, want fewer than %d: what the bound allows is merged", merged, countSegments(t, got), len(segs))
	}
	if !bytes.Equal(memoryAfterStart(t, got), memoryAfterStart(t, wasm)) {
		t.Error("the merged module's memory differs from the original's after instantiation")
	}
}
