package postgres

import "strings"

// statements splits a migration script into its statements, at the
// semicolons outside strings ('...', E'...' with backslash escapes),
// quoted names ("..."), comments (-- to a line feed or a carriage
// return, /* */ nested) and dollar-quoted bodies ($$...$$,
// $tag$...$tag$), as PostgreSQL reads them. Each is trimmed; empty ones (only space and
// comments) are left out, since the server runs nothing for them.
//
// It names the statement that failed in a script the server ran whole,
// and finds a script's transaction statements (scriptTransaction); the
// statements themselves are never run one by one. A body PostgreSQL 14
// reads without quotes (CREATE FUNCTION or PROCEDURE ... BEGIN ATOMIC ...
// END) is not split at its semicolons, as psql does not split it: its
// END is no statement of the script.
func statements(script string) []string {
	var out []string
	for _, sp := range spans(script) {
		out = append(out, strings.TrimSpace(script[sp[0]:sp[1]]))
	}
	return out
}

// statementAt is the statement of script around the byte at pos, or ""
// when pos is in none (space or comments between statements).
func statementAt(script string, pos int) string {
	for _, sp := range spans(script) {
		if sp[0] <= pos && pos < sp[1] {
			return strings.TrimSpace(script[sp[0]:sp[1]])
		}
	}
	return ""
}

// spans are the byte ranges of script's statements, as [statements]
// splits them, without the semicolons.
func spans(script string) [][2]int {
	var out [][2]int
	start := 0
	blank := true // the current statement holds only space and comments so far
	var body routineBody
	flush := func(end int) {
		if !blank {
			out = append(out, [2]int{start, end})
		}
		start, blank, body = end+1, true, routineBody{}
	}
	for i := 0; i < len(script); i++ {
		c := script[i]
		switch {
		case c == ';' && body.depth == 0:
			flush(i)
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			continue
		case c == '-' && strings.HasPrefix(script[i:], "--"):
			if j := strings.IndexAny(script[i:], "\r\n"); j >= 0 { // PostgreSQL ends it at either
				i += j
			} else {
				i = len(script)
			}
			continue
		case c == '/' && strings.HasPrefix(script[i:], "/*"):
			depth := 0
			for ; i < len(script); i++ {
				if strings.HasPrefix(script[i:], "/*") {
					depth++
					i++
				} else if strings.HasPrefix(script[i:], "*/") {
					depth--
					i++
					if depth == 0 {
						break
					}
				}
			}
			continue
		}
		blank = false
		switch {
		case c == '\'':
			escapes := i > 0 && (script[i-1] == 'E' || script[i-1] == 'e') && (i < 2 || !isIdent(script[i-2]))
			i = quoted(script, i, '\'', escapes)
		case c == '"':
			i = quoted(script, i, '"', false)
		case c == '$' && (i == 0 || !isIdent(script[i-1])):
			if tag, ok := dollarTag(script[i:]); ok {
				if j := strings.Index(script[i+len(tag):], tag); j >= 0 {
					i += len(tag) + j + len(tag) - 1
				} else {
					i = len(script)
				}
			}
		case c == '(':
			body.parens++
		case c == ')':
			body.parens = max(body.parens-1, 0)
		case (c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80) && (i == 0 || !isIdent(script[i-1])):
			j := i
			for j < len(script) && isIdent(script[j]) {
				j++
			}
			body.word(script[i:j])
			i = j - 1
		}
	}
	if start < len(script) {
		flush(len(script))
	}
	return out
}

// routineBody follows the words of a statement, as psql does, to tell
// whether a semicolon ends it: not within the body of CREATE [OR REPLACE]
// FUNCTION or PROCEDURE written BEGIN ATOMIC ... END, where depth counts
// the BEGINs not yet ended (and the CASEs within, which end with END too).
type routineBody struct {
	words  int
	lead   [4]byte // the initials of the first words: c, o, r, f, p or 0
	parens int
	depth  int
}

// word notes the next word of the statement, outside strings and
// comments.
func (b *routineBody) word(w string) {
	if b.words < len(b.lead) {
		for _, k := range []string{"create", "or", "replace", "function", "procedure"} {
			if strings.EqualFold(w, k) {
				b.lead[b.words] = k[0]
			}
		}
	}
	b.words++
	l := b.lead
	routine := l[0] == 'c' && (l[1] == 'f' || l[1] == 'p' || l[1] == 'o' && l[2] == 'r' && (l[3] == 'f' || l[3] == 'p'))
	if !routine || b.parens > 0 {
		return
	}
	switch {
	case strings.EqualFold(w, "BEGIN"):
		b.depth++
	case strings.EqualFold(w, "CASE") && b.depth > 0:
		b.depth++
	case strings.EqualFold(w, "END") && b.depth > 0:
		b.depth--
	}
}

// quoted is the index of the quote that closes the one at script[open];
// a doubled quote is one inside, and with escapes so is one after a
// backslash. The end of the script when it is not closed.
func quoted(script string, open int, q byte, escapes bool) int {
	for i := open + 1; i < len(script); i++ {
		switch {
		case escapes && script[i] == '\\':
			i++
		case script[i] == q && i+1 < len(script) && script[i+1] == q:
			i++
		case script[i] == q:
			return i
		}
	}
	return len(script)
}

// dollarTag is the tag that opens a dollar-quoted string at the start of
// s ($$ or $name$), if one does.
func dollarTag(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '$':
			return s[:i+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || (i > 1 && c >= '0' && c <= '9'):
		default:
			return "", false
		}
	}
	return "", false
}

// isIdent reports whether c may be part of an identifier, before which a
// quote or a dollar sign is not the start of a string.
func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
