package interrupt

import (
	"bytes"
	"fmt"
	"github.com/wasmendpoints/endpoints/internal/leb128"
	"strings"
)

// ImportModule is the module name of the import [Instrument] appends:
//
//	(import "endpoints_interrupt" "check" (func (result i32)))
//
// The host provides it with [NewHostModule].
const ImportModule = "endpoints_interrupt"

// ImportName is the name of the function [Instrument] imports from
// [ImportModule]: () -> i32. The guest calls it when its fuel runs out; it
// returns the new fuel, or does not return when the call must stop.
const ImportName = "check"

// DefaultPeriod is the fuel between two calls of the check import: 10 000
// loop iterations or function entries. The time from a deadline to the
// guest stopped is then 15-55 µs for C and WAT loops, ~325 µs for a Go guest
// (~1.3 ms with a period of 1 000 000). A longer period saves little: the
// cost is the decrement at every loop iteration and function entry, not
// the check.
const DefaultPeriod = 10000

// Section ids of the binary format.
// https://webassembly.github.io/spec/core/binary/modules.html#sections
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13 // exception handling
)

// sectionNames names section ids in error messages.
var sectionNames = [...]string{
	secCustom: "custom", secType: "type", secImport: "import",
	secFunction: "function", secTable: "table", secMemory: "memory",
	secGlobal: "global", secExport: "export", secStart: "start",
	secElement: "element", secCode: "code", secData: "data",
	secDataCount: "data count", secTag: "tag",
}

// sectionOrder is the rank of each non-custom section id: sections must
// appear in increasing rank, the tag section between memory and global.
var sectionOrder = [...]int{
	secType: 1, secImport: 2, secFunction: 3, secTable: 4, secMemory: 5,
	secTag: 6, secGlobal: 7, secExport: 8, secStart: 9, secElement: 10,
	secDataCount: 11, secCode: 12, secData: 13,
}

// droppedCustom lists prefixes of custom sections that Instrument drops:
// they hold code offsets or function indices it does not rewrite, which
// the rewrite would make wrong (DWARF, linker relocations and symbols, code
// metadata such as branch hints).
var droppedCustom = []string{".debug_", "reloc.", "linking", "metadata.code."}

// section is one section of the input module.
type section struct {
	id   byte
	name string // custom sections only
	body []byte // contents after the size
	off  int    // offset of body in the module, for errors
}

// funcType is the type of the check import: () -> i32.
var funcType = []byte{0x60, 0x00, 0x01, 0x7f}

// Instrument returns a rewritten copy of wasm, a binary WebAssembly module,
// that calls the host back every period units of fuel so that a runaway
// call can be stopped: a loop iteration or the entry of a function that
// makes calls costs one unit.
//
// The copy imports ([ImportModule], [ImportName]) after the module's other
// imports and holds a new mutable i32 global, the fuel, initialised to
// period. After every `loop` opcode, and at the entry of every function that
// makes calls (call, call_indirect, return_call*, call_ref) unless a loop is
// reached straight from the entry, it inserts:
//
//	global.get $fuel
//	i32.const 1
//	i32.sub
//	global.set $fuel
//	global.get $fuel
//	i32.const 1
//	i32.lt_s
//	if
//	  call $check      ;; returns the new fuel, or stops the call
//	  global.set $fuel
//	end
//
// A dispatch loop, the shape Go gives every function with jumps (a loop
// whose body opens with blocks and a br_table on a local), gets no check
// after its `loop` opcode: the check goes before each edge back to it that
// may go backwards instead, and a jump `i32.const K; local.set $pc; br`
// to a later segment is free (dispatch.go says why that still stops every
// loop). Most of Go's jumps are forward: a Go request runs a third of the
// checks. [InstrumentWith] can put the check at every loop header still.
//
// Defined functions move up by one index; every reference is renumbered
// (call, return_call and ref.func in code and constant expressions, exports,
// the start function, element segments, the name section). Custom sections
// that hold code offsets (.debug_*, reloc.*, linking, metadata.code.*) are
// dropped. The input is not modified.
//
// Errors name the section, the function or entry index and the byte offset
// in the module:
//
//	instrument: code section: function 12: offset 0x3f1: unknown opcode 0xfd 154
//
// # Notes
//
//   - Instrument decodes structure and instructions, it does not validate:
//     compile the result to validate it. It refuses a module that already
//     imports from [ImportModule] (instrumented twice) and a module whose
//     code or exports use the global index the fuel will take, so that an
//     invalid module cannot become a valid one that refills its own fuel.
//   - The test is `fuel < 1` rather than `fuel == 0`, so that fuel left at
//     0 by an interrupted call cannot run on for 2^32 units.
//   - The check type `() -> i32` is reused when the module declares it,
//     else appended to the type section.
//   - Pass the same period to [NewHostModule].
func Instrument(wasm []byte, period int32) ([]byte, error) {
	return InstrumentWith(wasm, period, Options{})
}

