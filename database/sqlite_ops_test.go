package database_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteBusyEndsBeforeDeadline: a statement waiting for the write lock
// another process holds, with less time left before its call's deadline
// than the busy timeout (5 s), stops waiting a margin before the deadline
// (as the wait for a pool's connection does, database.WaitContext) and
// fails busy while the call can still answer it (503 with Retry-After),
// rather than at the deadline, where the host answers 500. The error says
// the wait ended at the call's deadline, not at the busy timeout.
func TestSQLiteBusyEndsBeforeDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	open := func() database.DB {
		db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path, MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db, other := open(), open()
	if _, err := db.Exec(t.Context(), "CREATE TABLE notes (x)", nil); err != nil {
		t.Fatal(err)
	}
	held, err := other.Begin(t.Context(), database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(t.Context())
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"exec", func(ctx context.Context) error {
			_, err := db.Exec(ctx, "INSERT INTO notes VALUES (1)", nil)
			return err
		}},
		{"begin", func(ctx context.Context) error {
			tx, err := db.Begin(ctx, database.TxOptions{})
			if err == nil {
				tx.Rollback(ctx)
			}
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
			defer cancel()
			err := tt.run(ctx)
			if ctx.Err() != nil {
				t.Errorf("the wait for the lock ended at the deadline (%v), not before it: the call can no longer answer", err)
			}
			if database.CodeOf(err) != database.CodeBusy || !strings.Contains(err.Error(), "before the call's deadline") {
				t.Errorf("%v; want busy, saying the wait ended before the call's deadline", err)
			}
		})
	}
}

// TestSQLiteWALShrinksAfterBurst: a burst of writes while a long read
// keeps the checkpoint from completing grows the -wal file (here past
// 20 MB); once the read ends and the checkpoints complete, the next
// writes bring the file back within the limit (database.SQLiteWALSizeLimit)
// rather than leaving it at its largest size for as long as the host
// keeps its connections open (months, for a server).
func TestSQLiteWALShrinksAfterBurst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	exec := func(sql string) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	exec("CREATE TABLE t (b BLOB)")
	exec("INSERT INTO t VALUES (1)")
	rows, err := db.Query(ctx, "SELECT b FROM t", nil) // a read in progress
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		exec("INSERT INTO t VALUES (randomblob(100000))")
	}
	if n := walSize(); n < 20<<20 {
		t.Fatalf("the -wal file is %d bytes after the burst; the test wants it past 20 MB", n)
	}
	rows.Close()
	exec("DELETE FROM t")
	for range 10 {
		exec("INSERT INTO t VALUES (1)")
	}
	if n := walSize(); n > database.SQLiteWALSizeLimit {
		t.Errorf("the -wal file is %d bytes once the burst is over and checkpointed, want at most %d", n, database.SQLiteWALSizeLimit)
	}
	var got string
	if got, err = query(t, db, "SELECT count(*) FROM t", ""); err != nil || got != `{"columns":["count(*)"],"rows":[[10]]}` {
		t.Errorf("the rows after the burst: %s %v, want 10", got, err)
	}
}

