package database

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// openCacheTestDB opens an SQLite database of one connection, so that
// every statement of a test runs on the connection whose cache it reads.
func openCacheTestDB(t *testing.T) *sqliteDB {
	t.Helper()
	db, err := Open(t.Context(), DriverSQLite, Options{Path: filepath.Join(t.TempDir(), "cache.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(t.Context(), "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(t.Context(), "INSERT INTO users (id, name) VALUES (1, 'Ada'), (2, 'Grace')", nil); err != nil {
		t.Fatal(err)
	}
	return db.(*sqliteDB)
}

// cached is the number of statements the pool's idle connection keeps.
func cached(t *testing.T, db *sqliteDB) int {
	t.Helper()
	c, err := db.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db.release(c)
	return c.stmts.len()
}

func runQuery(t *testing.T, db DB, sql string, args ...any) (string, error) {
	t.Helper()
	rows, err := db.Query(t.Context(), sql, args)
	if err != nil {
		return "", err
	}
	b, err := AppendQueryResult(nil, rows, 1<<20)
	return string(b), err
}

// TestSQLiteStatementCache runs each statement twice on one connection:
// the second run takes the statement the first prepared, and must answer
// as the first did: the same rows for new arguments, the authorizer's
// refusals again, errors that leave the statement usable.
func TestSQLiteStatementCache(t *testing.T) {
	tests := []struct {
		name  string
		sql   string
		args  [2][]any  // of the first and second run
		want  [2]string // the results, when no error
		code  [2]Code   // the errors' codes
		cache bool      // whether the statement stays in the cache
	}{
		{name: "new arguments are bound", sql: "SELECT name FROM users WHERE id = $1", args: [2][]any{{int64(1)}, {int64(2)}},
			want: [2]string{`{"columns":["name"],"rows":[["Ada"]]}`, `{"columns":["name"],"rows":[["Grace"]]}`}, cache: true},
		{name: "arguments are cleared between runs", sql: "SELECT ? AS v", args: [2][]any{{"x"}, nil},
			want: [2]string{`{"columns":["v"],"rows":[["x"]]}`}, code: [2]Code{"", CodeSyntax}, cache: true},
		{name: "attach stays refused", sql: "ATTACH DATABASE 'other.db' AS other", code: [2]Code{CodeDenied, CodeDenied}},
		{name: "file pragma stays refused", sql: "PRAGMA journal_mode=DELETE", code: [2]Code{CodeDenied, CodeDenied}},
		{name: "transaction control stays refused", sql: "BEGIN", code: [2]Code{CodeDenied, CodeDenied}},
		{name: "a second statement stays refused", sql: "SELECT 1; DELETE FROM users", code: [2]Code{CodeDenied, CodeDenied}},
		{name: "a long text is not kept", sql: "SELECT 1 AS x" + strings.Repeat(" ", sqliteStmtCacheMaxSQL),
			want: [2]string{`{"columns":["x"],"rows":[[1]]}`, `{"columns":["x"],"rows":[[1]]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openCacheTestDB(t)
			before := cached(t, db)
			for run := range 2 {
				got, err := runQuery(t, db, tt.sql, tt.args[run]...)
				if tt.code[run] != "" {
					if CodeOf(err) != tt.code[run] {
						t.Fatalf("run %d: got %s, %v; want code %s", run+1, got, err, tt.code[run])
					}
					continue
				}
				if err != nil || got != tt.want[run] {
					t.Fatalf("run %d: got %s, %v; want %s", run+1, got, err, tt.want[run])
				}
			}
			want := before
			if tt.cache {
				want++
			}
			if n := cached(t, db); n != want {
				t.Errorf("%d statements cached after the runs, want %d", n, want)
			}
		})
	}
}

// TestSQLiteStatementCacheReuses checks that a statement run again is the
// one the first run prepared, not a new one.
func TestSQLiteStatementCacheReuses(t *testing.T) {
	db := openCacheTestDB(t)
	c, err := db.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db.release(c)
	const sql = "SELECT name FROM users WHERE id = $1"
	first, err := c.prepare(t.Context(), sql, []any{int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	c.done(sql, first)
	second, err := c.prepare(t.Context(), sql, []any{int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.done(sql, second)
	if first != second {
		t.Error("the second run prepared the statement again")
	}
	// A trusted (host) statement is never kept for guests.
	c.trusted = true
	third, err := c.prepare(t.Context(), "SELECT 3", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.done("SELECT 3", third)
	c.trusted = false
	if c.stmts.take("SELECT 3") != nil {
		t.Error("a statement prepared while trusted was cached")
	}
}

// TestSQLiteStatementCacheBound runs more distinct statements than the
// cache keeps: it keeps the most recent ones and closes the others.
func TestSQLiteStatementCacheBound(t *testing.T) {
	db := openCacheTestDB(t)
	base := cached(t, db)
	for i := range sqliteStmtCacheSize + 10 {
		if _, err := runQuery(t, db, fmt.Sprintf("SELECT %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cached(t, db); n != sqliteStmtCacheSize {
		t.Errorf("%d statements cached, want the bound %d", n, sqliteStmtCacheSize)
	}
	c, err := db.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db.release(c)
	last := fmt.Sprintf("SELECT %d", sqliteStmtCacheSize+9)
	if !c.stmts.holds(last) {
		t.Errorf("the most recent statement %q was evicted", last)
	}
	if c.stmts.holds("SELECT 0") && base == 0 {
		t.Error("the oldest statement was kept past the bound")
	}
}

// TestSQLiteCachedStatementSeesSchemaChange runs a cached SELECT * after
// the table changed: its columns and values are the new table's.
func TestSQLiteCachedStatementSeesSchemaChange(t *testing.T) {
	db := openCacheTestDB(t)
	const sql = "SELECT * FROM users WHERE id = 1"
	if got, err := runQuery(t, db, sql); err != nil || got != `{"columns":["id","name"],"rows":[[1,"Ada"]]}` {
		t.Fatalf("before: %s, %v", got, err)
	}
	if _, err := db.Exec(t.Context(), "ALTER TABLE users ADD COLUMN email TEXT DEFAULT 'a@example.com'", nil); err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["id","name","email"],"rows":[[1,"Ada","a@example.com"]]}`
	if got, err := runQuery(t, db, sql); err != nil || got != want {
		t.Fatalf("after ALTER TABLE: %s, %v; want %s", got, err, want)
	}
}

// TestSQLiteCachedStatementStopsAtDeadline runs a query that never ends
// twice under a short deadline: the cached second run stops too, and the
// connection serves the next statement.
func TestSQLiteCachedStatementStopsAtDeadline(t *testing.T) {
	db := openCacheTestDB(t)
	const sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n"
	for run := range 2 {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
		rows, err := db.Query(ctx, sql, nil)
		if err == nil {
			_, err = AppendQueryResult(nil, rows, 1<<20)
		}
		cancel()
		if err == nil || !strings.Contains(err.Error(), "stopped") {
			t.Fatalf("run %d: got %v, want the statement stopped at the deadline", run+1, err)
		}
	}
	if n := cached(t, db); n == 0 {
		t.Error("the interrupted statement was not kept")
	}
	if got, err := runQuery(t, db, "SELECT 1 AS one"); err != nil || got != `{"columns":["one"],"rows":[[1]]}` {
		t.Fatalf("after the interrupts: %s, %v", got, err)
	}
}

// TestSQLiteCachedColumns runs a cached statement again: it reuses the
// column names it read, until the schema changes and SQLite prepares it
// again, when a renamed column shows under its new name.
func TestSQLiteCachedColumns(t *testing.T) {
	db := openCacheTestDB(t)
	const sql = "SELECT * FROM users WHERE id = 1"
	columns := func() []string {
		t.Helper()
		rows, err := db.Query(t.Context(), sql, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		return rows.Columns()
	}
	first, second := columns(), columns()
	if strings.Join(second, ",") != "id,name" || &first[0] != &second[0] {
		t.Errorf("the second run read its columns %q again, want the first run's %q kept", second, first)
	}
	if _, err := db.Exec(t.Context(), "ALTER TABLE users RENAME COLUMN name TO full_name", nil); err != nil {
		t.Fatal(err)
	}
	if got := columns(); strings.Join(got, ",") != "id,full_name" {
		t.Errorf("after the rename: columns %q, want id,full_name", got)
	}
	if strings.Join(first, ",") != "id,name" {
		t.Errorf("the first rows' columns changed under them: %q", first)
	}
}

// TestSQLiteStatementCacheInTurn runs two statements in turn, and one
// again while its rows are still open, on one connection: each run after
// the first takes the statement its text's last run prepared, whether
// that one was put back last or before the other; the run while the rows
// are open prepares its own, and both answer their rows. The cache keeps
// the one that ended first and finalizes the other.
func TestSQLiteStatementCacheInTurn(t *testing.T) {
	db := openCacheTestDB(t)
	c, err := db.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db.release(c)
	before := c.stmts.len()
	const byID, byName = "SELECT name FROM users WHERE id = $1", "SELECT id FROM users WHERE name = $1"
	run := func(sql string, arg any) *sqlite3.Stmt {
		t.Helper()
		stmt, err := c.prepare(t.Context(), sql, []any{arg})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := stmt.Step(), stmt.Err(); !ok || err != nil {
			t.Fatalf("%s: no row, %v", sql, err)
		}
		return stmt
	}
	first := map[string]*sqlite3.Stmt{}
	for round := range 3 {
		for _, q := range []struct {
			sql string
			arg any
		}{{byID, int64(2)}, {byName, "Ada"}} {
			stmt := run(q.sql, q.arg)
			if round == 0 {
				first[q.sql] = stmt
			} else if stmt != first[q.sql] {
				t.Errorf("round %d: %q prepared again, want the statement of its first run", round+1, q.sql)
			}
			c.done(q.sql, stmt)
		}
	}
	outer := run(byID, int64(1))
	inner := run(byID, int64(2))
	if inner == outer {
		t.Fatal("a statement whose rows are open was taken again")
	}
	if got := inner.ColumnText(0); got != "Grace" {
		t.Errorf("inner run: %q, want Grace", got)
	}
	c.done(byID, inner)
	if got := outer.ColumnText(0); got != "Ada" {
		t.Errorf("outer run, after the inner one ended: %q, want Ada", got)
	}
	c.done(byID, outer)
	if n := c.stmts.len(); n != before+2 {
		t.Errorf("%d statements cached, want %d", n, before+2)
	}
	if again := run(byID, int64(1)); again != inner {
		t.Error("the statement of the inner run, which ended first, was not kept")
	} else {
		c.done(byID, again)
	}
}
