// Package jsonquote appends text as a JSON string, as
// jsontext.AppendQuote does, with a shorter path for the text most values
// are: printable ASCII without a quote or a backslash, which needs no
// escape.
//
// # Notes
//
//   - A result's columns and text values are quoted one by one, several
//     per statement: for those of a read by id (5 short strings),
//     jsontext.AppendQuote took about 950 of the 25,000 instructions the
//     host spends on the statement (callgrind); String about half.
package jsonquote

import "github.com/go-json-experiment/json/jsontext"

// plain marks the bytes a JSON string holds as they are: printable ASCII
// other than '"' and '\\'. Any other byte (a control character, one of a
// multi-byte UTF-8 sequence, or invalid UTF-8) takes jsontext's path.
var plain = func() (p [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		p[c] = c != '"' && c != '\\'
	}
	return p
}()

// String appends s to dst as a JSON string, byte for byte what
// jsontext.AppendQuote appends: control characters, '"' and '\\'
// escaped, invalid UTF-8 replaced by U+FFFD.
func String(dst []byte, s string) []byte {
	for _, c := range []byte(s) {
		if !plain[c] {
			dst, _ = jsontext.AppendQuote(dst, s)
			return dst
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// Bytes is [String] for text in a []byte. It is a copy of String rather
// than both one generic function: the generic one (T ~string | ~[]byte)
// took 0.63-0.65 of jsontext's time against these copies' 0.53-0.54
// (BenchmarkAppend, in turn, 2026-11-28).
func Bytes(dst, b []byte) []byte {
	for _, c := range b {
		if !plain[c] {
			dst, _ = jsontext.AppendQuote(dst, b)
			return dst
		}
	}
	dst = append(dst, '"')
	dst = append(dst, b...)
	return append(dst, '"')
}