// Options changes what [InstrumentWith] inserts. The zero value is what
// [Instrument] does.
type Options struct {
	// EveryLoop puts the check at the header of every loop, dispatch
	// loops (Go's) included, as the rewrite did before it knew them: each
	// of Go's jumps, forward or backward, then pays a check. It stops
	// loops no better; it is there to measure what the dispatch rewrite
	// saves (BenchmarkGoGuestRewrite, and guest-sdk/go's
	// BenchmarkWasmGuestDBRewrite) and to fall back to if it ever needs
	// to.
	EveryLoop bool
}

// InstrumentWith is [Instrument] with options.
func InstrumentWith(wasm []byte, period int32, opts Options) ([]byte, error) {
	if period <= 0 {
		return nil, fmt.Errorf("instrument: period %d: must be positive", period)
	}
	sections, err := splitSections(wasm)
	if err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	var idx [secTag + 1]int // position in sections + 1, 0 when absent
	for i, s := range sections {
		if s.id != secCustom {
			idx[s.id] = i + 1
		}
	}
	get := func(id byte) *section {
		if idx[id] == 0 {
			return nil
		}
		return &sections[idx[id]-1]
	}

	r := &rewriter{everyLoop: opts.EveryLoop}
	types, err := r.scanTypes(get(secType))
	if err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	imports, err := r.scanImports(get(secImport))
	if err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	if s := get(secFunction); s != nil {
		if r.definedFuncs, _, err = leb128.ReadU32(s.body, 0); err != nil {
			return nil, fmt.Errorf("instrument: function section: count: %w", err)
		}
	}
	var definedGlobals uint32
	if s := get(secGlobal); s != nil {
		if definedGlobals, _, err = leb128.ReadU32(s.body, 0); err != nil {
			return nil, fmt.Errorf("instrument: global section: count: %w", err)
		}
	}
	r.fuel = r.importedGlobals + definedGlobals
	if r.fuel < r.importedGlobals {
		return nil, fmt.Errorf("instrument: global section: %d globals: too many", definedGlobals)
	}
	r.check = r.importedFuncs
	r.makeCheck()

	out := make([]byte, 0, len(wasm)+len(wasm)/16+64)
	out = append(out, wasm[:8]...)
	emit := func(id byte, body []byte) {
		out = append(out, id)
		out = leb128.AppendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	// The three sections the rewrite always has, built ahead so that they
	// can be emitted in place or inserted where they belong.
	added := map[byte][]byte{secType: types, secImport: imports}
	if added[secGlobal], err = r.globals(get(secGlobal), period); err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	emitAddedBefore := func(rank int) {
		for _, id := range []byte{secType, secImport, secGlobal} {
			if body, ok := added[id]; ok && sectionOrder[id] < rank {
				emit(id, body)
				delete(added, id)
			}
		}
	}
	for i := range sections {
		s := &sections[i]
		if s.id == secCustom {
			body, keep, err := r.custom(s)
			if err != nil {
				return nil, fmt.Errorf("instrument: %w", err)
			}
			if keep {
				emit(secCustom, body)
			}
			continue
		}
		emitAddedBefore(sectionOrder[s.id])
		if body, ok := added[s.id]; ok {
			emit(s.id, body)
			delete(added, s.id)
			continue
		}
		body, err := r.section(s)
		if err != nil {
			return nil, fmt.Errorf("instrument: %s section: %w", sectionNames[s.id], err)
		}
		emit(s.id, body)
	}
	emitAddedBefore(len(sectionOrder))
	return out, nil
}

// splitSections checks the header and cuts wasm into its sections, checking
// their sizes, order and uniqueness.
func splitSections(wasm []byte) ([]section, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return nil, fmt.Errorf("not a WebAssembly module: want the magic bytes \\0asm")
	}
	if v := wasm[4:8]; !bytes.Equal(v, []byte{1, 0, 0, 0}) {
		return nil, fmt.Errorf("binary format version % x: want 01 00 00 00 (a core module)", v)
	}
	var sections []section
	lastRank := 0
	for p := 8; p < len(wasm); {
		start := p
		id := wasm[p]
		size, q, err := leb128.ReadU32(wasm, p+1)
		if err != nil {
			return nil, fmt.Errorf("section at offset 0x%x: size: %w", start, err)
		}
		if int(id) >= len(sectionNames) {
			return nil, fmt.Errorf("section at offset 0x%x: unknown section id %d", start, id)
		}
		if uint64(size) > uint64(len(wasm)-q) {
			return nil, fmt.Errorf("%s section at offset 0x%x: size %d: only %d bytes left", sectionNames[id], start, size, len(wasm)-q)
		}
		s := section{id: id, body: wasm[q : q+int(size)], off: q}
		p = q + int(size)
		if id == secCustom {
			n, q, err := leb128.ReadU32(s.body, 0)
			if err == nil && uint64(n) > uint64(len(s.body)-q) {
				err = leb128.ErrTruncated
			}
			if err != nil {
				return nil, fmt.Errorf("custom section at offset 0x%x: name: %w", start, err)
			}
			s.name = string(s.body[q : q+int(n)])
		} else {
			rank := sectionOrder[id]
			if rank <= lastRank {
				return nil, fmt.Errorf("%s section at offset 0x%x: out of order or repeated", sectionNames[id], start)
			}
			lastRank = rank
		}
		sections = append(sections, s)
	}
	return sections, nil
}

