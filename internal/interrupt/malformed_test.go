package interrupt

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// oneFunc returns (module (func ...)) with the given code as its body.
func oneFunc(code ...byte) []byte {
	return oneFuncLocals(noLocals, code...)
}

// oneFuncLocals returns (module (func ...)) with the given locals and code.
func oneFuncLocals(locals []byte, code ...byte) []byte {
	return mod(
		sec(secType, vec(bs(0x60, 0, 0))),
		sec(secFunction, vec(bs(0))),
		sec(secCode, vec(fnBody(locals, code...))),
	)
}

func TestInstrumentRejects(t *testing.T) {
	instrumented, err := Instrument(oneFunc(0x0b), DefaultPeriod)
	if err != nil {
		t.Fatal(err)
	}
	importGlobal := sec(secImport, vec(slices.Concat(str("env"), str("g"), bs(0x03, 0x7f, 0x00))))
	tests := []struct {
		name    string
		wasm    []byte
		period  int32
		wantErr string
	}{
		{"empty input", nil, DefaultPeriod, "not a WebAssembly module"},
		{"wrong magic", []byte("\x00asn\x01\x00\x00\x00"), DefaultPeriod, "want the magic bytes"},
		{"a component, not a core module", []byte("\x00asm\x0d\x00\x01\x00"), DefaultPeriod, "binary format version 0d 00 01 00"},
		{"section size past the end", mod(bs(secType, 10, 0)), DefaultPeriod, "type section at offset 0x8: size 10: only 1 bytes left"},
		{"section size LEB128 too long", mod(bs(secType, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)), DefaultPeriod, "section at offset 0x8: size: malformed LEB128 integer"},
		{"unknown section id", mod(bs(14, 0)), DefaultPeriod, "unknown section id 14"},
		{"sections out of order", mod(sec(secFunction, vec()), sec(secType, vec())), DefaultPeriod, "type section at offset 0xb: out of order or repeated"},
		{"unknown opcode", oneFunc(0x27, 0x0b), DefaultPeriod, "code section: function 0: offset 0x17: unknown opcode 0x27"},
		{"unknown SIMD opcode", oneFunc(0xfd, 0x9a, 0x01, 0x0b), DefaultPeriod, "offset 0x17: unknown opcode 0xfd 154"},
		{"unknown atomic opcode", oneFunc(0xfe, 0x04, 0x0b), DefaultPeriod, "unknown opcode 0xfe 4"},
		{"garbage collection opcode", oneFunc(0xfb, 0x00, 0x0b), DefaultPeriod, "unknown opcode 0xfb: garbage collection instructions are not supported"},
		{"truncated immediate", oneFunc(0x41), DefaultPeriod, "opcode 0x41: unexpected end of data"},
		{"truncated memarg", oneFunc(0x28, 0x02), DefaultPeriod, "opcode 0x28: unexpected end of data"},
		{"immediate LEB128 out of range", oneFunc(0x41, 0x80, 0x80, 0x80, 0x80, 0x70, 0x0b), DefaultPeriod, "opcode 0x41: malformed LEB128 integer"},
		{"br_table longer than the body", oneFunc(0x0e, 0xff, 0xff, 0x03, 0x0b), DefaultPeriod, "opcode 0x0e: unexpected end of data"},
		{"bad value type in locals", oneFuncLocals(bs(1, 1, 0x40), 0x0b), DefaultPeriod, "locals: bad value type 0x40"},
		{"instrumented twice", instrumented, DefaultPeriod, `import section: import 0 ("endpoints_interrupt" "check"): the module already imports from "endpoints_interrupt": instrumented twice?`},
		{"code reads the fuel's global index", oneFunc(0x23, 0, 0x1a, 0x0b), DefaultPeriod, "global 0 does not exist (it is the index the fuel global takes)"},
		{"code sets the fuel's index after an imported global", mod(
			sec(secType, vec(bs(0x60, 0, 0))),
			importGlobal,
			sec(secFunction, vec(bs(0))),
			sec(secCode, vec(fnBody(noLocals, 0x23, 0, 0x24, 1, 0x0b))),
		), DefaultPeriod, "function 0: offset 0x25: global 1 does not exist"},
		{"export of the fuel's global index", mod(sec(secExport, vec(slices.Concat(str("fuel"), bs(0x03, 0))))), DefaultPeriod, `export section: export 0 ("fuel"): global 0 does not exist`},
		{"data offset reads the fuel's global index", mod(
			sec(secMemory, vec(bs(0, 1))),
			sec(secData, vec(bs(0, 0x23, 0, 0x0b, 0))),
		), DefaultPeriod, "data section: segment 0: offset expression: offset 0x11: global 0 does not exist"},
		{"element offset reads the fuel's global index", mod(
			sec(secTable, vec(bs(0x70, 0, 1))),
			sec(secElement, vec(bs(0, 0x23, 0, 0x0b, 0))),
		), DefaultPeriod, "element section: segment 0: offset expression: offset 0x12: global 0 does not exist"},
		{"global initialiser without end", mod(sec(secGlobal, vec(bs(0x7f, 0, 0x41, 0)))), DefaultPeriod, "global section: global 0: offset 0xf: unexpected end of data: want the end opcode of the expression"},
		{"element segment with unknown flags", mod(sec(secElement, vec(bs(8)))), DefaultPeriod, "element section: segment 0: offset 0xb: unknown flags 8"},
		{"data segment with unknown flags", mod(sec(secData, vec(bs(3)))), DefaultPeriod, "data section: segment 0: offset 0xb: unknown flags 3"},
		{"more functions than bodies", mod(
			sec(secType, vec(bs(0x60, 0, 0))),
			sec(secFunction, vec(bs(0), bs(0))),
			sec(secCode, vec(fnBody(noLocals, 0x0b))),
		), DefaultPeriod, "code section: 1 function bodies, but the function section declares 2 functions"},
		{"garbage collection type", mod(sec(secType, vec(bs(0x5f, 0)))), DefaultPeriod, "type section: type 0: offset 0xb: form 0x5f: only function types (0x60) are supported"},
		{"unknown import kind", mod(sec(secImport, vec(slices.Concat(str("env"), str("x"), bs(0x05))))), DefaultPeriod, `"env" "x": unknown import kind 0x05`},
		{"name subsection past the end", mod(sec(secCustom, str("name"), bs(1, 9, 0))), DefaultPeriod, "name section: subsection 1 at offset 0xf: size: unexpected end of data"},
		{"zero period", oneFunc(0x0b), 0, "period 0: must be positive"},
		{"negative period", oneFunc(0x0b), -5, "period -5: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Instrument(tt.wasm, tt.period)
			if err == nil {
				t.Fatalf("Instrument succeeded with %d bytes, want an error containing %q", len(out), tt.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "instrument: ") || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q, want %q after the prefix \"instrument: \"", err, tt.wantErr)
			}
		})
	}
}

