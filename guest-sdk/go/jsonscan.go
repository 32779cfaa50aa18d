package endpoints

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A small JSON scanner for the request envelope. encoding/json costs about
// a quarter of a microsecond per byte in a Go WebAssembly module (its
// scanner makes a function call per byte, and the Go wasm port makes calls
// dear), which was most of a request's time in the guest. The envelope's
// structure is fixed and simple, so it is split with tight loops here and
// only the values that need it (request bodies, structured parameters) go
// through encoding/json.
//
// The scanner checks structure (brackets, strings, separators) strictly and
// leaves the content of numbers and literals to the code that converts
// them, which checks it too.

var errUnexpectedEnd = errors.New("unexpected end of JSON input")

// syntaxError reports bad JSON at offset i.
func syntaxError(d []byte, i int, want string) error {
	if i >= len(d) {
		return errUnexpectedEnd
	}
	return fmt.Errorf("invalid character %q at offset %d: want %s", d[i], i, want)
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString returns the index after the string that starts at d[i] (a
// '"') and whether it holds escapes.
func scanString(d []byte, i int) (end int, escaped bool, err error) {
	j := i + 1
	for j < len(d) {
		// Eight bytes at a time up to the first that can end the scan:
		// most strings are a word or two of plain bytes, and a byte at
		// a time costs a bounds check and a table load each in a Go
		// WebAssembly module (the compiler makes Uint64 one load).
		if j+8 <= len(d) {
			m := stopMask(binary.LittleEndian.Uint64(d[j:]))
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) / 8
		}
		c := d[j]
		switch {
		case c == '"':
			return j + 1, escaped, nil
		case c == '\\':
			escaped = true
			j += 2
		case c < 0x20:
			return 0, false, syntaxError(d, j, "no control characters in a string")
		default:
			j++
		}
	}
	return 0, false, errUnexpectedEnd
}

// stopMask marks, in the top bit of each byte of w (eight bytes of a
// string, the first in the low byte), the bytes that can end a string
// scan: '"', '\\' and control characters. The lowest mark is exact (the
// borrows that can mark a byte wrongly only run upward from a marked
// one).
func stopMask(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := w ^ (lo * '"')
	b := w ^ (lo * '\\')
	return ((q-lo)&^q | (b-lo)&^b | (w-lo*0x20)&^w) & hi
}

// skipValue returns the index after the value that starts at or after i.
func skipValue(d []byte, i int) (int, error) {
	i = skipSpace(d, i)
	if i >= len(d) {
		return 0, errUnexpectedEnd
	}
	switch d[i] {
	case '"':
		end, _, err := scanString(d, i)
		return end, err
	case '{', '[':
		// Nested values: track depth, skip strings.
		depth := 0
		for j := i; j < len(d); j++ {
			switch d[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			case '"':
				end, _, err := scanString(d, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			}
		}
		return 0, errUnexpectedEnd
	}
	// A number or a literal: up to the next delimiter.
	j := i
	for j < len(d) {
		switch d[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return 0, syntaxError(d, i, "a value")
			}
			return j, nil
		}
		j++
	}
	return j, nil
}

// members reads the members of a JSON object one at a time:
//
//	m := scanMembers(d)
//	for m.next() {
//		use(m.key, m.value)
//	}
//	if m.err != nil {
//		return m.err
//	}
//
// The loop's body runs inline, with no closure and no call per member:
// the hot loops over the request envelope use it rather than
// [eachMember]'s callback, since every call counts in a Go WebAssembly
// module. A member's separator is checked
// when the next one is asked for, so the body sees each member before
// any syntax error after it, as eachMember's callback does.
//
// A lazy scan leaves each value that is a non-empty object or array
// unscanned (open): value is then its first byte, and i its index in d.
// The caller reads it in place, with scanMembersWithin or
// scanElementsWithin of d[i:], and calls resume with the index after it;
// or calls whole for all of it; or leaves it, and next skips it. An
// object that a caller reads rather than skips is scanned once, not
// twice (skipped by the outer scan, then read).
type members struct {
	d       []byte
	i       int    // after the current member's value; at its start when open
	key     string // of the current member; a key with escapes is decoded
	value   []byte // of the current member, raw
	escaped bool   // value is a string with escapes (decodeString them)
	err     error  // why the scan stopped early; nil at the end of the object
	started bool   // a member was read: the next one follows a separator
	done    bool
	lazy    bool // leave object and array values open
	open    bool // the current value is open: not scanned yet
	within  bool // the object ends at its '}', not at the end of d
}

// scanMembers starts reading the members of the object d.
func scanMembers(d []byte) members {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return members{err: syntaxError(d, i, "an object"), done: true}
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return members{err: checkEnd(d, i+1), done: true}
	}
	return members{d: d, i: i}
}

