package database

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// SQLite reads $1 as a named parameter: at prepare it looks each one up
// among the names seen before it, and sqlite3_bind_parameter_name scans
// the same list, so that a statement of n parameters written $1...$n
// costs n² steps twice (16000 of them took over a second). ?N is a
// number, which SQLite takes as the parameter's index at once. So the
// host writes a guest's $N as ?N before it prepares the statement, the
// same length, and binds argument N to index N without asking SQLite the
// names (sqliteNumbered, bindNumbered).

// sqliteNumbered reads the parameters of sql, an SQLite statement, and
// appends their numbers to nums in their order of appearance: ok when
// each is numbered, $N or ?N (N from 1, as PostgreSQL numbers them), or
// each is a plain ? (1, 2... in their order). With rewrite it returns sql
// with each $N written ?N as text, otherwise sql. Plain and numbered
// parameters together, a named parameter (:name, @name, $name) or a $N
// SQLite reads as more ($1abc, $1(x), $1::x) are not ok: [bindAll] then
// asks SQLite each parameter's name.
//
// It skips what SQLite does not read as tokens: strings ('$1'),
// quoted identifiers ("a$1", `a`, [a]) and comments (-- and /* */); a
// $ within an identifier (a$1) is the identifier's.
func sqliteNumbered(sql string, nums []int, rewrite bool) (text string, _ []int, ok bool) {
	var b []byte // sql's bytes, once a $ is rewritten
	plain, numbered := 0, false
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipSQLiteQuoted(sql, i+1, c)
		case c == '[':
			i = skipPast(sql, i+1, "]")
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			i = skipPast(sql, i+2, "\n")
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			i = skipPast(sql, i+2, "*/")
		case c == '?' || c == '$':
			j := i + 1
			for j < len(sql) && '0' <= sql[j] && sql[j] <= '9' {
				j++
			}
			if c == '?' && j == i+1 {
				// A plain ?: the argument after the last plain ?'s.
				plain++
				nums = append(nums, plain)
				i = j
				continue
			}
			n, err := strconv.Atoi(sql[i+1 : j])
			if err != nil || n < 1 || c == '$' && j < len(sql) && (sqliteIDChar(sql[j]) || sql[j] == '(' || strings.HasPrefix(sql[j:], "::")) {
				return sql, nums, false
			}
			numbered = true
			nums = append(nums, n)
			if c == '$' && rewrite {
				if b == nil {
					b = []byte(sql)
				}
				b[i] = '?'
			}
			i = j
		case (c == ':' || c == '@' || c == '#') && i+1 < len(sql) && sqliteIDChar(sql[i+1]):
			return sql, nums, false
		case sqliteIDChar(c):
			// A word: a keyword, an identifier (whose $ are its own), a
			// number.
			for i++; i < len(sql) && sqliteIDChar(sql[i]); i++ {
			}
		default:
			i++
		}
	}
	if plain > 0 && numbered {
		// SQLite numbers a plain ? after the largest number before it.
		return sql, nums, false
	}
	if b != nil {
		return string(b), nums, true
	}
	return sql, nums, true
}

// sqliteIDChar reports whether SQLite's tokenizer reads c within an
// identifier: letters, digits, _, $ and the bytes of UTF-8's other
// characters.
func sqliteIDChar(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// skipSQLiteQuoted returns the index past the quote q that closes the
// text from i (a doubled quote is one in the text), or len(sql).
func skipSQLiteQuoted(sql string, i int, q byte) int {
	for {
		j := strings.IndexByte(sql[i:], q)
		if j < 0 {
			return len(sql)
		}
		i += j + 1
		if i == len(sql) || sql[i] != q {
			return i
		}
		i++
	}
}

// skipPast returns the index past the first end at or after i, or
// len(sql).
func skipPast(sql string, i int, end string) int {
	if j := strings.Index(sql[i:], end); j >= 0 {
		return i + j + len(end)
	}
	return len(sql)
}

// bindNumbered binds args to stmt, whose parameters are the numbers nums
// (sqliteNumbered) written ?N, so that argument N is index N: without
// asking SQLite a name. It reports false, having bound nothing, when the
// statement's count of parameters is not the largest number (a
// parameter sqliteNumbered did not see): bindAll's way then holds.
func bindNumbered(ctx context.Context, stmt *sqlite3.Stmt, args []any, nums []int) (bool, error) {
	most := 0
	for _, n := range nums {
		most = max(most, n)
	}
	if stmt.BindCount() != most {
		return false, nil
	}
	for _, n := range nums {
		if n > len(args) {
			return true, Errorf(CodeSyntax, fmt.Sprintf("the statement takes parameter %d, but %d were given", n, len(args)))
		}
	}
	if !inOrder(nums, len(args)) {
		used := make([]bool, len(args))
		for _, n := range nums {
			used[n-1] = true
		}
		for i, u := range used {
			if !u {
				return true, Errorf(CodeSyntax, fmt.Sprintf("%d parameters were given, but the statement does not use parameter %d", len(args), i+1))
			}
		}
	}
	for i, a := range args {
		if err := bindSQLite(stmt, i+1, a); err != nil {
			return true, sqliteError(ctx, err)
		}
	}
	return true, nil
}

// inOrder reports whether nums are 1...n, each once in order: the
// statement uses each of n arguments.
func inOrder(nums []int, n int) bool {
	if len(nums) != n {
		return false
	}
	for i, k := range nums {
		if k != i+1 {
			return false
		}
	}
	return true
}

// sqliteColumnAsWritten is the name of a column as the guest wrote it:
// SQLite names a column without AS by its expression's text, which is
// prepared's, where the guest's sql wrote $N as ?N (sqliteNumbered); the
// name is then sql's text of the first span of prepared that is the name
// and held a $N. "SELECT $1" is named "$1", as written.
func sqliteColumnAsWritten(name, prepared, sql string) string {
	if len(prepared) != len(sql) {
		return name
	}
	for at := 0; ; {
		i := strings.Index(prepared[at:], name)
		if i < 0 {
			return name
		}
		at += i
		if sql[at:at+len(name)] != name {
			return sql[at : at+len(name)]
		}
		at++
	}
}
