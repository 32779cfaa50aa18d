package interrupt

import (
	"errors"
	"fmt"
	"github.com/wasmendpoints/endpoints/internal/leb128"
)

// This file decodes one instruction at a time: enough to find where it ends
// and the index immediates the rewriter renumbers or checks. It knows the
// immediates of every opcode of WebAssembly 2.0 and of the proposals wazero
// accepts or may meet in the wild:
//
//   - MVP, sign extension, non-trapping float-to-int (0xFC 0-7), bulk memory
//     and reference types (0xFC 8-17, 0x25, 0x26, 0xD0-0xD2, typed select),
//     multi-value block types (a type index read as s33);
//   - tail calls (0x12, 0x13), typed function references (0x14, 0x15,
//     0xD4-0xD6, `(ref null? ht)` value types);
//   - fixed-width and relaxed SIMD (0xFD, with lane and memarg+lane
//     immediates);
//   - threads (0xFE);
//   - exception handling, legacy (try, catch, throw, rethrow, delegate,
//     catch_all) and current (try_table, throw_ref);
//   - multiple memories and memory64 (a memarg whose alignment has bit 6
//     set carries a memory index; offsets are read as 64-bit).
//
// Garbage collection (0xFB) is not decoded: wazero does not run it.
//
// Opcodes: https://webassembly.github.io/spec/core/binary/instructions.html

// Opcodes the rewriter acts on.
const (
	opBlock              = 0x02
	opLoop               = 0x03
	opIf                 = 0x04
	opTry                = 0x06
	opEnd                = 0x0b
	opBr                 = 0x0c
	opBrIf               = 0x0d
	opBrTable            = 0x0e
	opCall               = 0x10
	opCallIndirect       = 0x11
	opReturnCall         = 0x12
	opReturnCallIndirect = 0x13
	opCallRef            = 0x14
	opReturnCallRef      = 0x15
	opDelegate           = 0x18
	opTryTable           = 0x1f
	opLocalSet           = 0x21
	opGlobalGet          = 0x23
	opGlobalSet          = 0x24
	opI32Const           = 0x41
	opI32LtS             = 0x48
	opI32Sub             = 0x6b
	opRefFunc            = 0xd2
	opBrOnNull           = 0xd5
	opBrOnNonNull        = 0xd6
	opPrefixGC           = 0xfb
	opPrefixMisc         = 0xfc
	opPrefixSIMD         = 0xfd
	opPrefixAtomic       = 0xfe

	// blockEmpty is the block type of a block without parameters or
	// results.
	blockEmpty = 0x40
)

// imm says which immediates follow an opcode.
type imm uint8

const (
	immInvalid    imm = iota // not an opcode
	immNone                  // nothing
	immBlock                 // a block type
	immIndex                 // one u32 index
	immIndex2                // two u32 indices
	immBrTable               // vec(labelidx) labelidx
	immMemarg                // alignment (with memory index when bit 6 is set), offset
	immI32                   // s32
	immI64                   // s64
	immF32                   // 4 bytes
	immF64                   // 8 bytes
	immSelectT               // vec(valtype)
	immHeapType              // s33 heap type
	immTryTable              // block type, vec(catch clause)
	immByte                  // one byte: a lane index or a reserved zero
	immMemargLane            // memarg, lane index
	immBytes16               // 16 bytes: v128.const, i8x16.shuffle
	immPrefix                // a u32 sub-opcode follows, then its immediates
)

// single gives the immediates of each one-byte opcode.
var single = func() (t [256]imm) {
	set := func(from, to int, k imm) {
		for op := from; op <= to; op++ {
			t[op] = k
		}
	}
	set(0x00, 0x01, immNone)   // unreachable, nop
	set(0x02, 0x04, immBlock)  // block, loop, if
	t[0x05] = immNone          // else
	t[0x06] = immBlock         // try (legacy exceptions)
	set(0x07, 0x09, immIndex)  // catch tag, throw tag, rethrow label
	set(0x0a, 0x0b, immNone)   // throw_ref, end
	set(0x0c, 0x0d, immIndex)  // br, br_if
	t[0x0e] = immBrTable       // br_table
	t[0x0f] = immNone          // return
	t[0x10] = immIndex         // call
	t[0x11] = immIndex2        // call_indirect type table
	t[0x12] = immIndex         // return_call
	t[0x13] = immIndex2        // return_call_indirect type table
	set(0x14, 0x15, immIndex)  // call_ref, return_call_ref
	t[0x18] = immIndex         // delegate label
	t[0x19] = immNone          // catch_all
	set(0x1a, 0x1b, immNone)   // drop, select
	t[0x1c] = immSelectT       // select t*
	t[0x1f] = immTryTable      // try_table
	set(0x20, 0x26, immIndex)  // local.*, global.*, table.get, table.set
	set(0x28, 0x3e, immMemarg) // loads and stores
	set(0x3f, 0x40, immIndex)  // memory.size, memory.grow
	t[0x41] = immI32           // i32.const
	t[0x42] = immI64           // i64.const
	t[0x43] = immF32           // f32.const
	t[0x44] = immF64           // f64.const
	set(0x45, 0xc4, immNone)   // numeric and sign extension
	t[0xd0] = immHeapType      // ref.null
	t[0xd1] = immNone          // ref.is_null
	t[0xd2] = immIndex         // ref.func
	set(0xd3, 0xd4, immNone)   // ref.eq, ref.as_non_null
	set(0xd5, 0xd6, immIndex)  // br_on_null, br_on_non_null
	set(0xfc, 0xfe, immPrefix) // misc, SIMD, atomics
	return t
}()