// scanMembersWithin starts reading the members of the object at the
// start of d, which goes on after it (an open value of a lazy scan): the
// scan ends at the object's '}', with i after it. Offsets in errors count
// from the object's first byte, as they do for the object alone.
func scanMembersWithin(d []byte) members {
	if len(d) == 0 || d[0] != '{' {
		return members{err: syntaxError(d, 0, "an object"), done: true}
	}
	i := skipSpace(d, 1)
	if i < len(d) && d[i] == '}' {
		return members{d: d, i: i + 1, done: true, within: true}
	}
	return members{d: d, i: i, within: true}
}

// whole makes the open value, if any, whole: scanned, in value, with i
// after it. It reports false, with err, on bad JSON.
func (m *members) whole() bool {
	if !m.open {
		return true
	}
	end, err := skipValue(m.d, m.i)
	if err != nil {
		return m.stop(err)
	}
	m.value, m.i, m.open = m.d[m.i:end], end, false
	return true
}

// object starts reading the object of the current member: in place when
// it is open (then, at its end, resume(m.i + o.i)), else its value.
func (m *members) object() members {
	if m.open {
		return scanMembersWithin(m.d[m.i:])
	}
	return scanMembers(m.value)
}

// resume records that the caller read the open value up to end, the
// index in d after it.
func (m *members) resume(end int) {
	m.value, m.i, m.open = m.d[m.i:end], end, false
}

// next reads the next member into key and value and reports whether there
// was one; at the end of the object, or on bad JSON (err), it returns
// false.
func (m *members) next() bool {
	if m.done {
		return false
	}
	if m.open && !m.whole() { // the caller left it: skip it
		return false
	}
	d, i := m.d, m.i
	if m.started {
		i = skipSpace(d, i)
		switch {
		case i < len(d) && d[i] == ',':
			i = skipSpace(d, i+1)
		case i < len(d) && d[i] == '}':
			switch {
			case m.within:
				m.i = i + 1
				return m.stop(nil)
			case i+1 == len(d):
				return m.stop(nil) // checkEnd's answer, without the call
			}
			return m.stop(checkEnd(d, i+1))
		default:
			return m.stop(syntaxError(d, i, "',' or '}'"))
		}
	}
	m.started = true
	if i >= len(d) || d[i] != '"' {
		return m.stop(syntaxError(d, i, "a member name"))
	}
	// A name without escapes or control characters, and eight bytes
	// or more before the end of d, ends where the loop of scanString,
	// written out here, finds its closing quote: a call is dear in a Go
	// WebAssembly module, and such are all the names of an envelope and
	// of a query's result.
	end, escaped := 0, false
	for j := i + 1; j+8 <= len(d); j += 8 {
		if w := stopMask(binary.LittleEndian.Uint64(d[j:])); w != 0 {
			if k := j + bits.TrailingZeros64(w)/8; d[k] == '"' {
				end = k + 1
			}
			break
		}
	}
	if end == 0 {
		var err error
		if end, escaped, err = scanString(d, i); err != nil {
			return m.stop(err)
		}
	}
	key := unsafeString(d[i+1 : end-1])
	if escaped {
		var err error
		if key, err = decodeString(d[i:end]); err != nil {
			return m.stop(err)
		}
	}
	i = skipSpace(d, end)
	if i >= len(d) || d[i] != ':' {
		return m.stop(syntaxError(d, i, "':' after a member name"))
	}
	start := skipSpace(d, i+1)
	// Strings without escapes and empty objects and arrays ("query":{})
	// end without a call, as names do above.
	end, escaped = 0, false
	if start+1 < len(d) {
		switch c := d[start]; {
		case c == '"':
			for j := start + 1; j+8 <= len(d); j += 8 {
				if w := stopMask(binary.LittleEndian.Uint64(d[j:])); w != 0 {
					if k := j + bits.TrailingZeros64(w)/8; d[k] == '"' {
						end = k + 1
					}
					break
				}
			}
		case c == '{' || c == '[':
			switch {
			case d[start+1] == c+2: // '}' and ']' follow '{' and '[' by two
				end = start + 2
			case m.lazy:
				m.key, m.value, m.escaped, m.i, m.open = key, d[start:start+1], false, start, true
				return true
			}
		}
	}
	if end == 0 {
		var err error
		if start < len(d) && d[start] == '"' {
			end, escaped, err = scanString(d, start) // skipValue's first case
		} else {
			end, err = skipValue(d, start)
		}
		if err != nil {
			return m.stop(err)
		}
	}
	m.key, m.value, m.escaped, m.i = key, d[start:end], escaped, end
	return true
}

