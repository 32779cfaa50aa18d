package interrupt

import (
	"fmt"
	"github.com/wasmendpoints/endpoints/internal/leb128"
	"slices"
)

// This file rewrites the sections that refer to functions or globals.
// Entries that need no change are copied byte for byte, so integers keep
// the width the producer gave them.

// section returns the new body of a known non-custom section.
func (r *rewriter) section(s *section) ([]byte, error) {
	switch s.id {
	case secTable:
		return r.tables(s)
	case secExport:
		return r.exports(s)
	case secStart:
		return r.start(s)
	case secElement:
		return r.elements(s)
	case secCode:
		return r.code(s)
	case secData:
		return r.data(s)
	}
	return s.body, nil // function, memory, tag and data count: no references to rewrite
}

// vector reads the count of a vector section and returns it with the
// offset of its first entry.
func vector(s *section) (uint32, int, error) {
	n, p, err := leb128.ReadU32(s.body, 0)
	if err != nil {
		return 0, p, fmt.Errorf("count: %w", err)
	}
	return n, p, nil
}

// trailing reports bytes left after the last entry of a section.
func trailing(s *section, p int, what string) error {
	if p != len(s.body) {
		return fmt.Errorf("%d bytes after the last %s", len(s.body)-p, what)
	}
	return nil
}

// globals returns the global section with its constant expressions
// rewritten and the fuel global appended:
//
//	(global $fuel (mut i32) (i32.const period))
func (r *rewriter) globals(s *section, period int32) ([]byte, error) {
	fuel := []byte{0x7f, 0x01, opI32Const}
	fuel = append(leb128.AppendS32(fuel, period), opEnd)
	if s == nil {
		return append([]byte{1}, fuel...), nil
	}
	b := s.body
	n, p, err := vector(s)
	if err != nil {
		return nil, fmt.Errorf("global section: %w", err)
	}
	out := leb128.AppendU32(make([]byte, 0, len(b)+len(fuel)+5), n+1)
	for i := uint32(0); i < n; i++ {
		start := p
		if p, err = skipValType(b, p); err == nil {
			p++ // mutability
		}
		if err == nil && p > len(b) {
			err = leb128.ErrTruncated
		}
		if err != nil {
			return nil, fmt.Errorf("global section: global %d: offset 0x%x: type: %w", r.importedGlobals+i, s.off+start, err)
		}
		out = append(out, b[start:p]...)
		if out, p, err = r.expr(out, b, p, s.off); err != nil {
			return nil, fmt.Errorf("global section: global %d: %w", r.importedGlobals+i, err)
		}
	}
	if err := trailing(s, p, "global"); err != nil {
		return nil, fmt.Errorf("global section: %w", err)
	}
	return append(out, fuel...), nil
}

// tables rewrites the initialiser expressions of tables declared as
// `0x40 0x00 tabletype expr` (typed function references).
func (r *rewriter) tables(s *section) ([]byte, error) {
	b := s.body
	n, p, err := vector(s)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+8)
	out = append(out, b[:p]...)
	for i := uint32(0); i < n; i++ {
		start := p
		withInit := p < len(b) && b[p] == 0x40
		if withInit {
			if p+1 >= len(b) || b[p+1] != 0x00 {
				return nil, fmt.Errorf("table %d: offset 0x%x: want 0x40 0x00 before a table with an initialiser", i, s.off+p)
			}
			p += 2
		}
		if p, err = skipValType(b, p); err == nil {
			p, err = skipLimits(b, p)
		}
		if err != nil {
			return nil, fmt.Errorf("table %d: offset 0x%x: %w", i, s.off+start, err)
		}
		out = append(out, b[start:p]...)
		if withInit {
			if out, p, err = r.expr(out, b, p, s.off); err != nil {
				return nil, fmt.Errorf("table %d: %w", i, err)
			}
		}
	}
	return out, trailing(s, p, "table")
}

