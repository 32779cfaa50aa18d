package interrupt

import (
	"fmt"

	"github.com/wasmendpoints/endpoints/internal/leb128"
)

// Subsections of the name section that hold function indices.
// https://webassembly.github.io/spec/core/appendix/custom.html#name-section
// and the extended name section proposal for labels.
const (
	nameFunctions = 1 // namemap: function index -> name
	nameLocals    = 2 // indirect namemap: function index -> local index -> name
	nameLabels    = 3 // indirect namemap: function index -> label index -> name
)

// names rewrites the name section: function names, local names and label
// names move with their functions. Other subsections are copied.
func (r *rewriter) names(s *section) ([]byte, error) {
	b := s.body
	_, p, _ := readName(b, 0) // checked by splitSections
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:p]...)
	for p < len(b) {
		start := p
		id := b[p]
		size, q, err := leb128.ReadU32(b, p+1)
		if err == nil && uint64(size) > uint64(len(b)-q) {
			err = leb128.ErrTruncated
		}
		if err != nil {
			return nil, fmt.Errorf("subsection %d at offset 0x%x: size: %w", id, s.off+start, err)
		}
		sub := b[q : q+int(size)]
		p = q + int(size)
		switch id {
		case nameFunctions:
			sub, err = r.nameMap(sub, s.off+q, true)
		case nameLocals, nameLabels:
			sub, err = r.nameMap(sub, s.off+q, false)
		default:
			out = append(out, b[start:p]...)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("subsection %d: %w", id, err)
		}
		out = append(out, id)
		out = leb128.AppendU32(out, uint32(len(sub)))
		out = append(out, sub...)
	}
	return out, nil
}

// nameMap renumbers the function indices of a namemap (direct) or of an
// indirect namemap, whose values are namemaps copied as they are.
func (r *rewriter) nameMap(b []byte, base int, direct bool) ([]byte, error) {
	n, p, err := leb128.ReadU32(b, 0)
	if err != nil {
		return nil, fmt.Errorf("count: %w", err)
	}
	out := make([]byte, 0, len(b)+8)
	out = append(out, b[:p]...)
	for i := uint32(0); i < n; i++ {
		start := p
		var idx uint32
		if idx, p, err = leb128.ReadU32(b, p); err != nil {
			return nil, fmt.Errorf("entry %d: offset 0x%x: function index: %w", i, base+start, err)
		}
		out = leb128.AppendU32(out, r.fn(idx))
		start = p
		if direct {
			_, p, err = readName(b, p)
		} else {
			p, err = skipNameMap(b, p)
		}
		if err != nil {
			return nil, fmt.Errorf("entry %d (function %d): offset 0x%x: %w", i, idx, base+start, err)
		}
		out = append(out, b[start:p]...)
	}
	if p != len(b) {
		return nil, fmt.Errorf("%d bytes after the last entry", len(b)-p)
	}
	return out, nil
}

// skipNameMap skips a namemap: a count of index and name pairs.
func skipNameMap(b []byte, p int) (int, error) {
	n, p, err := leb128.ReadU32(b, p)
	for i := uint32(0); i < n && err == nil; i++ {
		if _, p, err = leb128.ReadU32(b, p); err == nil {
			_, p, err = readName(b, p)
		}
	}
	return p, err
}
