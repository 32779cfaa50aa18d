package endpoints

import "unsafe"

// appendCompact appends src, a JSON text, to dst without its insignificant
// white space, and fails, appending nothing, when src is not valid JSON: it
// is json.Compact's work done with tight loops, for the bytes a handler
// answers as json.RawMessage (a value read from the store). encoding/json's
// scanner costs about a quarter of a microsecond per byte in a Go
// WebAssembly module; TestAppendCompact and FuzzAppendCompact hold this to
// json.Compact's results.
func appendCompact(dst, src []byte) ([]byte, error) {
	c := compactor{src: src, out: dst}
	out, err := c.compact()
	switch {
	case err != nil:
		return dst, err
	case !c.copied:
		return append(dst, out...), nil
	}
	return out, nil
}

// maxCompactDepth is encoding/json's nesting limit.
const maxCompactDepth = 10000

// compactor checks a JSON text and removes its insignificant white space.
// It copies lazily: src is read as runs of bytes between white space, and
// a run is appended to out only when white space ends it. A text without
// white space inside its value, the usual case for stored JSON, is
// checked and never copied.
type compactor struct {
	src, out []byte
	from     int  // start of the run not yet copied
	copied   bool // white space inside the value: out holds the text
	// escapes reports a '<', '>' or '&', or the first byte of U+2028 or
	// U+2029 (0xE2), in a string: encoding/json.Marshal escapes those,
	// json.Compact does not.
	escapes bool
}

// compact checks src and returns it without its insignificant white
// space: a sub-slice of src when nothing had to be removed inside the
// value (copied is false), else out with the compact text appended.
func (c *compactor) compact() ([]byte, error) {
	d := c.src
	c.from = skipSpace(d, 0)
	end, err := c.value(c.from, 0)
	if err != nil {
		return nil, err
	}
	if i := skipSpace(d, end); i < len(d) {
		return nil, syntaxError(d, i, "nothing after the value")
	}
	if !c.copied {
		return d[c.from:end], nil
	}
	return append(c.out, d[c.from:end]...), nil
}

// space returns the index of the first byte at or after i that is not
// white space. White space there ends a run: the run is copied to out and
// the next one starts after the white space.
func (c *compactor) space(i int) int {
	if i < len(c.src) && c.src[i] > ' ' {
		return i // the usual case, inlined
	}
	j := skipSpace(c.src, i)
	if j > i {
		c.out = append(c.out, c.src[c.from:i]...)
		c.from, c.copied = j, true
	}
	return j
}

// value checks the value at src[i] (no space before it) and returns the
// index after it.
func (c *compactor) value(i, depth int) (int, error) {
	d := c.src
	if i >= len(d) {
		return 0, errUnexpectedEnd
	}
	switch d[i] {
	case '{', '[':
		return c.container(i, depth+1)
	case '"':
		return c.str(i)
	case 't':
		return literal(d, i, "true")
	case 'f':
		return literal(d, i, "false")
	case 'n':
		return literal(d, i, "null")
	}
	return number(d, i)
}

// container checks the object or array at src[i].
func (c *compactor) container(i, depth int) (int, error) {
	d := c.src
	if depth > maxCompactDepth {
		return 0, syntaxError(d, i, "at most 10000 nested values")
	}
	object := d[i] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	i = c.space(i + 1)
	if i < len(d) && d[i] == closing {
		return i + 1, nil
	}
	for {
		if object {
			if i >= len(d) || d[i] != '"' {
				return 0, syntaxError(d, i, "a member name")
			}
			end, err := c.str(i)
			if err != nil {
				return 0, err
			}
			i = c.space(end)
			if i >= len(d) || d[i] != ':' {
				return 0, syntaxError(d, i, "':' after a member name")
			}
			i = c.space(i + 1)
		}
		end, err := c.value(i, depth)
		if err != nil {
			return 0, err
		}
		i = c.space(end)
		if i >= len(d) {
			return 0, errUnexpectedEnd
		}
		switch d[i] {
		case ',':
			i = c.space(i + 1)
		case closing:
			return i + 1, nil
		default:
			return 0, syntaxError(d, i, "',' or '"+string(closing)+"'")
		}
	}
}

// str returns the index after the string at src[i], checking its escapes.
func (c *compactor) str(i int) (int, error) {
	d := c.src
	for j := i + 1; j < len(d); j++ {
		b := d[j]
		if !stringStop[b] {
			continue // one load per byte for the usual bytes
		}
		switch {
		case b == '"':
			return j + 1, nil
		case b < 0x20:
			return 0, syntaxError(d, j, "no control characters in a string")
		case b == '<', b == '>', b == '&', b == 0xE2:
			c.escapes = true
		case b == '\\':
			j++
			if j >= len(d) {
				return 0, errUnexpectedEnd
			}
			switch d[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 1; k <= 4; k++ {
					if j+k >= len(d) {
						return 0, errUnexpectedEnd
					}
					if !isHex(d[j+k]) {
						return 0, syntaxError(d, j+k, "four hexadecimal digits after \\u")
					}
				}
				j += 4
			default:
				return 0, syntaxError(d, j, "an escape (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)")
			}
		}
	}
	return 0, errUnexpectedEnd
}

// stringStop marks the bytes at which a scan of a JSON string (scanString,
// compactor.str) looks closer: the end of the string, escapes, control
// characters, and the bytes that set compactor.escapes. Any other byte
// costs one load; in WebAssembly that beats a chain of compares.
var stringStop = [256]bool{'"': true, '\\': true, '<': true, '>': true, '&': true, 0xE2: true,
	0x00: true, 0x01: true, 0x02: true, 0x03: true, 0x04: true, 0x05: true, 0x06: true, 0x07: true,
	0x08: true, 0x09: true, 0x0A: true, 0x0B: true, 0x0C: true, 0x0D: true, 0x0E: true, 0x0F: true,
	0x10: true, 0x11: true, 0x12: true, 0x13: true, 0x14: true, 0x15: true, 0x16: true, 0x17: true,
	0x18: true, 0x19: true, 0x1A: true, 0x1B: true, 0x1C: true, 0x1D: true, 0x1E: true, 0x1F: true}

// literal returns the index after the literal lit at d[i].
func literal(d []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(d) {
			return 0, errUnexpectedEnd
		}
		if d[i+k] != lit[k] {
			return 0, syntaxError(d, i+k, "the literal "+lit)
		}
	}
	return i + len(lit), nil
}

// number returns the index after the JSON number at d[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(d []byte, i int) (int, error) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		return 0, errUnexpectedEnd
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		i = digits(d, i+1)
	default:
		return 0, syntaxError(d, i, "a value")
	}
	if i < len(d) && d[i] == '.' {
		if i+1 >= len(d) {
			return 0, errUnexpectedEnd
		}
		if !isDigit(d[i+1]) {
			return 0, syntaxError(d, i+1, "a digit after the decimal point")
		}
		i = digits(d, i+1)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) {
			return 0, errUnexpectedEnd
		}
		if !isDigit(d[i]) {
			return 0, syntaxError(d, i, "a digit in the exponent")
		}
		i = digits(d, i)
	}
	return i, nil
}

func digits(d []byte, i int) int {
	for i < len(d) && isDigit(d[i]) {
		i++
	}
	return i
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isHex(b byte) bool {
	return isDigit(b) || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// validJSON reports whether s is one JSON value, as json.Valid does, with
// the compactor's tight loops rather than encoding/json's scanner, which
// calls a function per byte.
func validJSON(s string) bool {
	c := compactor{src: unsafe.Slice(unsafe.StringData(s), len(s))}
	_, err := c.compact()
	return err == nil
}