// exports renumbers exported functions and refuses an export of the fuel's
// global index.
func (r *rewriter) exports(s *section) ([]byte, error) {
	b := s.body
	n, p, err := vector(s)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+8)
	out = append(out, b[:p]...)
	for i := uint32(0); i < n; i++ {
		start := p
		var name string
		if name, p, err = readName(b, p); err != nil {
			return nil, fmt.Errorf("export %d: offset 0x%x: name: %w", i, s.off+start, err)
		}
		if p >= len(b) {
			return nil, fmt.Errorf("export %d (%q): %w", i, name, leb128.ErrTruncated)
		}
		kind, idxAt := b[p], p+1
		var idx uint32
		if idx, p, err = leb128.ReadU32(b, idxAt); err != nil {
			return nil, fmt.Errorf("export %d (%q): index: %w", i, name, err)
		}
		switch {
		case kind == 0x00 && idx >= r.importedFuncs:
			out = append(out, b[start:idxAt]...)
			out = leb128.AppendU32(out, r.fn(idx))
			continue
		case kind == 0x03 && idx == r.fuel:
			return nil, fmt.Errorf("export %d (%q): global %d does not exist (it is the index the fuel global takes)", i, name, idx)
		}
		out = append(out, b[start:p]...)
	}
	return out, trailing(s, p, "export")
}

// start renumbers the start function.
func (r *rewriter) start(s *section) ([]byte, error) {
	idx, p, err := leb128.ReadU32(s.body, 0)
	if err != nil {
		return nil, fmt.Errorf("function index: %w", err)
	}
	if err := trailing(s, p, "function index"); err != nil {
		return nil, err
	}
	return leb128.AppendU32(nil, r.fn(idx)), nil
}

// elements rewrites the element segments, whichever of the eight encodings
// they use. The flags say: bit 0, passive or declarative (else active); bit
// 1, an explicit table index (active) or declarative (bit 0 set); bit 2,
// expressions (else function indices). Kinds 1, 2, 3 carry an element kind
// byte, 5, 6, 7 a reference type.
// https://webassembly.github.io/spec/core/binary/modules.html#element-section
func (r *rewriter) elements(s *section) ([]byte, error) {
	b := s.body
	n, p, err := vector(s)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+len(b)/8+8)
	out = append(out, b[:p]...)
	for i := uint32(0); i < n; i++ {
		if out, p, err = r.element(out, s, p); err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
	}
	return out, trailing(s, p, "segment")
}

// element rewrites the element segment at s.body[p:].
func (r *rewriter) element(out []byte, s *section, p int) ([]byte, int, error) {
	b := s.body
	start := p
	flags, p, err := leb128.ReadU32(b, p)
	if err != nil {
		return nil, p, fmt.Errorf("flags: %w", err)
	}
	if flags > 7 {
		return nil, p, fmt.Errorf("offset 0x%x: unknown flags %d", s.off+start, flags)
	}
	active := flags&1 == 0
	if active && flags&2 != 0 {
		if _, p, err = leb128.ReadU32(b, p); err != nil {
			return nil, p, fmt.Errorf("table index: %w", err)
		}
	}
	out = append(out, b[start:p]...)
	if active {
		if out, p, err = r.expr(out, b, p, s.off); err != nil {
			return nil, p, fmt.Errorf("offset expression: %w", err)
		}
	}
	start = p
	if flags&3 != 0 { // element kind or reference type
		if flags&4 == 0 {
			p++ // element kind 0x00, funcref
		} else {
			p, err = skipValType(b, p)
		}
		if err == nil && p > len(b) {
			err = leb128.ErrTruncated
		}
		if err != nil {
			return nil, p, fmt.Errorf("offset 0x%x: element type: %w", s.off+start, err)
		}
	}
	var m uint32
	out = append(out, b[start:p]...)
	start = p
	if m, p, err = leb128.ReadU32(b, p); err != nil {
		return nil, p, fmt.Errorf("element count: %w", err)
	}
	out = append(out, b[start:p]...)
	for j := uint32(0); j < m; j++ {
		if flags&4 != 0 {
			if out, p, err = r.expr(out, b, p, s.off); err != nil {
				return nil, p, fmt.Errorf("element %d: %w", j, err)
			}
			continue
		}
		var idx uint32
		if idx, p, err = leb128.ReadU32(b, p); err != nil {
			return nil, p, fmt.Errorf("element %d: function index: %w", j, err)
		}
		out = leb128.AppendU32(out, r.fn(idx))
	}
	return out, p, nil
}

