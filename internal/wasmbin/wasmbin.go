// Package wasmbin reads and edits the few parts of a WebAssembly binary
// the host and the CLI need without compiling it: the sections, custom
// sections (the contract an SDK embeds as "endpoints.contract"), and the
// value of an export as trivial as endpoints_abi_version's
// (i32.const N). It follows the binary format of WebAssembly 1.0
// (https://webassembly.github.io/spec/core/binary/modules.html).
package wasmbin

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/internal/leb128"
)

// Section IDs of the binary format.
const (
	SectionCustom   = 0
	SectionImport   = 2
	SectionMemory   = 5
	SectionExport   = 7
	SectionCode     = 10
	sectionFunction = 3
)

var magic = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// Section is one section of a module.
type Section struct {
	// ID is the section's id; Name the name of a custom section.
	ID   byte
	Name string
	// Payload is the section's content (after the name, for a custom
	// section).
	Payload []byte
	// Start and End delimit the whole section in the module, id included.
	Start, End int
}

// ErrMalformed is wrapped by the errors of a binary that does not parse.
var ErrMalformed = errors.New("not a WebAssembly 1.0 binary")

// Sections lists the sections of wasm in order.
func Sections(wasm []byte) ([]Section, error) {
	if !bytes.HasPrefix(wasm, magic) {
		return nil, fmt.Errorf("%w: it does not start with \\0asm and version 1", ErrMalformed)
	}
	var out []Section
	for p := len(magic); p < len(wasm); {
		start := p
		id := wasm[p]
		size, n, err := readU32(wasm, p+1)
		if err != nil {
			return nil, err
		}
		p = p + 1 + n
		if uint64(p)+uint64(size) > uint64(len(wasm)) {
			return nil, fmt.Errorf("%w: section %d at byte %d runs past the end", ErrMalformed, id, start)
		}
		s := Section{ID: id, Payload: wasm[p : p+int(size)], Start: start, End: p + int(size)}
		if id == SectionCustom {
			nameLen, m, err := readU32(s.Payload, 0)
			if err != nil || uint64(m)+uint64(nameLen) > uint64(len(s.Payload)) {
				return nil, fmt.Errorf("%w: the custom section at byte %d has a bad name", ErrMalformed, start)
			}
			s.Name = string(s.Payload[m : m+int(nameLen)])
			if !utf8.ValidString(s.Name) {
				return nil, fmt.Errorf("%w: the custom section at byte %d has a name that is not UTF-8", ErrMalformed, start)
			}
			s.Payload = s.Payload[m+int(nameLen):]
		}
		out = append(out, s)
		p = s.End
	}
	return out, nil
}

// Custom returns the payload of the custom section name, and whether
// there is one. More than one of that name is an error.
func Custom(wasm []byte, name string) ([]byte, bool, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return nil, false, err
	}
	var found []byte
	ok := false
	for _, s := range sections {
		if s.ID == SectionCustom && s.Name == name {
			if ok {
				return nil, false, fmt.Errorf("%w: two custom sections named %q", ErrMalformed, name)
			}
			found, ok = s.Payload, true
		}
	}
	return found, ok, nil
}

// WithCustom returns wasm with its custom sections named name replaced by
// one holding data, at the end of the module (custom sections may stand
// anywhere; the end keeps every other offset as it was).
func WithCustom(wasm []byte, name string, data []byte) ([]byte, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(wasm)+len(name)+len(data)+16)
	out = append(out, magic...)
	for _, s := range sections {
		if s.ID == SectionCustom && s.Name == name {
			continue
		}
		out = append(out, wasm[s.Start:s.End]...)
	}
	payload := leb128.AppendU32(nil, uint32(len(name)))
	payload = append(payload, name...)
	payload = append(payload, data...)
	out = append(out, SectionCustom)
	out = leb128.AppendU32(out, uint32(len(payload)))
	return append(out, payload...), nil
}

// WithoutCustom returns wasm without its custom sections named by names;
// wasm itself when it has none of them.
func WithoutCustom(wasm []byte, names ...string) ([]byte, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return nil, err
	}
	drop := func(s Section) bool { return s.ID == SectionCustom && slices.Contains(names, s.Name) }
	if !slices.ContainsFunc(sections, drop) {
		return wasm, nil
	}
	out := append(make([]byte, 0, len(wasm)), magic...)
	for _, s := range sections {
		if !drop(s) {
			out = append(out, wasm[s.Start:s.End]...)
		}
	}
	return out, nil
}

// ConstExport returns N when the exported function export's body is
// exactly "i32.const N" (no locals), as endpoints_abi_version's is in
// every SDK; ok is false for any other body or when there is no such
// export.
func ConstExport(wasm []byte, export string) (n int32, ok bool, err error) {
	sections, err := Sections(wasm)
	if err != nil {
		return 0, false, err
	}
	var imported, index uint32
	found := false
	var code []byte
	for _, s := range sections {
		switch s.ID {
		case SectionImport:
			if imported, _, err = countImports(s.Payload); err != nil {
				return 0, false, err
			}
		case SectionExport:
			if index, found, err = exportedFunction(s.Payload, export); err != nil {
				return 0, false, err
			}
		case SectionCode:
			code = s.Payload
		}
	}
	if !found || index < imported || code == nil {
		return 0, false, nil
	}
	body, err := functionBody(code, index-imported)
	if err != nil {
		return 0, false, err
	}
	// locals: a vector that must be empty; then i32.const N; end.
	if len(body) < 3 || body[0] != 0 || body[1] != 0x41 {
		return 0, false, nil
	}
	v, m, err := readS32(body, 2)
	if err != nil || 2+m != len(body)-1 || body[len(body)-1] != 0x0b {
		return 0, false, nil
	}
	return v, true, nil
}

// countImports counts the functions and the memories an import
// section's payload imports.
func countImports(b []byte) (funcs, memories uint32, err error) {
	err = eachImport(b, func(_, _ string, kind byte) bool {
		switch kind {
		case importFunction:
			funcs++
		case importMemory:
			memories++
		}
		return true
	})
	return funcs, memories, err
}

// Kinds of import of the binary format.
const (
	importFunction = 0
	importMemory   = 2
)

// eachImport calls f with the module, the name and the kind of each
// import of an import section's payload, in order, until f returns false.
func eachImport(b []byte, f func(module, name string, kind byte) bool) error {
	count, p, err := readU32(b, 0)
	if err != nil {
		return err
	}
	for range count {
		var names [2]string
		for i := range names { // module and name
			n, m, err := readU32(b, p)
			if err != nil || uint64(p+m)+uint64(n) > uint64(len(b)) {
				return fmt.Errorf("%w: a bad import", ErrMalformed)
			}
			names[i] = string(b[p+m : p+m+int(n)])
			p += m + int(n)
		}
		if p >= len(b) {
			return fmt.Errorf("%w: a bad import", ErrMalformed)
		}
		kind := b[p]
		p++
		switch kind {
		case importFunction: // a type index
			_, m, err := readU32(b, p)
			if err != nil {
				return err
			}
			p += m
		case 1: // table: reftype, limits
			p++
			if p, err = skipLimits(b, p); err != nil {
				return err
			}
		case importMemory: // limits
			if p, err = skipLimits(b, p); err != nil {
				return err
			}
		case 3: // global: valtype, mutability
			p += 2
		case 4: // tag (exception handling): attribute, type index
			_, m, err := readU32(b, p+1)
			if err != nil {
				return err
			}
			p += 1 + m
		default:
			return fmt.Errorf("%w: import kind %d", ErrMalformed, kind)
		}
		if !f(names[0], names[1], kind) {
			return nil
		}
	}
	return nil
}

