package database_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteFuncsStopAtDeadline: instr, replace, trim and REGEXP over a
// long value with a long pattern answer, or stop, by the statement's
// deadline of 100 ms. SQLite's own run within one step of the statement,
// which its interrupt does not reach: over these values, 3 to 8 s each
// on the machine they were written on, and then the statement failed.
func TestSQLiteFuncsStopAtDeadline(t *testing.T) {
	db := openSQLite(t, 1)
	a4M := strings.Repeat("a", 4<<20)
	a10K := strings.Repeat("a", 10000) + "b"
	a64K := strings.Repeat("a", 64<<10)
	set := strings.Repeat("b", 1000) + "a"
	a8K := strings.Repeat("a", 8<<10)
	re := strings.Repeat("a?", 250) + "b"
	var wide strings.Builder // 50000 characters of 4 bytes, all starting 0xf0
	for r := rune(0x10000); r < 0x10000+50000; r++ {
		wide.WriteRune(r)
	}
	a1M := strings.Repeat("a", 1<<20)
	b200 := strings.Repeat("b", 200)
	for _, c := range []struct {
		sql  string
		args []any
	}{
		{"SELECT instr($1, $2)", []any{a4M, a10K}},
		{"SELECT instr(CAST($1 AS BLOB), CAST($2 AS BLOB))", []any{a4M, a10K}},
		{"SELECT length(replace($1, $2, 'x'))", []any{a4M, a10K}},
		// A pattern found at every byte: 200 MiB built.
		{"SELECT length(replace($1, 'a', $2))", []any{a1M, b200}},
		{"SELECT length(trim($1, $2))", []any{a64K, set}},
		{"SELECT length(ltrim($1, $2))", []any{a64K, set}},
		{"SELECT length(rtrim($1, $2))", []any{a64K, set}},
		// A set of many characters with one first byte.
		{"SELECT length(trim($1, $2))", []any{"x", wide.String()}},
		{"SELECT $1 REGEXP $2", []any{a8K, re}},
		{"SELECT regexpi($2, $1)", []any{a8K, re}},
	} {
		t.Run(c.sql, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := db.Exec(ctx, c.sql, c.args)
			took := time.Since(start)
			if err != nil && !strings.Contains(err.Error(), "the statement was stopped: context deadline exceeded") {
				t.Fatalf("got %v, want an answer or the statement stopped at its deadline", err)
			}
			// The deadline's 100 ms and a second for a loaded machine:
			// SQLite's own took seconds more.
			if took > 1100*time.Millisecond {
				t.Fatalf("the statement stopped %v after it started, past its deadline of 100 ms", took)
			}
			if got, err := query(t, db, "SELECT instr('abc', 'c'), 'abc' REGEXP 'b'", ""); err != nil || !strings.Contains(got, `"rows":[[3,1]]`) {
				t.Fatalf("the connection after the stop: %s %v", got, err)
			}
		})
	}
}