// data rewrites the offset expressions of active data segments (only to
// refuse a use of the fuel global).
func (r *rewriter) data(s *section) ([]byte, error) {
	b := s.body
	n, p, err := vector(s)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:p]...)
	for i := uint32(0); i < n; i++ {
		start := p
		var flags uint32
		if flags, p, err = leb128.ReadU32(b, p); err != nil {
			return nil, fmt.Errorf("segment %d: flags: %w", i, err)
		}
		switch flags {
		case 0, 1:
		case 2:
			if _, p, err = leb128.ReadU32(b, p); err != nil {
				return nil, fmt.Errorf("segment %d: memory index: %w", i, err)
			}
		default:
			return nil, fmt.Errorf("segment %d: offset 0x%x: unknown flags %d", i, s.off+start, flags)
		}
		out = append(out, b[start:p]...)
		if flags != 1 {
			if out, p, err = r.expr(out, b, p, s.off); err != nil {
				return nil, fmt.Errorf("segment %d: offset expression: %w", i, err)
			}
		}
		start = p
		var size uint32
		if size, p, err = leb128.ReadU32(b, p); err == nil && uint64(size) > uint64(len(b)-p) {
			err = leb128.ErrTruncated
		}
		if err != nil {
			return nil, fmt.Errorf("segment %d: offset 0x%x: bytes: %w", i, s.off+start, err)
		}
		p += int(size)
		out = append(out, b[start:p]...)
	}
	return out, trailing(s, p, "segment")
}

// code rewrites every function body.
func (r *rewriter) code(s *section) ([]byte, error) {
	b := s.body
	n, p, err := vector(s)
	if err != nil {
		return nil, err
	}
	if n != r.definedFuncs {
		return nil, fmt.Errorf("%d function bodies, but the function section declares %d functions", n, r.definedFuncs)
	}
	out := make([]byte, 0, len(b)+len(b)/16+8)
	out = append(out, b[:p]...)
	var scratch []byte
	for i := uint32(0); i < n; i++ {
		fn := r.importedFuncs + i // index in the input
		var size uint32
		start := p
		if size, p, err = leb128.ReadU32(b, p); err == nil && uint64(size) > uint64(len(b)-p) {
			err = leb128.ErrTruncated
		}
		if err != nil {
			return nil, fmt.Errorf("function %d: offset 0x%x: body size: %w", fn, s.off+start, err)
		}
		if scratch, err = r.body(scratch[:0], b[p:p+int(size)], s.off+p); err != nil {
			return nil, fmt.Errorf("function %d: %w", fn, err)
		}
		out = leb128.AppendU32(out, uint32(len(scratch)))
		out = append(out, scratch...)
		p += int(size)
	}
	return out, trailing(s, p, "function body")
}

// body rewrites one function body, b, found at offset base of the module.
func (r *rewriter) body(dst, b []byte, base int) ([]byte, error) {
	n, p, err := leb128.ReadU32(b, 0)
	if err != nil {
		return nil, fmt.Errorf("offset 0x%x: locals: %w", base, err)
	}
	for i := uint32(0); i < n; i++ {
		start := p
		if _, p, err = leb128.ReadU32(b, p); err == nil {
			p, err = skipValType(b, p)
		}
		if err != nil {
			return nil, fmt.Errorf("offset 0x%x: locals: %w", base+start, err)
		}
	}
	dst = append(dst, b[:p]...)
	entry := len(dst)
	var w walk
	if dst, _, w, err = r.instrs(dst, b, p, base, true); err != nil {
		return nil, err
	}
	if w.calls && !w.entryLoop {
		dst = slices.Insert(dst, entry, r.checkCode...)
	}
	return dst, nil
}

// expr rewrites the constant expression at b[p:], up to its end opcode,
// appending it to dst.
func (r *rewriter) expr(dst, b []byte, p, base int) ([]byte, int, error) {
	dst, p, _, err := r.instrs(dst, b, p, base, false)
	return dst, p, err
}

// walk is what instrs learned about a function body.
type walk struct {
	calls     bool // it has a call, call_indirect, return_call*, call_ref
	entryLoop bool // its first instruction is a loop, maybe inside blocks
}