// ImportsFunction reports whether the module imports a function of the
// module named module whose name has the prefix prefix, reading only its
// import section:
//
//	db, err := wasmbin.ImportsFunction(wasm, "endpoints", "db_")
func ImportsFunction(wasm []byte, module, prefix string) (bool, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return false, err
	}
	found := false
	for _, s := range sections {
		if s.ID == SectionImport {
			err := eachImport(s.Payload, func(m, name string, kind byte) bool {
				found = kind == importFunction && m == module && strings.HasPrefix(name, prefix)
				return !found
			})
			return found, err
		}
	}
	return false, nil
}

// MemoryPages returns the initial size, in 64 KiB pages, of the first
// memory the module defines (not imports), and false when it defines none.
func MemoryPages(wasm []byte) (uint32, bool, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return 0, false, err
	}
	for _, s := range sections {
		if s.ID != SectionMemory {
			continue
		}
		return firstMemoryPages(s.Payload)
	}
	return 0, false, nil
}

// firstMemoryPages returns the initial size, in pages, of the first
// memory a memory section's payload defines, and false when it defines
// none.
func firstMemoryPages(payload []byte) (uint32, bool, error) {
	count, p, err := readU32(payload, 0)
	if err != nil || count == 0 {
		return 0, false, err
	}
	if p >= len(payload) {
		return 0, false, fmt.Errorf("%w: bad memory limits", ErrMalformed)
	}
	min, _, err := readU32(payload, p+1) // after the limits' flag byte
	if err != nil {
		return 0, false, err
	}
	return min, true, nil
}

func skipLimits(b []byte, p int) (int, error) {
	if p >= len(b) {
		return 0, fmt.Errorf("%w: bad limits", ErrMalformed)
	}
	flag := b[p]
	p++
	_, m, err := readU32(b, p)
	if err != nil {
		return 0, err
	}
	p += m
	if flag&1 == 1 {
		_, m, err = readU32(b, p)
		if err != nil {
			return 0, err
		}
		p += m
	}
	return p, nil
}

func exportedFunction(b []byte, name string) (uint32, bool, error) {
	count, p, err := readU32(b, 0)
	if err != nil {
		return 0, false, err
	}
	for range count {
		n, m, err := readU32(b, p)
		if err != nil || uint64(p+m)+uint64(n)+1 > uint64(len(b)) {
			return 0, false, fmt.Errorf("%w: a bad export", ErrMalformed)
		}
		export := string(b[p+m : p+m+int(n)])
		p += m + int(n)
		kind := b[p]
		idx, m2, err := readU32(b, p+1)
		if err != nil {
			return 0, false, err
		}
		p += 1 + m2
		if kind == 0 && export == name {
			return idx, true, nil
		}
	}
	return 0, false, nil
}

func functionBody(code []byte, i uint32) ([]byte, error) {
	count, p, err := readU32(code, 0)
	if err != nil {
		return nil, err
	}
	if i >= count {
		return nil, fmt.Errorf("%w: function %d has no body", ErrMalformed, i)
	}
	for j := uint32(0); ; j++ {
		size, m, err := readU32(code, p)
		if err != nil || uint64(p+m)+uint64(size) > uint64(len(code)) {
			return nil, fmt.Errorf("%w: a bad function body", ErrMalformed)
		}
		p += m
		if j == i {
			return code[p : p+int(size)], nil
		}
		p += int(size)
	}
}

// readU32 reads an unsigned LEB128 number at p and returns it and how many
// bytes it took.
func readU32(b []byte, p int) (uint32, int, error) {
	v, next, err := leb128.ReadU32(b, p)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return v, next - p, nil
}

// readS32 reads a signed 32-bit LEB128 number at p and returns it and how
// many bytes it took.
func readS32(b []byte, p int) (int32, int, error) {
	v, next, err := leb128.ReadSigned(b, p, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return int32(v), next - p, nil
}

// ExportsFunction reports whether the module exports a function named
// export, reading only its export section.
func ExportsFunction(wasm []byte, export string) (bool, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return false, err
	}
	for _, s := range sections {
		if s.ID == SectionExport {
			_, found, err := exportedFunction(s.Payload, export)
			return found, err
		}
	}
	return false, nil
}
