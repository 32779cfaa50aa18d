package jsonvalue

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/internal/jsonnum"
)

// syntaxError explains why the tokenizer refused the token starting after
// offset before. The tokenizer says where but not, in words for an API
// client, what it expected: that follows from the decoder's state, and the
// bytes tell what was found instead.
func (d *decoder) syntaxError(err error, before int) *Error {
	data := d.data
	p := skipSpace(data, before)
	q := p       // where the name or value should start
	item := true // the problem is in the value being read, not in its container's punctuation
	wantName := false
	var expect string
	if n := len(d.frames); n == 0 {
		expect = "a JSON value"
	} else if f := d.frames[n-1]; f.object {
		nv, nk := len(d.vals)-f.vals, len(d.names)-f.names
		switch {
		case nk > nv:
			if at(data, p) != ':' {
				return d.errorAt(p, true, "expected ':' after a member name, found "+quoteAt(data, p))
			}
			q, expect = skipSpace(data, p+1), "a value"
		case nk == 0:
			expect, wantName, item = "a member name in double quotes or '}'", true, false
		default:
			if at(data, p) != ',' {
				return d.afterValue(p, before, "expected ',' or '}' after a member value, found ")
			}
			q, expect, wantName, item = skipSpace(data, p+1), "a member name in double quotes", true, false
		}
	} else if len(d.vals) == f.vals {
		expect = "a value or ']'"
	} else {
		if at(data, p) != ',' {
			return d.afterValue(p, before, "expected ',' or ']' after an array element, found ")
		}
		q, expect = skipSpace(data, p+1), "a value"
	}
	if q < len(data) {
		var msg string
		var off int
		switch c := data[q]; {
		case c == '"':
			msg, off = explainString(data, q)
		case wantName:
		case c == '-' || jsonnum.IsDigit(c):
			msg, off = explainNumber(data, q)
		case c == 't' || c == 'f' || c == 'n':
			msg, off = explainLiteral(data, q)
		case c == '{' || c == '[':
			if len(d.frames) >= d.max {
				// The tokenizer's own limit, MaxDepthLimit, came first.
				return d.tooDeep(q)
			}
			return d.fallback(err, q, item)
		}
		if msg != "" {
			return d.errorAt(off, item, msg)
		}
		if startsValue(data[q]) && !wantName || data[q] == '"' {
			// The token looks fine to us: say what the tokenizer said.
			return d.fallback(err, q, item)
		}
	}
	return d.errorAt(q, item, "expected "+expect+", found "+quoteAt(data, q))
}

// afterValue explains a wrong byte at p after a value that ended at end.
func (d *decoder) afterValue(p, end int, msg string) *Error {
	if d.leadingZero(p, end) {
		return d.errorAt(p, false, leadingZero)
	}
	return d.errorAt(p, false, msg+quoteAt(d.data, p))
}

const leadingZero = "invalid number: leading zeros are not allowed; write numbers without them"

// leadingZero reports whether the digit at p follows a value ending at end
// with 0: only the number 0 (or -0) stops before a digit, so the input had
// a leading zero, like 01.
func (d *decoder) leadingZero(p, end int) bool {
	return p == end && p > 0 && p < len(d.data) && jsonnum.IsDigit(d.data[p]) && d.data[p-1] == '0'
}

// fallback reports an error the decoder cannot explain itself with the
// tokenizer's words. It is not expected to happen; the fuzz test checks.
func (d *decoder) fallback(err error, off int, item bool) *Error {
	var se *jsontext.SyntacticError
	msg := err.Error()
	if errors.As(err, &se) {
		off = int(se.ByteOffset)
		if se.Err != nil {
			msg = se.Err.Error()
		}
	}
	e := d.errorAt(off, item, msg)
	e.fallback = true
	return e
}

func startsValue(c byte) bool {
	return c == '"' || c == '-' || jsonnum.IsDigit(c) || c == 't' || c == 'f' || c == 'n' || c == '{' || c == '['
}

// at returns data[i], or 0 past the end.
func at(data []byte, i int) byte {
	if i < len(data) {
		return data[i]
	}
	return 0
}