func TestInstrumentDropsCustomSectionsWithOffsets(t *testing.T) {
	wasm := mod(
		sec(secType, vec(bs(0x60, 0, 0))),
		sec(secCustom, str(".debug_info"), bs(1, 2, 3)),
		sec(secFunction, vec(bs(0))),
		sec(secCode, vec(fnBody(noLocals, 0x0b))),
		sec(secCustom, str("producers"), bs(0)),
		sec(secCustom, str(".debug_line"), bs(4)),
		sec(secCustom, str("reloc.CODE"), bs(5)),
		sec(secCustom, str("linking"), bs(2)),
		sec(secCustom, str("metadata.code.branch_hint"), bs(0)),
		sec(secCustom, str("sourceMappingURL"), str("x.map")),
	)
	out := instrument(t, wasm, DefaultPeriod)
	sections, err := splitSections(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sections {
		if s.id == secCustom {
			got = append(got, s.name)
		}
	}
	if want := []string{"producers", "sourceMappingURL"}; !slices.Equal(got, want) {
		t.Errorf("custom sections %q, want %q", got, want)
	}
}

// fixtures returns the modules the tests build or assemble: the seeds of
// the fuzz test and the inputs of the robustness tests. Fixtures whose tool
// is missing are left out.
func fixtures(t testing.TB) map[string][]byte {
	m := map[string][]byte{
		"exceptions":    exceptions,
		"funcRefs":      funcRefs,
		"dispatchCatch": dispatchCatch,
		"empty":         mod(),
		"oneFunc":       oneFunc(0x0b),
	}
	if _, err := exec.LookPath("wat2wasm"); err == nil {
		for _, f := range []struct {
			name  string
			flags []string
		}{
			{"loop", nil}, {"recursion", nil}, {"funcref", nil}, {"start", nil},
			{"names", []string{"--debug-names"}}, {"multivalue", nil}, {"simd_bulk", nil}, {"dispatch", nil},
			{"tailcall", []string{"--enable-tail-call"}}, {"proposals", []string{"--enable-all"}},
		} {
			m[f.name] = wat(t, f.name, f.flags...)
		}
	}
	if _, err := exec.LookPath("clang"); err == nil {
		m["hot.c"] = cGuest(t)
	}
	return m
}

// TestInstrumentTruncated instruments every prefix of every fixture: an
// error or a module, never a panic. A cut inside a section must be an
// error.
func TestInstrumentTruncated(t *testing.T) {
	for name, wasm := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			ends := map[int]bool{8: true} // where a section ends
			if sections, err := splitSections(wasm); err == nil {
				for _, s := range sections {
					ends[s.off+len(s.body)] = true
				}
			}
			for n := range len(wasm) {
				_, err := Instrument(wasm[:n], DefaultPeriod)
				if err == nil && !ends[n] {
					t.Errorf("prefix of %d bytes, cut inside a section: no error", n)
				}
			}
		})
	}
}