// rewriter holds what the rewrite of one module needs to know about it.
type rewriter struct {
	importedFuncs   uint32 // functions imported by the input
	definedFuncs    uint32 // functions declared by the function section
	importedGlobals uint32 // globals imported by the input
	checkType       uint32 // type index of () -> i32
	check           uint32 // function index of the check import
	fuel            uint32 // global index of the fuel
	checkCode       []byte // the instructions inserted after loops and at entries
	everyLoop       bool   // check every loop header, dispatch loops too (Options.EveryLoop)

	ctl    controls // instrs's stack of open frames, reused by every body
	labels []uint32 // instrs's scratch for branch labels
}

// fn renumbers a function index of the input. The largest index stays
// as it is: out of range before, out of range after, where wrapping to 0
// would make it valid.
func (r *rewriter) fn(idx uint32) uint32 {
	if idx >= r.importedFuncs && idx != ^uint32(0) {
		return idx + 1
	}
	return idx
}

// makeCheck builds the fuel check sequence.
func (r *rewriter) makeCheck() {
	c := make([]byte, 0, 32)
	c = leb128.AppendU32(append(c, opGlobalGet), r.fuel)
	c = append(c, opI32Const, 1, opI32Sub)
	c = leb128.AppendU32(append(c, opGlobalSet), r.fuel)
	c = leb128.AppendU32(append(c, opGlobalGet), r.fuel)
	c = append(c, opI32Const, 1, opI32LtS)
	c = append(c, opIf, blockEmpty)
	c = leb128.AppendU32(append(c, opCall), r.check)
	c = leb128.AppendU32(append(c, opGlobalSet), r.fuel)
	r.checkCode = append(c, opEnd)
}

// scanTypes finds or appends the check type and returns the new type
// section.
func (r *rewriter) scanTypes(s *section) ([]byte, error) {
	if s == nil {
		r.checkType = 0
		return append([]byte{1}, funcType...), nil
	}
	b := s.body
	n, p, err := leb128.ReadU32(b, 0)
	if err != nil {
		return nil, fmt.Errorf("type section: count: %w", err)
	}
	entries := p
	found := false
	for i := uint32(0); i < n; i++ {
		start := p
		if p >= len(b) {
			return nil, fmt.Errorf("type section: type %d: %w", i, leb128.ErrTruncated)
		}
		if b[p] != 0x60 {
			return nil, fmt.Errorf("type section: type %d: offset 0x%x: form 0x%02x: only function types (0x60) are supported", i, s.off+p, b[p])
		}
		p++
		for list := 0; list < 2; list++ { // parameters, results
			var m uint32
			if m, p, err = leb128.ReadU32(b, p); err != nil {
				return nil, fmt.Errorf("type section: type %d: %w", i, err)
			}
			for j := uint32(0); j < m; j++ {
				if p, err = skipValType(b, p); err != nil {
					return nil, fmt.Errorf("type section: type %d: offset 0x%x: %w", i, s.off+p, err)
				}
			}
		}
		if !found && bytes.Equal(b[start:p], funcType) {
			r.checkType, found = i, true
		}
	}
	if p != len(b) {
		return nil, fmt.Errorf("type section: %d bytes after the last type", len(b)-p)
	}
	if found {
		return b, nil
	}
	if n == ^uint32(0) {
		return nil, fmt.Errorf("type section: %d types: too many", n)
	}
	r.checkType = n
	out := leb128.AppendU32(make([]byte, 0, len(b)+len(funcType)+1), n+1)
	out = append(out, b[entries:]...)
	return append(out, funcType...), nil
}