// explainString finds the problem in the string starting at q: its
// message and offset, or "" when the string is fine.
func explainString(data []byte, q int) (string, int) {
	i := q + 1
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return "", 0
		case c == '\\':
			if i+1 >= len(data) {
				return unterminated, len(data)
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
				continue
			case 'u':
			default:
				if e := data[i+1]; e >= 0x20 && e < 0x7f {
					return "invalid escape sequence \\" + string(rune(e)) + " in a string; " + escapes, i
				}
				return "invalid escape sequence in a string: '\\' followed by " + quoteAt(data, i+1) + "; " + escapes, i
			}
			r, ok := hex4(data, i+2)
			if !ok {
				if i+6 > len(data) && allHex(data[i+2:]) {
					return unterminated, len(data)
				}
				return "invalid escape sequence " + shown(data[i:min(i+6, len(data))]) + " in a string; \\u needs four hex digits", i
			}
			switch {
			case r >= 0xd800 && r < 0xdc00:
				if i+6 == len(data) || i+7 == len(data) && data[i+6] == '\\' {
					return unterminated, len(data)
				}
				if at(data, i+6) == '\\' && at(data, i+7) == 'u' {
					r2, ok := hex4(data, i+8)
					if !ok && i+12 > len(data) && allHex(data[i+8:]) {
						return unterminated, len(data)
					}
					if ok && r2 >= 0xdc00 && r2 < 0xe000 {
						i += 12
						continue
					}
				}
				return loneSurrogate(data[i : i+6]), i
			case r >= 0xdc00 && r < 0xe000:
				return loneSurrogate(data[i : i+6]), i
			}
			i += 6
		case c < 0x20:
			return "unescaped control character " + quoteAt(data, i) + " in a string; write it as " + controlEscape(c), i
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Sprintf("invalid UTF-8 in a string: byte \\x%02x; send text encoded as UTF-8", c), i
			}
			i += size
		}
	}
	return unterminated, len(data)
}

const (
	unterminated = "expected '\"' to end the string, found end of input"
	escapes      = "the escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\u followed by four hex digits"
)

func loneSurrogate(esc []byte) string {
	return "lone surrogate " + string(esc) + " in a string; send the character as UTF-8 or as a pair of surrogate escapes"
}

// hex4 reads four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case jsonnum.IsDigit(c):
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func allHex(b []byte) bool {
	for _, c := range b {
		if !jsonnum.IsDigit(c) && (c|0x20 < 'a' || c|0x20 > 'f') {
			return false
		}
	}
	return true
}

// shown writes bytes of the input that are mostly ASCII, with \xNN for
// the others.
func shown(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\x%02x", c)
		}
	}
	return sb.String()
}

func controlEscape(c byte) string {
	switch c {
	case '\b':
		return "\\b"
	case '\f':
		return "\\f"
	case '\n':
		return "\\n"
	case '\r':
		return "\\r"
	case '\t':
		return "\\t"
	}
	return fmt.Sprintf("\\u%04x", c)
}

// explainNumber finds the problem in the number starting at q, or "" when
// the number is fine.
func explainNumber(data []byte, q int) (string, int) {
	i := q
	if data[i] == '-' {
		i++
		if !jsonnum.IsDigit(at(data, i)) {
			return "invalid number: expected a digit after '-', found " + quoteAt(data, i), i
		}
	}
	if data[i] == '0' {
		i++
	} else {
		for jsonnum.IsDigit(at(data, i)) {
			i++
		}
	}
	if at(data, i) == '.' {
		i++
		if !jsonnum.IsDigit(at(data, i)) {
			return "invalid number: expected a digit after '.', found " + quoteAt(data, i), i
		}
		for jsonnum.IsDigit(at(data, i)) {
			i++
		}
	}
	if c := at(data, i); c == 'e' || c == 'E' {
		i++
		if c := at(data, i); c == '+' || c == '-' {
			i++
		}
		if !jsonnum.IsDigit(at(data, i)) {
			return "invalid number: expected a digit in the exponent, found " + quoteAt(data, i), i
		}
	}
	return "", 0
}

// explainLiteral finds the problem in the literal starting at q, or ""
// when it is spelled right.
func explainLiteral(data []byte, q int) (string, int) {
	lit := "null"
	switch data[q] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	}
	for k := 0; k < len(lit); k++ {
		if at(data, q+k) != lit[k] {
			return "expected " + lit + ", found " + quoteAt(data, q+k), q + k
		}
	}
	return "", 0
}

// quoteAt names the byte at data[i] for a message: 'x' for printable
// ASCII, U+000A for a control character, '…' (U+2026) for a valid
// non-ASCII character (only the code point when it does not print),
// byte \xe2 for a byte that is not UTF-8, and "end of input" past the end.
func quoteAt(data []byte, i int) string {
	if i >= len(data) {
		return "end of input"
	}
	c := data[i]
	switch {
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("U+%04X", c)
	case c == '\'':
		return `"'"`
	case c < utf8.RuneSelf:
		return "'" + string(rune(c)) + "'"
	}
	r, size := utf8.DecodeRune(data[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf("byte \\x%02x", c)
	case r == 0xfeff:
		return "U+FEFF (a byte order mark)"
	case !unicode.IsPrint(r):
		return fmt.Sprintf("U+%04X", r)
	}
	return fmt.Sprintf("'%c' (U+%04X)", r, r)
}

// quoteName quotes a member name for a message, shortened past 64 bytes.
func quoteName(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	b, _ := jsontext.AppendQuote(nil, s)
	return string(b)
}