// TestInstrumentValidatesWithWabt checks the instrumented fixtures with
// wasm-validate, an independent validator that knows the proposals wazero
// does not run (legacy exceptions, memory64, relaxed SIMD), and counts the
// fuel checks wasm-objdump finds.
func TestInstrumentValidatesWithWabt(t *testing.T) {
	validate := tool(t, "wasm-validate")
	objdump := tool(t, "wasm-objdump")
	tests := []struct {
		wat        string
		flags      []string
		wantChecks int // loops + entries of functions with calls not starting with a loop
	}{
		{"loop", nil, 3},
		{"recursion", nil, 4},
		{"tailcall", []string{"--enable-tail-call"}, 4},
		{"funcref", nil, 4},
		{"start", nil, 1},
		{"multivalue", nil, 2},
		{"simd_bulk", nil, 3},
		{"proposals", []string{"--enable-all"}, 4},
		{"dispatch", nil, 13}, // one edge back in each function but forward's, and spin_calls's entry
	}
	for _, tt := range tests {
		t.Run(tt.wat, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), tt.wat+".wasm")
			if err := os.WriteFile(out, instrument(t, wat(t, tt.wat, tt.flags...), DefaultPeriod), 0o644); err != nil {
				t.Fatal(err)
			}
			if msg, err := exec.Command(validate, append(tt.flags, out)...).CombinedOutput(); err != nil {
				t.Fatalf("wasm-validate: %v\n%s", err, msg)
			}
			dump, err := exec.Command(objdump, "-d", out).CombinedOutput()
			if err != nil {
				t.Fatalf("wasm-objdump: %v\n%s", err, dump)
			}
			if got := strings.Count(string(dump), "<"+ImportModule+"."+ImportName+">"); got != tt.wantChecks {
				t.Errorf("%d calls of the check, want %d", got, tt.wantChecks)
			}
		})
	}
}

// FuzzInstrument checks that Instrument never panics, and that when the
// input compiles in wazero and Instrument succeeds, the output compiles.
func FuzzInstrument(f *testing.F) {
	for _, wasm := range fixtures(f) {
		f.Add(wasm)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(features))
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, err := Instrument(wasm, 7)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "instrument: ") {
				t.Errorf("error %q does not start with \"instrument: \"", err)
			}
			return
		}
		if compiles(rt, wasm) != nil {
			return
		}
		if err := compiles(rt, out); err != nil {
			t.Errorf("the input compiles, the output does not: %v", err)
		}
	})
}