// TestSQLiteValueLargerThanResult: a blob the app stored (a write has no
// bound but the database's) that a read cannot return within
// limits.sqlResultBytes, the blob counting as its base64 (4/3 of its
// size): a blob of 1 MiB - 1 byte under the default 1 MiB. The error says
// that one value is too large, how a blob counts, and what to do (a part
// of it, or raise the setting); "select fewer rows or columns" does not
// help a query of one row and one column. A result too large for its
// rows keeps its advice.
func TestSQLiteValueLargerThanResult(t *testing.T) {
	db := openTestSQLite(t)
	ctx := t.Context()
	blob := make([]byte, 1<<20-1)
	if _, err := db.Exec(ctx, "CREATE TABLE files (body BLOB)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO files VALUES ($1)", []any{blob}); err != nil {
		t.Fatalf("storing a blob of 1 MiB - 1 byte: %v", err)
	}
	tests := []struct {
		name, sql string
		want      []string
	}{
		{"a blob", "SELECT body FROM files", []string{"the result is larger than limits.sqlResultBytes (1048576 bytes) at the value of column body in row 1 (a 1048575-byte blob, which counts as its base64 text", "counts as its base64 text", "substr", "raise limits.sqlResultBytes"}},
		{"a text", "SELECT hex(substr(body, 1, 600000)) AS h FROM files", []string{"at the value of column h in row 1 (a 1200000-byte text)"}},
		{"many rows", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 200000) SELECT i FROM n", []string{"the result is larger than limits.sqlResultBytes (1048576 bytes): select fewer rows (LIMIT) or columns"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := db.Query(ctx, tt.sql, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = database.AppendQueryResult(nil, rows, 1<<20)
			rows.Close()
			if database.CodeOf(err) != database.CodeTooLarge {
				t.Fatalf("%v; want too_large", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

// TestSQLiteAppMovedWhileServing: the app's directory moved away (mv)
// while a pool serves its database: a statement fails unavailable naming
// the file, and the pool does not make the directories of the old path
// again (an empty app/.endpoints/data where the app was, which would
// keep the operator's mv back from working). Once the app is back, the
// database serves again, its rows intact.
func TestSQLiteAppMovedWhileServing(t *testing.T) {
	database.CheckFileAlways(t)
	root := t.TempDir()
	app, moved := filepath.Join(root, "app"), filepath.Join(root, "app.moved")
	path := filepath.Join(app, ".endpoints", "data", "main.db")
	db := openWithRow(t, path, 2)
	ctx := t.Context()
	if err := os.Rename(app, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO t VALUES (2)", nil); database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), path) {
		t.Errorf("a write once the app moved: %v; want unavailable, naming %s", err, path)
	}
	if _, err := os.Stat(app); err == nil {
		t.Errorf("%s was made again after the app moved away", app)
	}
	if err := os.Rename(moved, app); err != nil {
		t.Fatalf("moving the app back: %v", err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO t VALUES (3)", nil); err != nil {
		t.Errorf("a write once the app is back: %v", err)
	}
	if got, err := query(t, db, "SELECT x FROM t ORDER BY x", ""); err != nil || got != `{"columns":["x"],"rows":[[1],[3]]}` {
		t.Errorf("the rows once the app is back: %s %v, want 1 and 3", got, err)
	}
}

// TestSQLiteValuesAtLimits: values at the edges of their types go through
// a statement and back as they were: int64's extremes exact, -0.0 a real,
// an empty blob a blob (not NULL), a blob of 1 MiB - 1 byte whole; an
// integer past int64 is refused, not rounded; an infinite real, which
// JSON lacks, reads as null (abi/README.md §4.5 says so), and typeof()
// tells it from a NULL.
func TestSQLiteValuesAtLimits(t *testing.T) {
	db := openTestSQLite(t)
	tests := []struct {
		name, sql, params, want string
	}{
		{"int64 extremes", "SELECT $1, $2", `[9223372036854775807, -9223372036854775808]`, `[[9223372036854775807,-9223372036854775808]]`},
		{"negative zero", "SELECT $1, typeof($1)", `[-0.0]`, `[[-0,"real"]]`},
		{"an empty blob is no NULL", "SELECT $1, typeof($1), $1 IS NULL", `[{"$blob": ""}]`, `[["","blob",0]]`},
		{"infinity reads as null", "SELECT 1e999, typeof(1e999), -1e999", ``, `[[null,"real",null]]`},
		{"NaN is SQLite's NULL", "SELECT 0.0/0.0", ``, `[[null]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := query(t, db, tt.sql, tt.params)
			if err != nil || !strings.HasSuffix(got, `"rows":`+tt.want+`}`) {
				t.Errorf("%s %s = %s %v, want rows %s", tt.sql, tt.params, got, err, tt.want)
			}
		})
	}
	if _, err := database.DecodeParams([]byte(`[9223372036854775808]`)); err == nil || !strings.Contains(err.Error(), "outside the range of a 64-bit integer") {
		t.Errorf("an integer past int64: %v, want it refused", err)
	}
	blob := make([]byte, 1<<20-1)
	blob[0], blob[len(blob)-1] = 1, 2
	rows, err := db.Query(t.Context(), "SELECT $1", []any{blob})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	vals, err := rows.Values()
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := vals[0].([]byte); !ok || len(b) != len(blob) || b[0] != 1 || b[len(b)-1] != 2 {
		t.Errorf("a blob of 1 MiB - 1 byte came back as %T (%d bytes), want it whole", vals[0], len(b))
	}
}