// stop ends the scan with err (nil at the end of the object).
func (m *members) stop(err error) bool {
	m.err, m.done = err, true
	return false
}

// eachMember calls fn with the key and the raw value of every member of
// the object d, in order, and returns the first error of fn or of the
// scan. Keys with escapes are decoded.
func eachMember(d []byte, fn func(key string, value []byte) error) error {
	m := scanMembers(d)
	for m.next() {
		if err := fn(m.key, m.value); err != nil {
			return err
		}
	}
	return m.err
}

// eachElement calls fn with every element of the array d.
func eachElement(d []byte, fn func(value []byte) error) error {
	e := scanElements(d)
	for e.next() {
		if err := fn(e.value); err != nil {
			return err
		}
	}
	return e.err
}

// elements reads the elements of a JSON array one at a time, as
// [members] reads an object's members:
//
//	e := scanElements(d)
//	for e.next() {
//		use(e.value)
//	}
//	if e.err != nil {
//		return e.err
//	}
type elements struct {
	d       []byte
	i       int    // after the current element
	value   []byte // the current element, raw
	escaped bool   // value is a string with escapes (decodeString them)
	err     error  // why the scan stopped early; nil at the end of the array
	started bool   // an element was read: the next one follows a separator
	done    bool
	within  bool // the array ends at its ']', not at the end of d
}

// scanElements starts reading the elements of the array d.
func scanElements(d []byte) elements {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '[' {
		return elements{err: syntaxError(d, i, "an array"), done: true}
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return elements{err: checkEnd(d, i+1), done: true}
	}
	return elements{d: d, i: i}
}

// scanElementsWithin starts reading the elements of the array at the
// start of d, which goes on after it, as scanMembersWithin does an
// object: the scan ends at the array's ']', with i after it.
func scanElementsWithin(d []byte) elements {
	if len(d) == 0 || d[0] != '[' {
		return elements{err: syntaxError(d, 0, "an array"), done: true}
	}
	i := skipSpace(d, 1)
	if i < len(d) && d[i] == ']' {
		return elements{d: d, i: i + 1, done: true, within: true}
	}
	return elements{d: d, i: i, within: true}
}

