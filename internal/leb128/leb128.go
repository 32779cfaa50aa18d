// Package leb128 reads and writes LEB128, the variable-length integer
// encoding of the WebAssembly binary format: 7 bits a byte, least
// significant group first, the high bit set on every byte but the last.
// See https://webassembly.github.io/spec/core/binary/values.html#integers
//
// The readers are strict, as the specification is: a value longer than its
// type allows, or with bits set beyond its width, is ErrMalformed.
package leb128

import "errors"

var (
	// ErrTruncated is returned when a value runs past the end of its
	// section, body or module.
	ErrTruncated = errors.New("unexpected end of data")
	// ErrMalformed is returned for an integer longer than its type allows or
	// with bits set beyond its width.
	ErrMalformed = errors.New("malformed LEB128 integer")
)

// ReadU32 decodes an unsigned 32-bit LEB128 integer at b[p:] and returns it
// with the offset of the byte after it.
func ReadU32(b []byte, p int) (uint32, int, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		if p >= len(b) {
			return 0, p, ErrTruncated
		}
		c := b[p]
		p++
		if i == 4 && c > 0x0f {
			return 0, p, ErrMalformed
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, p, nil
		}
	}
	return 0, p, ErrMalformed // not reached: the fifth byte always ends the loop
}

// ReadU64 decodes an unsigned 64-bit LEB128 integer at b[p:] and returns it
// with the offset of the byte after it.
func ReadU64(b []byte, p int) (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if p >= len(b) {
			return 0, p, ErrTruncated
		}
		c := b[p]
		p++
		if i == 9 && c > 0x01 {
			return 0, p, ErrMalformed
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, p, nil
		}
	}
	return 0, p, ErrMalformed // not reached: the tenth byte always ends the loop
}

// ReadSigned decodes a signed LEB128 integer of the given width (32, 33 or
// 64 bits) at b[p:] and returns it with the offset of the byte after it.
// Bits beyond the width must repeat the sign bit, as the specification
// requires.
func ReadSigned(b []byte, p int, bits uint) (int64, int, error) {
	maxBytes := int(bits+6) / 7
	var v int64
	var shift uint
	for i := 0; i < maxBytes; i++ {
		if p >= len(b) {
			return 0, p, ErrTruncated
		}
		c := b[p]
		p++
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c >= 0x80 {
			continue
		}
		if bits == 64 {
			if i == 9 && c != 0x00 && c != 0x7f {
				return 0, p, ErrMalformed
			}
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, p, nil
		}
		if c&0x40 != 0 {
			v |= -1 << shift
		}
		if v < -(1<<(bits-1)) || v >= 1<<(bits-1) {
			return 0, p, ErrMalformed
		}
		return v, p, nil
	}
	return 0, p, ErrMalformed
}

// AppendU32 appends v to dst as an unsigned LEB128 integer in the fewest
// bytes.
func AppendU32(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendS32 appends v to dst as a signed LEB128 integer in the fewest bytes.
func AppendS32(dst []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
}
