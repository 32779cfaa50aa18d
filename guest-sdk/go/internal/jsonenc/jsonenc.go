// Package jsonenc encodes the bodies handlers answer, byte for byte as
// encoding/json's Marshal does, without its reflection per value.
//
// encoding/json walks a value with reflect.Value calls and an encoder
// looked up per type in a sync.Map, and it allocates its buffer and the
// interface boxes of its walk. Inside a Go WebAssembly module every call
// and every allocation is dear (RATIONALE.md, "Where a Go request's time
// goes"), and an answer is encoded on every request. This package makes
// one plan per type, once: for each struct field its offset, its name
// already quoted, and a function that appends the field read through a
// pointer. Encoding a value then runs those functions and nothing else.
//
// It covers the types answers are usually made of: structs without
// embedded fields, strings, booleans, integers, floats, pointers and
// slices of those. [Append] reports any other type (maps, interfaces,
// []byte, arrays, embedded fields, types with MarshalJSON or MarshalText,
// json.Number, the "string" and "omitzero" tag options, recursive types)
// and any value encoding/json would refuse (NaN, infinities) as not
// handled: the caller encodes it with encoding/json, whose output and
// errors stay the reference.
package jsonenc

import (
	"encoding"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/cell"
)

// encodeFunc appends the value at p; false when encoding/json would
// refuse the value (a NaN or infinite float).
type encodeFunc func(dst []byte, p unsafe.Pointer) ([]byte, bool)

// plan is how type t is encoded: enc, nil when the package does not
// handle the type.
type plan struct {
	t   reflect.Type
	enc encodeFunc
}

var (
	// plans maps a reflect.Type to its *plan, made on first use.
	plans sync.Map
	// lastPlan is the plan used last: a handler that answers one type
	// finds it there, without the map's hashing of the type, a dozen
	// calls inside WebAssembly.
	lastPlan cell.Pointer[plan]
)

// Append appends the JSON encoding of v to dst as json.Marshal(v) would,
// and reports whether it did. When it returns false, dst is returned
// unchanged in length and the caller should encode v with encoding/json.
//
//	if out, ok := jsonenc.Append(buf[:0], v); ok {
//		return out, nil
//	}
//	return json.Marshal(v)
func Append(dst []byte, v any) ([]byte, bool) {
	if v == nil {
		return append(dst, "null"...), true
	}
	t := reflect.TypeOf(v)
	// The interface's data word: the pointer itself for a pointer, the
	// address of the boxed value for the types plans handle otherwise
	// (planOf refuses the few stored in the word itself).
	data := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
	if t.Kind() == reflect.Pointer {
		if data == nil {
			return append(dst, "null"...), true
		}
		t = t.Elem()
	}
	p := planOf(t)
	if p.enc == nil {
		return dst, false
	}
	if out, ok := p.enc(dst, data); ok {
		return out, true
	}
	return dst, false
}

// AppendString appends s as a JSON string, escaped as json.Marshal
// escapes it: <, > and & as \u003c..., invalid UTF-8 as \ufffd, U+2028
// and U+2029 escaped.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, true) }

// AppendStringNoHTML appends s as a JSON string escaped as an
// encoding/json Encoder with SetEscapeHTML(false) escapes it: as
// [AppendString] does, but <, > and & as they are.
func AppendStringNoHTML(dst []byte, s string) []byte { return appendString(dst, s, false) }

// appendString is AppendString, escaping <, > and & only with html.
func appendString(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time up to the first that is not safe: a
		// byte at a time costs a bounds check and a table load each in
		// a Go WebAssembly module, and most strings are plain ASCII.
		if i+8 <= len(s) {
			m := unsafeMask(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] || !html && (b == '<' || b == '>' || b == '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hex = "0123456789abcdef"

// unsafeMask marks, in the top bit of each byte of w (eight bytes of a
// string, the first in the low byte), the bytes that safe does not hold:
// control characters, '"', '\\', '<', '>', '&' and every byte of 0x80 or
// more. The lowest mark is exact (the borrows that can mark a byte
// wrongly only run upward from a marked one), which is all AppendString
// asks: it takes that byte, and those after it, one at a time.
func unsafeMask(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := w ^ (lo * '"')
	b := w ^ (lo * '\\')
	l := w ^ (lo * '<')
	g := w ^ (lo * '>')
	a := w ^ (lo * '&')
	return ((w-lo*0x20)&^w | (q-lo)&^q | (b-lo)&^b | (l-lo)&^l | (g-lo)&^g | (a-lo)&^a | w) & hi
}

// safe holds the ASCII bytes a JSON string carries as they are, with
// encoding/json's HTML escaping: not <, > or &.
var safe = func() (s [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		s[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return s
}()

// pointerShaped reports whether values of t are stored in an interface's
// data word itself: pointers, and structs of one pointer-shaped field.
func pointerShaped(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		return t.NumField() == 1 && t.Size() == unsafe.Sizeof(uintptr(0)) && pointerShaped(t.Field(0).Type)
	case reflect.Array:
		return t.Len() == 1 && pointerShaped(t.Elem())
	}
	return false
}

// planOf returns t's plan, making it on first use. A plan reads the
// value through a pointer to it; a pointer-shaped type (stored in an
// interface's data word itself) gets none.
func planOf(t reflect.Type) *plan {
	if p := lastPlan.Load(); p != nil && p.t == t {
		return p
	}
	if p, ok := plans.Load(t); ok {
		lastPlan.Store(p.(*plan))
		return p.(*plan)
	}
	var enc encodeFunc
	if !pointerShaped(t) {
		enc = build(t, map[reflect.Type]bool{})
	}
	p, _ := plans.LoadOrStore(t, &plan{t: t, enc: enc})
	lastPlan.Store(p.(*plan))
	return p.(*plan)
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
)

// build returns the encoder of t, nil when the package leaves t to
// encoding/json. open holds the struct types being built, to refuse
// recursive ones (only a struct can hold itself, through a pointer or a
// slice).
func build(t reflect.Type, open map[reflect.Type]bool) encodeFunc {
	if t == numberType || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
			return strconv.AppendBool(dst, *(*bool)(p)), true
		}
	case reflect.Int:
		return intEncoder[int]()
	case reflect.Int8:
		return intEncoder[int8]()
	case reflect.Int16:
		return intEncoder[int16]()
	case reflect.Int32:
		return intEncoder[int32]()
	case reflect.Int64:
		return intEncoder[int64]()
	case reflect.Uint:
		return uintEncoder[uint]()
	case reflect.Uint8:
		return uintEncoder[uint8]()
	case reflect.Uint16:
		return uintEncoder[uint16]()
	case reflect.Uint32:
		return uintEncoder[uint32]()
	case reflect.Uint64:
		return uintEncoder[uint64]()
	case reflect.Uintptr:
		return uintEncoder[uintptr]()
	case reflect.Float32:
		return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
			return appendFloat(dst, float64(*(*float32)(p)), 32)
		}
	case reflect.Float64:
		return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
			return appendFloat(dst, *(*float64)(p), 64)
		}
	case reflect.String:
		return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
			return AppendString(dst, *(*string)(p)), true
		}
	case reflect.Pointer:
		return pointerEncoder(t, open)
	case reflect.Slice:
		return sliceEncoder(t, open)
	case reflect.Struct:
		return structEncoder(t, open)
	}
	return nil // maps, interfaces, arrays, channels, functions
}

