package endpoints

// appendCompact appends src, a JSON text, to dst without its insignificant
// white space, and fails, appending nothing, when src is not valid JSON: it
// is json.Compact's work done with tight loops, for the bytes a handler
// answers as json.RawMessage (a value read from the store). encoding/json's
// scanner costs about a quarter of a microsecond per byte in a Go
// WebAssembly module; TestAppendCompact and FuzzAppendCompact hold this to
// json.Compact's results.
func appendCompact(dst, src []byte) ([]byte, error) {
	c := compactor{src: src, out: dst}
	i, err := c.value(skipSpace(src, 0), 0)
	if err == nil {
		if i = skipSpace(src, i); i < len(src) {
			err = syntaxError(src, i, "nothing after the value")
		}
	}
	if err != nil {
		return dst, err
	}
	return c.out, nil
}

// maxCompactDepth is encoding/json's nesting limit.
const maxCompactDepth = 10000

type compactor struct {
	src, out []byte
}

// value copies the value at src[i] (no space before it) and returns the
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
		end, err := c.str(i)
		if err != nil {
			return 0, err
		}
		c.out = append(c.out, d[i:end]...)
		return end, nil
	case 't':
		return c.literal(i, "true")
	case 'f':
		return c.literal(i, "false")
	case 'n':
		return c.literal(i, "null")
	}
	end, err := number(d, i)
	if err != nil {
		return 0, err
	}
	c.out = append(c.out, d[i:end]...)
	return end, nil
}

// container copies the object or array at src[i].
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
	c.out = append(c.out, d[i])
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == closing {
		c.out = append(c.out, closing)
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
			c.out = append(c.out, d[i:end]...)
			i = skipSpace(d, end)
			if i >= len(d) || d[i] != ':' {
				return 0, syntaxError(d, i, "':' after a member name")
			}
			c.out = append(c.out, ':')
			i = skipSpace(d, i+1)
		}
		end, err := c.value(i, depth)
		if err != nil {
			return 0, err
		}
		i = skipSpace(d, end)
		if i >= len(d) {
			return 0, errUnexpectedEnd
		}
		switch d[i] {
		case ',':
			c.out = append(c.out, ',')
			i = skipSpace(d, i+1)
		case closing:
			c.out = append(c.out, closing)
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
		switch b := d[j]; {
		case b == '"':
			return j + 1, nil
		case b < 0x20:
			return 0, syntaxError(d, j, "no control characters in a string")
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

func (c *compactor) literal(i int, lit string) (int, error) {
	d := c.src
	for k := 0; k < len(lit); k++ {
		if i+k >= len(d) {
			return 0, errUnexpectedEnd
		}
		if d[i+k] != lit[k] {
			return 0, syntaxError(d, i+k, "the literal "+lit)
		}
	}
	c.out = append(c.out, lit...)
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