// misc gives the immediates of the 0xFC opcodes.
var misc = [...]imm{
	0: immNone, 1: immNone, 2: immNone, 3: immNone, // i32.trunc_sat_*
	4: immNone, 5: immNone, 6: immNone, 7: immNone, // i64.trunc_sat_*
	8:  immIndex2, // memory.init data memory
	9:  immIndex,  // data.drop
	10: immIndex2, // memory.copy memory memory
	11: immIndex,  // memory.fill memory
	12: immIndex2, // table.init elem table
	13: immIndex,  // elem.drop
	14: immIndex2, // table.copy table table
	15: immIndex,  // table.grow
	16: immIndex,  // table.size
	17: immIndex,  // table.fill
}

// simd gives the immediates of the 0xFD opcodes, relaxed SIMD included.
var simd = func() (t [0x114]imm) {
	for op := range t {
		t[op] = immNone
	}
	for op := 0x00; op <= 0x0b; op++ {
		t[op] = immMemarg // v128.load*, v128.store
	}
	t[0x0c] = immBytes16 // v128.const
	t[0x0d] = immBytes16 // i8x16.shuffle
	for op := 0x15; op <= 0x22; op++ {
		t[op] = immByte // extract_lane, replace_lane
	}
	for op := 0x54; op <= 0x5b; op++ {
		t[op] = immMemargLane // v128.load*_lane, v128.store*_lane
	}
	t[0x5c] = immMemarg // v128.load32_zero
	t[0x5d] = immMemarg // v128.load64_zero
	// Holes in the numbering.
	for _, op := range []int{
		0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb,
		0xc2, 0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee,
	} {
		t[op] = immInvalid
	}
	return t
}()

// atomics gives the immediates of the 0xFE opcodes.
var atomics = func() (t [0x4f]imm) {
	t[0x00] = immMemarg // memory.atomic.notify
	t[0x01] = immMemarg // memory.atomic.wait32
	t[0x02] = immMemarg // memory.atomic.wait64
	t[0x03] = immByte   // atomic.fence 0x00
	for op := 0x10; op < len(t); op++ {
		t[op] = immMemarg // loads, stores, read-modify-write, cmpxchg
	}
	return t
}()

// instr is one decoded instruction.
type instr struct {
	op    byte   // first byte
	sub   uint32 // sub-opcode after a 0xFC, 0xFD or 0xFE prefix
	idx   uint32 // first index immediate, for immIndex and immIndex2
	idxAt int    // offset of that immediate
	end   int    // offset of the byte after the instruction
}

// errUnknownOpcode is wrapped by the decoder's error for a byte that starts
// no instruction it knows.
var errUnknownOpcode = errors.New("unknown opcode")