// next reads the next element into value and reports whether there was
// one; at the end of the array, or on bad JSON (err), it returns false.
func (e *elements) next() bool {
	if e.done {
		return false
	}
	d, i := e.d, e.i
	if e.started {
		i = skipSpace(d, i)
		switch {
		case i < len(d) && d[i] == ',':
			i++
		case i < len(d) && d[i] == ']':
			switch {
			case e.within:
				e.i, e.done = i+1, true
			case i+1 == len(d):
				e.done = true // checkEnd's answer, without the call
			default:
				e.err, e.done = checkEnd(d, i+1), true
			}
			return false
		default:
			e.err, e.done = syntaxError(d, i, "',' or ']'"), true
			return false
		}
	}
	e.started = true
	start := skipSpace(d, i)
	// Strings without escapes and empty objects and arrays end without
	// a call, as in members.next.
	end, escaped := 0, false
	if start+1 < len(d) {
		switch c := d[start]; {
		case c == '"':
			for j := start + 1; j+8 <= len(d); j += 8 {
				if w := stopMask(binary.LittleEndian.Uint64(d[j:])); w != 0 {
					if k := j + bits.TrailingZeros64(w)/8; d[k] == '"' {
						end = k + 1
					}
					break
				}
			}
		case c == '{' && d[start+1] == '}', c == '[' && d[start+1] == ']':
			end = start + 2
		}
	}
	if end == 0 {
		var err error
		if start < len(d) && d[start] == '"' {
			end, escaped, err = scanString(d, start) // skipValue's first case
		} else {
			end, err = skipValue(d, start)
		}
		if err != nil {
			e.err, e.done = err, true
			return false
		}
	}
	e.value, e.escaped, e.i = d[start:end], escaped, end
	return true
}

// checkEnd accepts only spaces after a complete value.
func checkEnd(d []byte, i int) error {
	if i = skipSpace(d, i); i < len(d) {
		return syntaxError(d, i, "the end of the value")
	}
	return nil
}

// decodeString decodes a JSON string value.
func decodeString(raw []byte) (string, error) {
	b, own, err := decodeStringContent(raw)
	if own {
		return unsafeString(b), err
	}
	return string(b), err
}

// decodeBytes decodes a JSON string value into bytes of their own, with
// one allocation: string(decodeString) made into a []byte copies twice,
// and each allocation costs 200-450 ns in a Go WebAssembly module. The
// bytes are never nil, even for "".
func decodeBytes(raw []byte) ([]byte, error) {
	b, own, err := decodeStringContent(raw)
	if own {
		return b, err
	}
	return append(make([]byte, 0, len(b)), b...), err
}

// decodeStringContent decodes a JSON string value: its content viewed in
// raw when it has neither escapes nor invalid UTF-8 (own false), else
// decoded into bytes of their own (own true).
func decodeStringContent(raw []byte) (b []byte, own bool, err error) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false, fmt.Errorf("got %.20s, want a string", raw)
	}
	end, escaped, err := scanString(raw, 0)
	if err != nil {
		return nil, false, err
	}
	if end != len(raw) {
		return nil, false, syntaxError(raw, end, "the end of the string")
	}
	if !escaped && utf8.Valid(raw) {
		return raw[1 : len(raw)-1], false, nil
	}
	// Escapes, or invalid UTF-8 that encoding/json replaces with U+FFFD:
	// decoded here as encoding/json decodes them (its scanner calls a
	// function per byte, which a Go WebAssembly module pays dearly for);
	// a bad escape goes to encoding/json for its error.
	if b, ok := unescape(raw[1 : len(raw)-1]); ok {
		return b, true, nil
	}
	var s string
	err = json.Unmarshal(raw, &s)
	return []byte(s), true, err
}

// unescape decodes the content of a JSON string (without its quotes) as
// encoding/json does, into bytes of their own: escapes decoded, a lone or
// broken surrogate and each byte of invalid UTF-8 replaced by U+FFFD. It
// reports false for what encoding/json refuses (a bad escape, a control
// character, a bare quote), whose error encoding/json gives.
func unescape(b []byte) ([]byte, bool) {
	out := make([]byte, 0, len(b)+2*utf8.UTFMax)
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\':
			if i+1 >= len(b) {
				return nil, false
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(b, i+2)
				if !ok {
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair decodes to one rune; a surrogate without its
					// pair is U+FFFD, and what follows is read on its own.
					if r2, ok := hex4(b, i+2); ok && i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							i += 6
							out = utf8.AppendRune(out, dec)
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return nil, false
			}
			i += 2
		case c == '"' || c < ' ':
			return nil, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, b[i:i+size]...)
			}
			i += size
		}
	}
	return out, true
}

// hex4 decodes the four hexadecimal digits at b[i:], as a \u escape
// holds them.
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unsafeString views b as a string without copying; b must not change
// while the string is used.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
