// Package logtext bounds the text a client controls (a path, a query, a
// header value) in the host's log lines: a 60 KB path must not become a
// 60 KB log line, at every request, in every log the operator keeps.
package logtext

import (
	"strconv"
	"unicode/utf8"
)

// MaxBytes is the most bytes of one client-controlled value a log line
// carries: 256.
const MaxBytes = 256

// Cut returns s when it has at most MaxBytes bytes; otherwise its first
// MaxBytes bytes or fewer, cut at a UTF-8 boundary, followed by how much
// was left out.
//
//	Cut("/api/users")                    // "/api/users"
//	Cut("/" + strings.Repeat("a", 1000)) // "/aaa…a…[+745 bytes]", 256 bytes of the path kept
func Cut(s string) string {
	if len(s) <= MaxBytes {
		return s
	}
	n := MaxBytes
	for n > MaxBytes-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…[+" + strconv.Itoa(len(s)-n) + " bytes]"
}