// decodeInstr decodes the instruction at b[p:]; p < len(b).
func decodeInstr(b []byte, p int) (in instr, err error) {
	in.op = b[p]
	q := p + 1
	k := single[in.op]
	if k == immPrefix {
		if in.sub, q, err = leb128.ReadU32(b, q); err != nil {
			return in, fmt.Errorf("opcode 0x%02x: sub-opcode: %w", in.op, err)
		}
		k = prefixed(in.op, in.sub)
		if k == immInvalid {
			return in, fmt.Errorf("%w 0x%02x %d", errUnknownOpcode, in.op, in.sub)
		}
	}
	switch k {
	case immInvalid:
		if in.op == opPrefixGC {
			return in, fmt.Errorf("%w 0x%02x: garbage collection instructions are not supported", errUnknownOpcode, in.op)
		}
		return in, fmt.Errorf("%w 0x%02x", errUnknownOpcode, in.op)
	case immNone:
	case immBlock:
		q, err = skipBlockType(b, q)
	case immIndex:
		in.idxAt = q
		in.idx, q, err = leb128.ReadU32(b, q)
	case immIndex2:
		in.idxAt = q
		if in.idx, q, err = leb128.ReadU32(b, q); err == nil {
			_, q, err = leb128.ReadU32(b, q)
		}
	case immBrTable:
		var n uint32
		if n, q, err = leb128.ReadU32(b, q); err == nil {
			q, err = skipU32s(b, q, uint64(n)+1)
		}
	case immMemarg:
		q, err = skipMemarg(b, q)
	case immI32:
		_, q, err = leb128.ReadSigned(b, q, 32)
	case immI64:
		_, q, err = leb128.ReadSigned(b, q, 64)
	case immF32:
		q += 4
	case immF64:
		q += 8
	case immSelectT:
		var n uint32
		if n, q, err = leb128.ReadU32(b, q); err == nil {
			for i := uint32(0); i < n && err == nil; i++ {
				q, err = skipValType(b, q)
			}
		}
	case immHeapType:
		_, q, err = leb128.ReadSigned(b, q, 33)
	case immTryTable:
		q, err = skipTryTable(b, q)
	case immByte:
		q++
	case immMemargLane:
		q, err = skipMemarg(b, q)
		q++
	case immBytes16:
		q += 16
	}
	if err == nil && q > len(b) {
		err = leb128.ErrTruncated
	}
	if err != nil {
		if single[in.op] == immPrefix {
			return in, fmt.Errorf("opcode 0x%02x %d: %w", in.op, in.sub, err)
		}
		return in, fmt.Errorf("opcode 0x%02x: %w", in.op, err)
	}
	in.end = q
	return in, nil
}

// prefixed returns the immediates of a prefixed opcode.
func prefixed(prefix byte, sub uint32) imm {
	var t []imm
	switch prefix {
	case opPrefixMisc:
		t = misc[:]
	case opPrefixSIMD:
		t = simd[:]
	case opPrefixAtomic:
		t = atomics[:]
	}
	if sub >= uint32(len(t)) {
		return immInvalid
	}
	return t[sub]
}

// skipU32s skips n unsigned LEB128 integers.
func skipU32s(b []byte, q int, n uint64) (int, error) {
	if n > uint64(len(b)-q) { // each takes at least one byte
		return q, leb128.ErrTruncated
	}
	var err error
	for i := uint64(0); i < n && err == nil; i++ {
		_, q, err = leb128.ReadU32(b, q)
	}
	return q, err
}

// skipMemarg skips a memory argument: the alignment exponent, a memory
// index when bit 6 of the alignment is set (multiple memories), and the
// offset (64-bit with memory64).
func skipMemarg(b []byte, q int) (int, error) {
	align, q, err := leb128.ReadU32(b, q)
	if err != nil {
		return q, err
	}
	if align&0x40 != 0 {
		if _, q, err = leb128.ReadU32(b, q); err != nil {
			return q, err
		}
	}
	_, q, err = leb128.ReadU64(b, q)
	return q, err
}

// skipBlockType skips a block type: 0x40 (empty), a value type, or a type
// index encoded as a non-negative s33.
func skipBlockType(b []byte, q int) (int, error) {
	if q >= len(b) {
		return q, leb128.ErrTruncated
	}
	if c := b[q]; c == 0x63 || c == 0x64 {
		return skipValType(b, q)
	}
	_, q, err := leb128.ReadSigned(b, q, 33)
	return q, err
}

// skipValType skips a value type: a number, vector or reference type, or
// `(ref null? ht)` with a heap type.
func skipValType(b []byte, q int) (int, error) {
	if q >= len(b) {
		return q, leb128.ErrTruncated
	}
	switch c := b[q]; {
	case c == 0x63 || c == 0x64: // (ref null ht), (ref ht)
		_, q, err := leb128.ReadSigned(b, q+1, 33)
		return q, err
	case c >= 0x7b && c <= 0x7f, // i32, i64, f32, f64, v128
		c >= 0x69 && c <= 0x74: // exnref, funcref, externref and the GC reference types
		return q + 1, nil
	default:
		return q, fmt.Errorf("bad value type 0x%02x", c)
	}
}

// skipTryTable skips the immediates of try_table: a block type and its
// catch clauses.
func skipTryTable(b []byte, q int) (int, error) {
	q, err := skipBlockType(b, q)
	if err != nil {
		return q, err
	}
	var n uint32
	if n, q, err = leb128.ReadU32(b, q); err != nil {
		return q, err
	}
	for i := uint32(0); i < n; i++ {
		if q >= len(b) {
			return q, leb128.ErrTruncated
		}
		kind := b[q]
		switch kind {
		case 0x00, 0x01: // catch tag label, catch_ref tag label
			q, err = skipU32s(b, q+1, 2)
		case 0x02, 0x03: // catch_all label, catch_all_ref label
			q, err = skipU32s(b, q+1, 1)
		default:
			return q, fmt.Errorf("try_table: bad catch clause kind 0x%02x", kind)
		}
		if err != nil {
			return q, err
		}
	}
	return q, nil
}
