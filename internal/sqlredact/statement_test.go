package sqlredact

import (
	"encoding/hex"
	"strings"
	"testing"
)

// statementTests are TestStatement's cases, and FuzzStatement's seeds.
var statementTests = []struct {
	name, sql, want string
	d               Dialect
}{
	{"bound values stay placeholders", "SELECT id FROM users WHERE id = $1 AND name = $2", "SELECT id FROM users WHERE id = $1 AND name = $2", PostgreSQL},
	{"string", "SELECT * FROM t WHERE token = 'abc'", "SELECT * FROM t WHERE token = ?", PostgreSQL},
	{"doubled quote inside a string", "SELECT 'it''s secret', 1", "SELECT ?, ?", PostgreSQL},
	{"standard string keeps its backslash", `SELECT 'a\', 'secret'`, "SELECT ?, ?", PostgreSQL},
	{"numbers", "SELECT 42, -7, 3.25, .5, 1e10, 2.5E-3, 0x1F, 1_000_000", "SELECT ?, -?, ?, ?, ?, ?, ?, ?", PostgreSQL},
	{"hex number with e digits", "SELECT 0x1e-2", "SELECT ?-?", PostgreSQL},
	{"digits of an identifier stay", "SELECT c1 FROM t2 WHERE t2.c3 = $1", "SELECT c1 FROM t2 WHERE t2.c3 = $1", PostgreSQL},
	{"escape string", `SELECT E'it\'s \\ secret', e'x'`, "SELECT ?, ?", PostgreSQL},
	{"bit strings", "SELECT B'0101', X'1F'", "SELECT ?, ?", PostgreSQL},
	{"national and Unicode strings", `SELECT N'secret', U&'d\0061ta' UESCAPE '!'`, "SELECT ?, ? UESCAPE ?", PostgreSQL},
	{"Unicode identifier stays", `SELECT U&"d\0061ta" FROM t`, `SELECT U&"d\0061ta" FROM t`, PostgreSQL},
	{"dollar quotes", "SELECT $$secret$$, $tag$it's $$ secret$tag$, $1", "SELECT ?, ?, $1", PostgreSQL},
	{"dollar in an identifier", "SELECT a$b FROM t$1", "SELECT a$b FROM t$1", PostgreSQL},
	{"unterminated dollar quote", "SELECT $x$secret", "SELECT ?", PostgreSQL},
	{"casts stay", "SELECT $1::int, '5'::text", "SELECT $1::int, ?::text", PostgreSQL},
	{"jsonb operators stay", "SELECT doc ? 'key', doc ?| $1 FROM t", "SELECT doc ? ?, doc ?| $1 FROM t", PostgreSQL},
	{"quoted identifiers stay", `SELECT "Secret Col", "a""b" FROM "t"`, `SELECT "Secret Col", "a""b" FROM "t"`, PostgreSQL},
	{"line comment", "SELECT 1 -- token=secret\nFROM t", "SELECT ? \nFROM t", PostgreSQL},
	{"block comment", "SELECT /* secret */ a/*x*/FROM t", "SELECT  a FROM t", PostgreSQL},
	{"nested comment (PostgreSQL)", "SELECT /* a /* b */ secret */ 1", "SELECT  ?", PostgreSQL},
	{"comment does not nest (SQLite)", "SELECT /* a /* b */ c */ 1", "SELECT  c */ ?", SQLite},
	{"unterminated string", "SELECT 'secret", "SELECT ?", PostgreSQL},
	{"unterminated comment", "SELECT 1 /* secret", "SELECT ? ", PostgreSQL},
	{"unterminated quoted identifier", `SELECT "abc, 'secret'`, "SELECT ?", PostgreSQL},
	{"unterminated quoted identifier alone", `SELECT "abc`, "SELECT ?", PostgreSQL},
	{"unterminated SQLite identifier", `SELECT [abc`, "SELECT ?", SQLite},
	{"string prefixed by a longer name", "SELECT xE'abc'", "SELECT xE?", PostgreSQL},
	{"SQLite blob", "INSERT INTO t VALUES (x'00ff', X'AB')", "INSERT INTO t VALUES (?, ?)", SQLite},
	{"SQLite placeholders stay", "SELECT * FROM t WHERE a = ? AND b = ?2 AND c = $1 AND d = :name AND e = @id AND f = $v", "SELECT * FROM t WHERE a = ? AND b = ?2 AND c = $1 AND d = :name AND e = @id AND f = $v", SQLite},
	{"SQLite identifiers stay", "SELECT [a b], `c`, \"d\" FROM t", "SELECT [a b], `c`, \"d\" FROM t", SQLite},
	{"SQLite has no escape strings", `SELECT E'a\', 'secret'`, "SELECT E?, ?", SQLite},
	{"SQLite has no dollar quotes", "SELECT $a, 'x$a'", "SELECT $a, ?", SQLite},
	{"SQLite numbers", "SELECT 1, 2.5, 0xff, 1e3", "SELECT ?, ?, ?, ?", SQLite},
	{"no literal: returned as is", "BEGIN", "BEGIN", PostgreSQL},
	{"UTF-8 names stay", "SELECT prénom FROM t WHERE x = 'é'", "SELECT prénom FROM t WHERE x = ?", PostgreSQL},
}