// scanImports counts the imported functions and globals, refuses an
// existing import from ImportModule and returns the new import section.
func (r *rewriter) scanImports(s *section) ([]byte, error) {
	var b []byte
	var n uint32
	p, entries := 0, 0
	if s != nil {
		var err error
		b = s.body
		if n, p, err = leb128.ReadU32(b, 0); err != nil {
			return nil, fmt.Errorf("import section: count: %w", err)
		}
		entries = p
		for i := uint32(0); i < n; i++ {
			var mod, name string
			var kind byte
			if mod, name, kind, p, err = readImport(b, p); err != nil {
				return nil, fmt.Errorf("import section: import %d: offset 0x%x: %w", i, s.off+p, err)
			}
			if mod == ImportModule {
				return nil, fmt.Errorf("import section: import %d (%q %q): the module already imports from %q: instrumented twice?", i, mod, name, ImportModule)
			}
			switch kind {
			case 0x00:
				r.importedFuncs++
			case 0x03:
				r.importedGlobals++
			}
		}
		if p != len(b) {
			return nil, fmt.Errorf("import section: %d bytes after the last import", len(b)-p)
		}
		if n == ^uint32(0) {
			return nil, fmt.Errorf("import section: %d imports: too many", n)
		}
	}
	out := leb128.AppendU32(make([]byte, 0, len(b)+len(ImportModule)+len(ImportName)+8), n+1)
	out = append(out, b[entries:]...)
	out = appendName(out, ImportModule)
	out = appendName(out, ImportName)
	out = append(out, 0x00)
	return leb128.AppendU32(out, r.checkType), nil
}

// readImport decodes one import entry at b[p:].
func readImport(b []byte, p int) (mod, name string, kind byte, next int, err error) {
	if mod, p, err = readName(b, p); err != nil {
		return "", "", 0, p, fmt.Errorf("module name: %w", err)
	}
	if name, p, err = readName(b, p); err != nil {
		return "", "", 0, p, fmt.Errorf("name: %w", err)
	}
	if p >= len(b) {
		return "", "", 0, p, leb128.ErrTruncated
	}
	kind = b[p]
	p++
	switch kind {
	case 0x00: // function: type index
		_, p, err = leb128.ReadU32(b, p)
	case 0x01: // table: reference type, limits
		if p, err = skipValType(b, p); err == nil {
			p, err = skipLimits(b, p)
		}
	case 0x02: // memory: limits
		p, err = skipLimits(b, p)
	case 0x03: // global: value type, mutability
		if p, err = skipValType(b, p); err == nil {
			p++
		}
	case 0x04: // tag: attribute, type index
		_, p, err = leb128.ReadU32(b, p+1)
	default:
		return "", "", 0, p, fmt.Errorf("%q %q: unknown import kind 0x%02x", mod, name, kind)
	}
	if err == nil && p > len(b) {
		err = leb128.ErrTruncated
	}
	if err != nil {
		return "", "", 0, p, fmt.Errorf("%q %q: %w", mod, name, err)
	}
	return mod, name, kind, p, nil
}

// skipLimits skips table or memory limits: flags (bit 0: a maximum
// follows, bit 1: shared, bit 2: 64-bit), minimum, maximum.
func skipLimits(b []byte, p int) (int, error) {
	if p >= len(b) {
		return p, leb128.ErrTruncated
	}
	flags := b[p]
	if flags > 0x07 {
		return p, fmt.Errorf("limits: unknown flags 0x%02x", flags)
	}
	_, p, err := leb128.ReadU64(b, p+1)
	if err == nil && flags&1 != 0 {
		_, p, err = leb128.ReadU64(b, p)
	}
	return p, err
}

// readName decodes a name: a u32 length and that many bytes.
func readName(b []byte, p int) (string, int, error) {
	n, p, err := leb128.ReadU32(b, p)
	if err != nil {
		return "", p, err
	}
	if uint64(n) > uint64(len(b)-p) {
		return "", p, leb128.ErrTruncated
	}
	return string(b[p : p+int(n)]), p + int(n), nil
}

// appendName appends a name: its length and its bytes.
func appendName(dst []byte, s string) []byte {
	return append(leb128.AppendU32(dst, uint32(len(s))), s...)
}

// custom returns the body to emit for a custom section, and false when the
// section is dropped.
func (r *rewriter) custom(s *section) ([]byte, bool, error) {
	for _, prefix := range droppedCustom {
		if strings.HasPrefix(s.name, prefix) {
			return nil, false, nil
		}
	}
	if s.name != "name" {
		return s.body, true, nil
	}
	body, err := r.names(s)
	if err != nil {
		return nil, false, fmt.Errorf("name section: %w", err)
	}
	return body, true, nil
}
