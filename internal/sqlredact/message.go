package sqlredact

import "strings"

// Message returns a database's error message with the values it quotes
// replaced by "?": the text from a double or single quote to the last
// quote of its kind in the message (databases do not escape a quote
// inside the value they quote, so a value's own quotes cannot end it
// early; a single quote that follows a letter or a digit is an
// apostrophe, "can't", and opens none), and each byte sequence written
// 0x... . What a database quotes in its messages is a value (a
// bound parameter's, a literal's) or a name (a table's, a constraint's);
// Message cannot tell them apart, so a driver that can keeps the names
// itself (database/postgres does, by SQLSTATE).
//
//	Message(`near "secret": syntax error`)                          // near ?: syntax error
//	Message(`invalid byte sequence for encoding "UTF8": 0xc3 0x28`) // invalid byte sequence for encoding ?: ? ?
func Message(msg string) string {
	if !strings.ContainsAny(msg, `"'`) && !strings.Contains(msg, "0x") {
		return msg
	}
	var b strings.Builder
	b.Grow(len(msg))
	for i := 0; i < len(msg); {
		c := msg[i]
		switch {
		case c == '"' || c == '\'' && (i == 0 || !isAlnum(msg[i-1])):
			i = skipQuoted(msg, i)
			b.WriteByte('?')
		case c == '0' && i+2 < len(msg) && msg[i+1]|0x20 == 'x' && isHex(msg[i+2]) && (i == 0 || !isAlnum(msg[i-1])):
			j := i + 2
			for j < len(msg) && isHex(msg[j]) {
				j++
			}
			b.WriteByte('?')
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// skipQuoted returns the index after the last quote of the kind that
// msg[i] is, or the end when there is none after it.
func skipQuoted(msg string, i int) int {
	if j := strings.LastIndexByte(msg, msg[i]); j > i {
		return j + 1
	}
	return len(msg)
}

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }
