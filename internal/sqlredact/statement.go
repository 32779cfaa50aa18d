// Package sqlredact takes the values out of SQL text and database
// messages before they leave a guest's call for traces and logs: a
// statement's literals (strings, numbers, blobs, dollar-quoted and
// escape strings) and comments become "?" ([Statement]), as
// OpenTelemetry's database conventions ask of db.query.text, and the
// values a database quotes in its error message become "?" too
// ([Message]). Parameter placeholders ($1, ?, :name) and identifiers,
// quoted ones included, stay: they are the statement's shape, not its
// data.
//
//	sqlredact.Statement(sqlredact.PostgreSQL, "SELECT * FROM users WHERE token = 'abc' AND id = $1")
//	// SELECT * FROM users WHERE token = ? AND id = $1
//
// # Notes
//
//   - PostgreSQL's strings are read as standard_conforming_strings=on
//     says (the default since PostgreSQL 9.1): a backslash escapes
//     nothing in '...', only in E'...'. A server with the setting off
//     reads 'a\'b' as one string where Statement sees two tokens.
//   - Neither function parses SQL: they tokenize it as far as the
//     boundaries of literals and comments, and text they cannot close
//     (an unterminated string, comment or quoted identifier) is
//     replaced to its end.
package sqlredact

import "strings"

// Dialect is the SQL dialect a statement is written in: where its
// literals begin and end.
type Dialect uint8

const (
	// PostgreSQL reads E'...' escape strings, $tag$...$tag$ dollar
	// quotes, B'...' and X'...' bit strings, U&'...' Unicode strings,
	// nested /* */ comments and $1 placeholders.
	PostgreSQL Dialect = iota
	// SQLite reads X'...' blobs, [name] and `name` identifiers,
	// non-nesting comments and the placeholders ?, ?NNN, :name, @name
	// and $name.
	SQLite
)

// DialectOf is the dialect of a database of system, as
// OpenTelemetry's db.system names it (database.DB.System): SQLite for
// "sqlite", PostgreSQL otherwise.
func DialectOf(system string) Dialect {
	if system == "sqlite" {
		return SQLite
	}
	return PostgreSQL
}

// Statement returns sql with each literal replaced by "?" and each
// comment removed (a space is left where one separated two tokens):
// string literals, numbers, blobs and bit strings, PostgreSQL's escape,
// Unicode and dollar-quoted strings. Keywords, identifiers (quoted ones
// too), operators, placeholders and white space stay. The result is
// never longer than sql, and Statement of it is itself.
//
//	Statement(SQLite, "INSERT INTO t VALUES (x'00ff', 42, ?2) -- seed")
//	// INSERT INTO t VALUES (?, ?, ?2)
func Statement(d Dialect, sql string) string {
	if !hasLiteral(sql) {
		return sql
	}
	var b strings.Builder
	b.Grow(len(sql))
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'':
			i = skipString(sql, i, false)
			b.WriteByte('?')
		case c == '"':
			i = copyQuoted(&b, sql, i, '"')
		case d == SQLite && c == '[':
			i = copyQuoted(&b, sql, i, ']')
		case d == SQLite && c == '`':
			i = copyQuoted(&b, sql, i, '`')
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			i = skipLineComment(sql, i)
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			i = skipBlockComment(sql, i, d == PostgreSQL)
			if b.Len() > 0 && !isSpace(lastByte(&b)) && i < len(sql) && !isSpace(sql[i]) {
				b.WriteByte(' ')
			}
		case c == '$' && d == PostgreSQL:
			i = dollar(&b, sql, i)
		case d == SQLite && (c == '?' || c == '$' || c == ':' || c == '@'):
			// A placeholder: ?, ?NNN, $NNN, $name, :name, @name.
			j := i + 1
			for j < len(sql) && isIdentPart(sql[j]) {
				j++
			}
			b.WriteString(sql[i:j])
			i = j
		case isDigit(c) || c == '.' && i+1 < len(sql) && isDigit(sql[i+1]):
			i = skipNumber(sql, i)
			b.WriteByte('?')
		case isIdentStart(c):
			i = word(&b, sql, i, d)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// hasLiteral reports whether sql may hold a literal, a comment or a
// quoted identifier (which may be unterminated): a statement with none
// (most of those that bind their values) is returned as it is, without
// a copy.
func hasLiteral(sql string) bool {
	return strings.ContainsAny(sql, "'0123456789-/$`\"[")
}

// word copies the identifier or keyword at sql[i] (or the placeholder
// :name, @name, $name, whose name it is), or replaces it by "?" with
// the string it prefixes: PostgreSQL's E'...', B'...', X'...', N'...',
// U&'...', SQLite's X'...'. It returns the index after what it read.
func word(b *strings.Builder, sql string, i int, d Dialect) int {
	j := i
	for j < len(sql) && isIdentPart(sql[j]) {
		j++
	}
	w := sql[i:j]
	if j < len(sql) && sql[j] == '\'' && len(w) == 1 {
		switch w[0] | 0x20 { // lower case
		case 'x':
			b.WriteByte('?')
			return skipString(sql, j, false)
		case 'e', 'b', 'n':
			if d == PostgreSQL {
				b.WriteByte('?')
				return skipString(sql, j, w[0]|0x20 == 'e')
			}
		}
	}
	if d == PostgreSQL && len(w) == 1 && w[0]|0x20 == 'u' && j+1 < len(sql) && sql[j] == '&' && sql[j+1] == '\'' {
		b.WriteByte('?')
		return skipString(sql, j+1, false)
	}
	b.WriteString(w)
	return j
}

// skipString returns the index after the string literal whose opening
// quote is sql[i]: a doubled quote is one quote of its text, and, when
// escapes is set (PostgreSQL's E'...'), so is a backslash's next byte.
// An unterminated string runs to the end.
func skipString(sql string, i int, escapes bool) int {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if escapes {
				j++
			}
		case '\'':
			if j+1 < len(sql) && sql[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// copyQuoted copies the quoted identifier whose opening quote is sql[i]
// and closes with end (a doubled end is part of the name), and returns
// the index after it. An unterminated one is replaced by "?" to the end:
// it is no name, and may be a literal the statement mistyped.
func copyQuoted(b *strings.Builder, sql string, i int, end byte) int {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] != end {
			continue
		}
		if end != ']' && j+1 < len(sql) && sql[j+1] == end {
			j++
			continue
		}
		b.WriteString(sql[i : j+1])
		return j + 1
	}
	b.WriteByte('?')
	return len(sql)
}

// skipLineComment returns the index of the line end that ends the
// comment -- at sql[i] (the line end stays), or the end.
func skipLineComment(sql string, i int) int {
	for j := i + 2; j < len(sql); j++ {
		if sql[j] == '\n' || sql[j] == '\r' {
			return j
		}
	}
	return len(sql)
}

// skipBlockComment returns the index after the comment /* ... */ at
// sql[i]; nested comments nest (PostgreSQL) or not (SQLite). An
// unterminated one runs to the end.
func skipBlockComment(sql string, i int, nested bool) int {
	depth := 0
	for j := i; j+1 < len(sql); j++ {
		switch {
		case sql[j] == '/' && sql[j+1] == '*' && (nested || depth == 0):
			depth++
			j++
		case sql[j] == '*' && sql[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(sql)
}

// dollar reads PostgreSQL's '$' at sql[i]: a placeholder $N (copied),
// a dollar-quoted string $tag$...$tag$ (replaced by "?"; unterminated,
// to the end), or a lone '$' (copied).
func dollar(b *strings.Builder, sql string, i int) int {
	j := i + 1
	if j < len(sql) && isDigit(sql[j]) {
		for j < len(sql) && isDigit(sql[j]) {
			j++
		}
		b.WriteString(sql[i:j])
		return j
	}
	if j < len(sql) && isIdentStart(sql[j]) {
		for j < len(sql) && isIdentPart(sql[j]) && sql[j] != '$' {
			j++
		}
	}
	if j >= len(sql) || sql[j] != '$' {
		b.WriteByte('$')
		return i + 1
	}
	tag := sql[i : j+1]
	b.WriteByte('?')
	if k := strings.Index(sql[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag)
	}
	return len(sql)
}

// skipNumber returns the index after the number at sql[i]: digits
// (with PostgreSQL's '_' separators), a fraction, an exponent, the
// 0x, 0o and 0b forms, and the letters a malformed one runs into.
func skipNumber(sql string, i int) int {
	j := i
	for j < len(sql) && (isIdentPart(sql[j]) || sql[j] == '.') {
		if (sql[j] == 'e' || sql[j] == 'E') && j+1 < len(sql) && (sql[j+1] == '+' || sql[j+1] == '-') && !isHexNumber(sql[i:j]) {
			j++ // the exponent's sign
		}
		j++
	}
	return j
}

// isHexNumber reports whether n begins a hexadecimal number (0x...),
// whose 'e' is a digit, not an exponent.
func isHexNumber(n string) bool {
	return len(n) >= 2 && n[0] == '0' && (n[1] == 'x' || n[1] == 'X')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isIdentStart reports whether c may begin an identifier: a letter, '_',
// or a byte of a multi-byte UTF-8 character.
func isIdentStart(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_' || c >= 0x80
}

// isIdentPart reports whether c may continue an identifier: '$' too, in
// both dialects.
func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func lastByte(b *strings.Builder) byte {
	s := b.String()
	return s[len(s)-1]
}