func TestStatement(t *testing.T) {
	for _, tt := range statementTests {
		t.Run(tt.name, func(t *testing.T) {
			got := Statement(tt.d, tt.sql)
			if got != tt.want {
				t.Errorf("Statement(%q)\n got %q\nwant %q", tt.sql, got, tt.want)
			}
			if again := Statement(tt.d, got); again != got {
				t.Errorf("Statement of its own result %q changed it: %q", got, again)
			}
		})
	}
}

func TestDialectOf(t *testing.T) {
	for system, want := range map[string]Dialect{"sqlite": SQLite, "postgresql": PostgreSQL, "": PostgreSQL} {
		if got := DialectOf(system); got != want {
			t.Errorf("DialectOf(%q) = %d, want %d", system, got, want)
		}
	}
}

// marker is in every literal the fuzz test writes, and in nothing else
// it writes.
const marker = "Zq7Secret"

// literal writes, as a token of dialect d, a literal of kind k (or a
// comment) whose content holds marker and content, escaped so that it
// stays one token; for a number, the digits of content.
func literal(d Dialect, k byte, content string) string {
	text := marker + content
	switch k % 8 {
	case 0:
		return "'" + strings.ReplaceAll(text, "'", "''") + "'"
	case 1:
		return "x'" + hex.EncodeToString([]byte(text)) + "'"
	case 2:
		digits := "90817263545"
		for _, c := range content {
			if '0' <= c && c <= '9' {
				digits += string(c)
			}
		}
		return digits
	case 3:
		return "-- " + strings.NewReplacer("\n", " ", "\r", " ").Replace(text) + "\n"
	case 4:
		return "/* " + strings.ReplaceAll(text, "*", "+") + " */"
	case 5:
		if d == SQLite {
			return "X'" + strings.ToUpper(hex.EncodeToString([]byte(text))) + "'"
		}
		return "E'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(text) + "'"
	case 6:
		if d == SQLite {
			return "'" + strings.ReplaceAll(text, "'", "''") + "'"
		}
		tag := "$q$"
		for strings.Contains(text, tag) || strings.HasSuffix(text, "$q") || strings.HasSuffix(text, "$") {
			tag = "$q" + tag[1:]
			text += " "
		}
		return tag + text + tag
	default:
		if d == SQLite {
			return "2.5e-3"
		}
		return "U&'" + strings.ReplaceAll(text, "'", "''") + "'"
	}
}

// others are the tokens other than literals the fuzz test writes.
var others = []string{"SELECT", "FROM", "t1", `"Col ""x"""`, "$1", "?", ":name", "(", ")", ",", "=", "::int", ".", "-", "/", "*", "a$b", "[c]", "`d`", "U&\"e\""}

// FuzzStatement writes statements of tokens the fuzzer picks, with
// literals and comments that hold a marker, and checks that Statement
// leaves none of them, and that it never panics, never lengthens a
// statement and is its own fixed point on anything.
func FuzzStatement(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, "it's", false)
	f.Add([]byte{16, 0, 200, 5, 6, 6, 3}, `a\'b$q$*/`, true)
	f.Add([]byte{13, 4, 30, 14}, "$$\n*/ /*", false)
	for _, tt := range statementTests {
		f.Add([]byte{0}, tt.sql, tt.d == SQLite)
	}
	f.Fuzz(func(t *testing.T, ops []byte, content string, sqlite bool) {
		if len(ops) > 64 || len(content) > 256 {
			return // longer inputs find nothing more, and slow the fuzzer
		}
		d := PostgreSQL
		if sqlite {
			d = SQLite
		}
		var sql strings.Builder
		for i, op := range ops {
			if i > 0 {
				sql.WriteString([]string{" ", "\n", "\t "}[int(op)%3])
			}
			if op < 128 {
				sql.WriteString(literal(d, op, content))
			} else {
				sql.WriteString(others[int(op)%len(others)])
			}
		}
		got := Statement(d, sql.String())
		if strings.Contains(got, marker) || strings.Contains(got, "90817263545") || strings.Contains(strings.ToLower(got), strings.ToLower(hex.EncodeToString([]byte(marker)))) {
			t.Errorf("Statement(%q) = %q: a literal's content is left", sql.String(), got)
		}
		check(t, d, sql.String())
		check(t, d, content)
	})
}

// check checks what Statement does to any text: no panic, no longer
// result, the same result again.
func check(t *testing.T, d Dialect, s string) {
	got := Statement(d, s)
	if len(got) > len(s) {
		t.Errorf("Statement(%q) = %q, longer than the statement", s, got)
	}
	if again := Statement(d, got); again != got {
		t.Errorf("Statement(%q) = %q, and of that %q", s, got, again)
	}
}

// BenchmarkStatement is what a span's statement costs to redact: one
// that binds its values and one with literals. The host redacts a statement once for a call's
// guest that runs it again (appdb.Session).
func BenchmarkStatement(b *testing.B) {
	for _, bc := range []struct{ name, sql string }{
		{"bound", "SELECT id, name, email FROM users WHERE id = $1"},
		{"literals", "SELECT id, name FROM users WHERE email = 'ada@example.com' AND age > 36 /* admin */ LIMIT 10"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Statement(PostgreSQL, bc.sql)
			}
		})
	}
}