// instrs copies the instructions at b[p:] to dst, renumbering function
// indices and refusing the fuel's global index. In a function body (code
// true) it walks to the end of b and inserts the fuel check after every
// loop opcode, or, in a dispatch loop (dispatch.go), before the edges back
// to it that may go backwards; in a constant expression it stops after
// the first end.
func (r *rewriter) instrs(dst, b []byte, p, base int, code bool) ([]byte, int, walk, error) {
	var w walk
	copied := p
	leading := true
	// In a function body: the open frames, the body's own first. The
	// stack and the labels' scratch are the rewriter's, reused by every
	// body.
	var ctl controls
	if code {
		ctl = append(r.ctl[:0], frame{})
		defer func() { r.ctl = ctl[:0] }()
	}
	labels := r.labels[:0] // a br_table's or try_table's labels
	defer func() { r.labels = labels[:0] }()
	var lead *dispatch // the dispatch loop whose leading blocks come next
	var leadLeft uint32
	// The jump shape `i32.const k; local.set x; br`: pat is 1 after the
	// i32.const, 2 after both, 0 otherwise.
	var pat int
	var patK int32
	var patLocal uint32
	check := func(at int) { // the fuel check before the instruction at b[at:]
		dst = append(dst, b[copied:at]...)
		dst = append(dst, r.checkCode...)
		copied = at
	}
	for {
		if p >= len(b) {
			if code {
				break
			}
			return nil, p, w, fmt.Errorf("offset 0x%x: %w: want the end opcode of the expression", base+p, leb128.ErrTruncated)
		}
		// Fast paths for the most frequent instructions, which need no
		// rewrite: no immediate, or a local index.
		if op := b[p]; single[op] == immNone && op != opEnd {
			leading = false
			pat = 0
			p++
			continue
		} else if op >= 0x20 && op <= 0x22 { // local.get, local.set, local.tee
			q := p + 1
			for q < len(b) && q < p+5 && b[q] >= 0x80 {
				q++
			}
			if q < len(b) && b[q] < 0x80 && (q < p+5 || b[q] <= 0x0f) {
				leading = false
				if pat == 1 && op == opLocalSet {
					patLocal, _, _ = leb128.ReadU32(b, p+1)
					pat = 2
				} else {
					pat = 0
				}
				p = q + 1
				continue
			}
		}
		in, err := decodeInstr(b, p)
		if err != nil {
			return nil, p, w, fmt.Errorf("offset 0x%x: %w", base+p, err)
		}
		prevPat := pat
		pat = 0
		switch in.op {
		case opCall, opReturnCall, opRefFunc:
			w.calls = w.calls || in.op != opRefFunc
			if in.idx >= r.importedFuncs {
				dst = append(dst, b[copied:in.idxAt]...)
				dst = leb128.AppendU32(dst, r.fn(in.idx))
				copied = in.end
			}
		case opCallIndirect, opReturnCallIndirect, opCallRef, opReturnCallRef:
			w.calls = true
		case opLoop:
			if !code {
				break
			}
			var d *dispatch
			if !r.everyLoop {
				d = dispatchAt(b, in.end)
			}
			ctl = append(ctl, frame{loop: d})
			if d != nil {
				lead, leadLeft = d, d.blocks
				break
			}
			w.entryLoop = w.entryLoop || leading
			dst = append(dst, b[copied:in.end]...)
			dst = append(dst, r.checkCode...)
			copied = in.end
		case opBlock:
			if !code {
				break
			}
			f := frame{}
			if leadLeft > 0 {
				f.lead = lead
				leadLeft--
			}
			ctl = append(ctl, f)
		case opIf, opTry:
			if code {
				ctl = append(ctl, frame{})
			}
		case opTryTable:
			if !code {
				break
			}
			if labels, err = catchLabels(labels[:0], b, p); err != nil {
				return nil, p, w, fmt.Errorf("offset 0x%x: try_table: %w", base+p, err)
			}
			if ctl.anyDispatch(labels) {
				check(p) // a catch can branch back once per entry
			}
			ctl = append(ctl, frame{})
		case opEnd, opDelegate:
			if code && len(ctl) > 0 {
				if d := ctl[len(ctl)-1].lead; d != nil {
					d.seg++
				}
				ctl = ctl[:len(ctl)-1]
			}
		case opBr:
			if d := ctl.dispatchAt(in.idx); d != nil && !(prevPat == 2 && patLocal == d.local && d.free(patK)) {
				check(p)
			}
		case opBrIf, opBrOnNull, opBrOnNonNull:
			if ctl.dispatchAt(in.idx) != nil {
				check(p)
			}
		case opBrTable:
			if !code {
				break
			}
			if labels, _, err = brTableLabels(labels[:0], b, p); err != nil {
				return nil, p, w, fmt.Errorf("offset 0x%x: br_table: %w", base+p, err)
			}
			if ctl.anyDispatch(labels) {
				check(p)
			}
		case opI32Const:
			if k, _, err := leb128.ReadSigned(b, p+1, 32); err == nil {
				pat, patK = 1, int32(k)
			}
		case opGlobalGet, opGlobalSet:
			if in.idx == r.fuel {
				return nil, p, w, fmt.Errorf("offset 0x%x: global %d does not exist (it is the index the fuel global takes)", base+p, in.idx)
			}
		}
		leading = leading && in.op == opBlock
		p = in.end
		if !code && in.op == opEnd {
			break
		}
	}
	return append(dst, b[copied:p]...), p, w, nil
}