func intEncoder[T int | int8 | int16 | int32 | int64]() encodeFunc {
	return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
		return strconv.AppendInt(dst, int64(*(*T)(p)), 10), true
	}
}

func uintEncoder[T uint | uint8 | uint16 | uint32 | uint64 | uintptr]() encodeFunc {
	return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
		return strconv.AppendUint(dst, uint64(*(*T)(p)), 10), true
	}
}

// appendFloat appends f as encoding/json does: like ES6's number to
// string conversion, %f between 1e-6 and 1e21, %e outside, exponents
// without padding. NaN and infinities are not JSON: false.
func appendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-09 becomes e-9.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// pointerEncoder encodes what a *T points to, null for nil.
func pointerEncoder(t reflect.Type, open map[reflect.Type]bool) encodeFunc {
	elem := build(t.Elem(), open)
	if elem == nil {
		return nil
	}
	return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
		target := *(*unsafe.Pointer)(p)
		if target == nil {
			return append(dst, "null"...), true
		}
		return elem(dst, target)
	}
}

// sliceEncoder encodes a []T as an array, null for nil. A []byte is
// base64 text to encoding/json: left to it.
func sliceEncoder(t reflect.Type, open map[reflect.Type]bool) encodeFunc {
	if t.Elem().Kind() == reflect.Uint8 {
		return nil
	}
	elem := build(t.Elem(), open)
	if elem == nil {
		return nil
	}
	size := t.Elem().Size()
	return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
		s := (*sliceHeader)(p)
		if s.data == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i := range s.len {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = elem(dst, unsafe.Add(s.data, uintptr(i)*size)); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	}
}

// sliceHeader is the layout of a slice value.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// field is one encoded field of a struct.
type field struct {
	key       string // `"name":`, escaped as encoding/json escapes it
	offset    uintptr
	enc       encodeFunc
	omitEmpty func(p unsafe.Pointer) bool // nil without omitempty
}

// structEncoder encodes a struct's exported fields in order, named and
// omitted as their json tags say.
func structEncoder(t reflect.Type, open map[reflect.Type]bool) encodeFunc {
	if open[t] {
		return nil
	}
	open[t] = true
	defer delete(open, t)
	var fields []field
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil // embedded fields: encoding/json's promotion rules
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validName(name) {
			name = sf.Name
		}
		omitEmpty := false
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "omitempty":
				omitEmpty = true
			case "string", "omitzero":
				return nil
			}
		}
		if names[name] {
			return nil // a conflict encoding/json resolves by dropping fields
		}
		names[name] = true
		enc := build(sf.Type, open)
		if enc == nil {
			return nil
		}
		f := field{key: string(AppendString(nil, name)) + ":", offset: sf.Offset, enc: enc}
		if omitEmpty {
			f.omitEmpty = emptiness(sf.Type)
		}
		fields = append(fields, f)
	}
	return func(dst []byte, p unsafe.Pointer) ([]byte, bool) {
		dst = append(dst, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			at := unsafe.Add(p, f.offset)
			if f.omitEmpty != nil && f.omitEmpty(at) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.key...)
			var ok bool
			if dst, ok = f.enc(dst, at); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
}

// emptiness returns the omitempty test of a field of type t, as
// encoding/json's isEmptyValue: zero numbers and false, empty strings
// and slices, nil pointers (-0 is empty too); a struct is never empty.
func emptiness(t reflect.Type) func(p unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.Bool:
		return func(p unsafe.Pointer) bool { return !*(*bool)(p) }
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*sliceHeader)(p).len == 0 }
	case reflect.Pointer:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Float32:
		return func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 }
	case reflect.Float64:
		return func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		size := t.Size()
		return func(p unsafe.Pointer) bool {
			for i := range size {
				if *(*byte)(unsafe.Add(p, i)) != 0 {
					return false
				}
			}
			return true
		}
	}
	return func(unsafe.Pointer) bool { return false } // structs
}

// validName reports whether a json tag's name is used as it is, as
// encoding/json's isValidTag decides; otherwise the field's name is.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