// TestSQLiteFuncsMatchSQLite: the host's instr, replace, trim, ltrim,
// rtrim, regexp and regexpi answer as SQLite's own do (a connection of
// the driver that defines none of them), the type and the bytes of the
// result or the error, for random arguments of text (characters of
// several bytes, bytes that are not UTF-8, NUL, empty), blobs, numbers
// and NULL, and random patterns.
func TestSQLiteFuncsMatchSQLite(t *testing.T) {
	db := openSQLite(t, 1)
	plain, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	atoms := []string{"a", "b", "ab", "A", " ", "x", "é", "É", "\xc3", "\xa9", "\x80", "€", "\U0001F600", "\xff", "\xed\xa0\x80", "\x00", "%", "\\"}
	reAtoms := []string{"a", "b", "A", ".", "*", "+", "?", "|", "(", ")", "[", "]", "^", "$", "-", "\\", "{", "}", ",", "0", "1", "2",
		"\\w", "\\W", "\\d", "\\D", "\\s", "\\S", "\\b", "\\x41", "\\u00e9", "\\t", "\\.", "\\q", "[:", "é", "\xff", "\xc3", " ", ".*", "a{2,3}", "(a|b)", "[a-z]", "[^b]"}
	text := func(r *rand.Rand, from []string) string {
		var b strings.Builder
		for range r.IntN(7) {
			b.WriteString(from[r.IntN(len(from))])
		}
		return b.String()
	}
	// arg is a random argument: mostly text, else a blob, a number or
	// NULL.
	arg := func(r *rand.Rand, from []string) any {
		switch n := r.IntN(20); {
		case n < 13:
			return text(r, from)
		case n < 17:
			return []byte(text(r, from))
		case n < 18:
			return int64(r.IntN(30) - 10)
		case n < 19:
			return 1.5
		default:
			return nil
		}
	}
	calls := []struct {
		expr string
		args int
		from []string
	}{
		{"instr($1, $2)", 2, atoms},
		{"replace($1, $2, $3)", 3, atoms},
		{"trim($1, $2)", 2, atoms},
		{"ltrim($1, $2)", 2, atoms},
		{"rtrim($1, $2)", 2, atoms},
		{"regexp($1, $2)", 2, reAtoms},
		{"$2 REGEXP $1", 2, reAtoms},
		{"regexpi($1, $2)", 2, reAtoms},
	}
	r := rand.New(rand.NewPCG(3, 4))
	n := 40000
	if testing.Short() {
		n = 8000
	}
	seen := map[string]map[string]int{}
	for i := range n {
		c := calls[i%len(calls)]
		args := make([]any, c.args)
		for j := range args {
			args[j] = arg(r, c.from)
		}
		if c.from[0] == reAtoms[0] {
			args[1] = arg(r, atoms)
		} else if r.IntN(3) == 0 {
			// A pattern taken from the string, so that it is found.
			if s, ok := args[0].(string); ok && len(s) > 0 {
				a := r.IntN(len(s))
				args[1] = s[a : a+r.IntN(len(s)-a+1)]
			}
		}
		sql := "SELECT typeof(v), hex(v) FROM (SELECT " + c.expr + " AS v)"
		want := plainValue(t, plain, sql, args)
		got := hostValue(t, db, sql, args)
		if got != want {
			t.Fatalf("%s with %#v: got %s, SQLite's own %s", c.expr, args, got, want)
		}
		if seen[c.expr] == nil {
			seen[c.expr] = map[string]int{}
		}
		seen[c.expr][want]++
	}
	for expr, results := range seen {
		// instr: 0, 1 and more; regexp: 1, 0, NULL and errors.
		if len(results) < 4 || results[`"null",""`] > n/len(calls)/2 {
			t.Errorf("%s: %d results, %d of them NULL: too few to compare", expr, len(results), results[`"null",""`])
		}
	}
	// Patterns at and past the bounds on a pattern's length and on its
	// compiled ops.
	for _, args := range [][]any{
		{strings.Repeat("a", 50000), "a"},
		{strings.Repeat("a", 50001), "a"},
		{"a{12537}", "a"},
		{"a{12538}", "a"},
		{"(a{100}){100}", "a"},
		{strings.Repeat("(a|b)", 2000), "ab"},
		{strings.Repeat("(a|b)", 5000), "ab"},
		{"x{0,12000}", "y"},
	} {
		sql := "SELECT typeof(v), hex(v) FROM (SELECT regexp($1, $2) AS v)"
		if got, want := hostValue(t, db, sql, args), plainValue(t, plain, sql, args); got != want {
			t.Errorf("regexp of a pattern of %d bytes: got %s, SQLite's own %s", len(args[0].(string)), got, want)
		}
	}
	// Sets of more characters with one first byte than trimSpan keeps
	// each once: duplicates, the one that matches after them, a
	// character that is the start of another.
	var many strings.Builder
	for c := rune(0x1F600); c < 0x1F600+40; c++ {
		many.WriteRune(c)
	}
	for _, args := range [][]any{
		{"\U0001F627\U0001F600xy\U0001F627\U0001F601", many.String()},
		{"\U0001F627\U0001F627x\U0001F627", strings.Repeat("\U0001F600", 20) + "\U0001F627" + strings.Repeat("\U0001F601", 20)},
		{"\xf0\x9f\x98\xa7\xf0\x9f\x98x\xf0\x9f", strings.Repeat("\xf0\x9f\x98\xa0", 30) + "\xf0\x9f" + "\xf0\x9f\x98\xa7" + "\xf0\x9f\x98"},
		{"\xc3\xa9\xc3\xa9\xc3", strings.Repeat("\xc3\x80", 17) + "\xc3" + "\xc3\xa9" + many.String()},
	} {
		for _, f := range []string{"trim", "ltrim", "rtrim"} {
			sql := "SELECT typeof(v), hex(v) FROM (SELECT " + f + "($1, $2) AS v)"
			if got, want := hostValue(t, db, sql, args), plainValue(t, plain, sql, args); got != want {
				t.Errorf("%s of %q by a set of %d bytes: got %s, SQLite's own %s", f, args[0], len(args[1].(string)), got, want)
			}
		}
	}
}

// plainValue is the row of sql with args on conn, or its error.
func plainValue(t *testing.T, conn *sqlite3.Conn, sql string, args []any) string {
	t.Helper()
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for i := 1; i <= stmt.BindCount(); i++ {
		// "$2" is a name to SQLite: the host binds it as ?2.
		var k int
		if _, err := fmt.Sscanf(stmt.BindName(i), "$%d", &k); err != nil {
			t.Fatal(err)
		}
		switch a := args[k-1].(type) {
		case string:
			err = stmt.BindText(i, a)
		case []byte:
			err = stmt.BindBlob(i, a)
		case int64:
			err = stmt.BindInt64(i, a)
		case float64:
			err = stmt.BindFloat(i, a)
		default:
			err = stmt.BindNull(i)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !stmt.Step() {
		err := stmt.Err()
		msg := err.Error()
		if e, ok := err.(*sqlite3.Error); ok {
			msg = strings.TrimPrefix(e.Error(), e.ExtendedCode().Error()+": ")
		}
		return "error: " + msg
	}
	return fmt.Sprintf("%q,%q", stmt.ColumnText(0), stmt.ColumnText(1))
}

// hostValue is the row of sql with args on db, or its error.
func hostValue(t *testing.T, db database.DB, sql string, args []any) string {
	t.Helper()
	return hostResult(t, db, sql, append(args, nil, nil, nil))
}

// TestSQLiteReplaceTooLargeBuildsNothing: replace whose result SQLite
// could not hold (over its memory of 256 MiB a connection) fails at once,
// too_large, without building it: the host's replace built the result in
// Go's memory, outside SQLite's bound, until it passed 256 MiB: from a
// request of 1 MiB, 1.3 GB allocated and 5 s spent.
func TestSQLiteReplaceTooLargeBuildsNothing(t *testing.T) {
	db := openSQLite(t, 1)
	str := strings.Repeat("a", 1<<20)
	rep := strings.Repeat("b", 1000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := db.Exec(t.Context(), "SELECT length(replace($1, 'a', $2))", []any{str, rep})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.HasPrefix(err.Error(), "too_large: ") {
		t.Fatalf("a result of 1 GB: %v, want too_large", err)
	}
	// The statement's own: its arguments, SQLite's memory, the answer.
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("the statement allocated %d MiB of Go memory, want under 32", n>>20)
	}
}
