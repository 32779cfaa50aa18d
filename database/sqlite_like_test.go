package database_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteLikeStopsAtDeadline: a LIKE or GLOB that matches a long
// value against a long pattern stops at the statement's deadline. SQLite's
// own functions run within one step of the statement, which its interrupt
// does not reach: "LIKE '%' || ? || '%'" over 1 MiB with a pattern of 10
// KB ran 3 minutes past a deadline of 100 ms, and then answered; over
// the 64 KiB here, about 12 s.
func TestSQLiteLikeStopsAtDeadline(t *testing.T) {
	db := openSQLite(t, 1)
	text := strings.Repeat("a", 64<<10)
	pattern := strings.Repeat("a", 10000) + "b"
	for _, sql := range []string{
		"SELECT $1 LIKE '%' || $2 || '%'",
		"SELECT like('%' || $2 || '%', $1, '!')",
		"SELECT $1 GLOB '*' || $2 || '*'",
	} {
		t.Run(sql, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			_, err := db.Exec(ctx, sql, []any{text, pattern})
			if err == nil || !strings.Contains(err.Error(), "the statement was stopped: context deadline exceeded") {
				t.Fatalf("got %v, want the statement stopped at its deadline", err)
			}
			if got, err := query(t, db, "SELECT 'abc' LIKE 'A%'", ""); err != nil || got != `{"columns":["'abc' LIKE 'A%'"],"rows":[[1]]}` {
				t.Fatalf("the connection after the stop: %s %v", got, err)
			}
		})
	}
}

// TestSQLiteLikeMatchesSQLite: the host's like() and glob() answer as
// SQLite's own do (a connection of the driver that defines neither),
// for random patterns and strings of wildcards, sets, escapes, cases,
// characters of several bytes, bytes that are not UTF-8, and NUL;
// errors too.
func TestSQLiteLikeMatchesSQLite(t *testing.T) {
	db := openSQLite(t, 1)
	plain, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	atoms := []string{"%", "_", "*", "?", "[", "]", "^", "-", "!", "a", "A", "b", "z", "é", "É", "€", "\U0001F600", "\xff", "\x80", "\xc3", "\xed\xa0\x80", "\x00", " "}
	gen := func(r *rand.Rand) []string {
		a := make([]string, r.IntN(8))
		for i := range a {
			a[i] = atoms[r.IntN(len(atoms))]
		}
		return a
	}
	// like is a string the pattern p may match: its wildcards replaced
	// by atoms, its letters' case changed now and then.
	like := func(r *rand.Rand, p []string) string {
		var b strings.Builder
		for _, a := range p {
			switch {
			case a == "%" || a == "*":
				for range r.IntN(3) {
					b.WriteString(atoms[r.IntN(len(atoms))])
				}
			case a == "_" || a == "?":
				b.WriteString(atoms[r.IntN(len(atoms))])
			case r.IntN(4) == 0:
				b.WriteString(strings.ToUpper(a))
			default:
				b.WriteString(a)
			}
		}
		return b.String()
	}
	statements := []string{"SELECT like($1, $2)", "SELECT like($1, $2, $3)", "SELECT glob($1, $2)"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 3000
	}
	seen := map[string]int{}
	for i := range n {
		sql := statements[i%len(statements)]
		p := gen(r)
		text := strings.Join(gen(r), "")
		if r.IntN(2) == 0 {
			text = like(r, p)
		}
		args := []any{strings.Join(p, ""), text, atoms[r.IntN(len(atoms))]}
		if r.IntN(20) == 0 {
			args[r.IntN(3)] = nil
		}
		if r.IntN(20) == 0 {
			args[2] = "ab"
		}
		want := plainResult(t, plain, sql, args)
		got := hostResult(t, db, sql, args)
		seen[want]++
		if got != want {
			t.Fatalf("%s with %q: got %s, SQLite's own %s", sql, args, got, want)
		}
	}
	if seen["1"] < n/10 || seen["0"] < n/10 {
		t.Errorf("results %v: too few matches or misses to compare", seen)
	}
	long := []any{strings.Repeat("a", 50001), "a", nil}
	if got, want := hostResult(t, db, "SELECT like($1, $2)", long), plainResult(t, plain, "SELECT like($1, $2)", long); got != want {
		t.Errorf("a pattern of 50001 bytes: got %s, SQLite's own %s", got, want)
	}
}

// plainResult is the result of sql with args on conn, or its error.
func plainResult(t *testing.T, conn *sqlite3.Conn, sql string, args []any) string {
	t.Helper()
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for i := range stmt.BindCount() {
		if s, ok := args[i].(string); ok {
			err = stmt.BindText(i+1, s)
		} else {
			err = stmt.BindNull(i + 1)
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
	if stmt.ColumnType(0) == sqlite3.NULL {
		return "null"
	}
	return fmt.Sprint(stmt.ColumnInt(0))
}

// hostResult is the result of sql with args on db, or its error.
func hostResult(t *testing.T, db database.DB, sql string, args []any) string {
	t.Helper()
	n := strings.Count(sql, "$")
	rows, err := db.Query(t.Context(), sql, args[:n])
	var out []byte
	if err == nil {
		out, err = database.AppendQueryResult(nil, rows, 1<<20)
	}
	if err != nil {
		return "error: " + database.AsError(err).Message
	}
	s := string(out)
	s = s[strings.Index(s, `"rows":[[`)+len(`"rows":[[`) : len(s)-len("]]}")]
	return s
}
