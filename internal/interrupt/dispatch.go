package interrupt

import (
	"slices"

	"github.com/wasmendpoints/endpoints/internal/leb128"
)

// This file recognises dispatch loops, the shape Go's WebAssembly backend
// gives every function with jumps, and decides which of their back edges
// need the fuel check:
//
//	loop $dispatch
//	  block block ... block            ;; n leading blocks
//	    local.get $pc
//	    br_table 0 1 ... n-1           ;; no label is the loop itself
//	  end                              ;; segment 0
//	  ...
//	  i32.const 4 local.set $pc br $dispatch   ;; a jump: to segment table[4]
//	  ...
//	end                                ;; segment n-1
//
// Most of Go's jumps go forward, yet all re-enter the loop header, so a
// check at the header pays for every branch. Instead, the rewrite checks
// the edges back to a dispatch loop only where they can go backwards: a
// `br` right after `i32.const K; local.set $pc` whose target segment
// table[K] begins after the segment of the `br` is free; every other edge
// back to the loop (br_if, br_table, br_on_null, br_on_non_null, a
// try_table catch, a br after anything else) gets the check before it. The
// loop's entry is not checked: entries are bounded by what encloses the
// loop, which is checked.
//
// Why the free jumps cannot loop: an iteration starts where the br_table
// sends it, at the start of some segment s, and only moves forward through
// the loop's body (inner loops return to a header the iteration has
// already passed, after s) until it leaves the loop or branches back to
// it. A free branch at position p starts the next iteration at a segment
// that begins after p, so after s: the start segments of a run of free
// iterations strictly increase, and there are n segments. Any longer run
// takes a checked edge.

// dispatch is a loop recognised as a dispatch loop.
type dispatch struct {
	local  uint32   // the local the br_table reads
	blocks uint32   // its leading blocks, n
	labels []uint32 // the br_table's labels, the default last
	seg    int      // the segment being rewritten: leading blocks ended so far, minus one
}

// dispatchAt recognises a dispatch loop whose body starts at b[p:], after
// the loop opcode and its block type, and returns nil for any other loop.
func dispatchAt(b []byte, p int) *dispatch {
	d := &dispatch{seg: -1}
	for p < len(b) && b[p] == opBlock {
		in, err := decodeInstr(b, p)
		if err != nil {
			return nil
		}
		d.blocks++
		p = in.end
	}
	if d.blocks == 0 || p >= len(b) || b[p] != 0x20 { // local.get
		return nil
	}
	var err error
	if d.local, p, err = leb128.ReadU32(b, p+1); err != nil || p >= len(b) || b[p] != opBrTable {
		return nil
	}
	if d.labels, _, err = brTableLabels(nil, b, p); err != nil {
		return nil
	}
	for _, l := range d.labels {
		if l == d.blocks { // the loop itself: an edge back before any segment
			return nil
		}
	}
	return d
}

// free reports whether a `br` to the loop right after `i32.const k;
// local.set $pc` (the loop's local) needs no check: the br_table sends
// the next iteration to a segment that begins after the current one, or
// out of the loop.
func (d *dispatch) free(k int32) bool {
	i := uint32(k)
	if last := uint32(len(d.labels) - 1); i > last {
		i = last // the default
	}
	return int64(d.labels[i]) > int64(d.seg)
}

// brTableLabels appends to dst the labels of the br_table at b[p:], the
// default last, and returns the offset after it.
func brTableLabels(dst []uint32, b []byte, p int) ([]uint32, int, error) {
	n, q, err := leb128.ReadU32(b, p+1)
	if err != nil {
		return nil, q, err
	}
	if uint64(n) >= uint64(len(b)-q) { // each label takes at least one byte
		return nil, q, leb128.ErrTruncated
	}
	dst = slices.Grow(dst, int(n)+1)
	for range uint64(n) + 1 {
		var l uint32
		if l, q, err = leb128.ReadU32(b, q); err != nil {
			return nil, q, err
		}
		dst = append(dst, l)
	}
	return dst, q, nil
}

// catchLabels appends to dst the labels of the catch clauses of the
// try_table at b[p:].
func catchLabels(dst []uint32, b []byte, p int) ([]uint32, error) {
	q, err := skipBlockType(b, p+1)
	if err != nil {
		return nil, err
	}
	n, q, err := leb128.ReadU32(b, q)
	if err != nil {
		return nil, err
	}
	for i := uint32(0); i < n; i++ {
		if q >= len(b) {
			return nil, leb128.ErrTruncated
		}
		kind := b[q]
		q++
		if kind == 0x00 || kind == 0x01 { // catch tag label, catch_ref tag label
			if _, q, err = leb128.ReadU32(b, q); err != nil {
				return nil, err
			}
		}
		var l uint32
		if l, q, err = leb128.ReadU32(b, q); err != nil {
			return nil, err
		}
		dst = append(dst, l)
	}
	return dst, nil
}

// frame is one open block, loop, if, try or try_table of a function body
// (or the body itself).
type frame struct {
	loop *dispatch // a dispatch loop: the loop itself
	lead *dispatch // one of the leading blocks of that dispatch loop
}

// controls is the stack of open frames of the function body being
// rewritten, innermost last.
type controls []frame

// dispatchAt returns the dispatch loop a branch to label l goes to, or nil
// when it goes elsewhere (or nowhere: the module is invalid, and wazero
// will say so).
func (c controls) dispatchAt(l uint32) *dispatch {
	if uint64(l) >= uint64(len(c)) {
		return nil
	}
	return c[len(c)-1-int(l)].loop
}

// anyDispatch reports whether one of labels goes to a dispatch loop.
func (c controls) anyDispatch(labels []uint32) bool {
	for _, l := range labels {
		if c.dispatchAt(l) != nil {
			return true
		}
	}
	return false
}
