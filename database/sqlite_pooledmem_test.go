package database_test

import (
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/racedetector"
)

// bigValue is an SQL expression of a 40 MiB text: a statement that
// builds it grows its connection's memory past
// database.SQLitePooledMemory.
const bigValue = "printf('%.*c', 41943040, 'x')"

// TestSQLiteBigStatementsLeaveNoMemoryInThePool: a statement that makes
// SQLite take a lot of memory, and the transaction that holds one, leave
// none of it with the pool. A connection's memory grows for such a
// statement and never shrinks (a group_concat of 100 MB left 200 MB in a
// pooled connection, 256 MiB at most, each of maxConns connections), so
// the pool closes a connection that grew past SQLitePooledMemory instead
// of keeping it; the next statement runs on a new one.
func TestSQLiteBigStatementsLeaveNoMemoryInThePool(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, db database.DB)
	}{
		{"a group_concat of 50 MB", func(t *testing.T, db database.DB) {
			got, err := query(t, db, "SELECT length(group_concat(x, '')) FROM (SELECT printf('%.*c', 1048576, 'x') AS x FROM generate_series(1, 50))", "")
			if err != nil || got != `{"columns":["length(group_concat(x, ''))"],"rows":[[52428800]]}` {
				t.Fatalf("got %s, %v", got, err)
			}
		}},
		{"a value the result's limit refuses", func(t *testing.T, db database.DB) {
			if _, err := query(t, db, "SELECT "+bigValue, ""); database.CodeOf(err) != database.CodeTooLarge {
				t.Fatalf("got %v, want too_large", err)
			}
		}},
		{"exec", func(t *testing.T, db database.DB) {
			if _, err := db.Exec(t.Context(), "INSERT INTO t VALUES (length("+bigValue+"))", nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"transactions at once", func(t *testing.T, db database.DB) {
			var txs []database.Tx
			for range 3 {
				tx, err := db.Begin(t.Context(), database.TxOptions{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				txs = append(txs, tx)
				if _, err := query(t, tx, "SELECT length("+bigValue+")", ""); err != nil {
					t.Fatal(err)
				}
			}
			for _, tx := range txs {
				if err := tx.Commit(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "big.db"), MaxConns: 3})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if _, err := db.Exec(t.Context(), "CREATE TABLE t (n INTEGER)", nil); err != nil {
				t.Fatal(err)
			}
			tt.run(t, db)
			sizes, err := database.IdleMemory(db)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range sizes {
				if n > database.SQLitePooledMemory {
					t.Errorf("idle connection %d holds %d MiB, want at most %d MiB", i, n>>20, database.SQLitePooledMemory>>20)
				}
			}
			if got, err := query(t, db, "SELECT count(*) FROM t", ""); err != nil {
				t.Errorf("the statement after it: %s, %v", got, err)
			}
		})
	}
}

// TestSQLiteOrdinaryStatementsKeepTheirConnection: what ordinary
// statements take stays under SQLitePooledMemory, so that their
// connection is pooled, not opened again for the next statement (which
// costs a statement more than it runs): a full page cache, a sort and a
// GROUP BY over 100,000 rows, which SQLite spills to temporary files (its
// sorter's memory is as large at a million rows). The
// connection kept tells itself by last_insert_rowid(), which a new
// connection has at 0.
func TestSQLiteOrdinaryStatementsKeepTheirConnection(t *testing.T) {
	if racedetector.Enabled {
		t.Skip("it measures what SQLite's sorter takes, not races, and takes ten times longer under the race detector")
	}
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "small.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, sql := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)",
		"INSERT INTO t (v) SELECT printf('%0100d', value) FROM generate_series(1, 100000)",
	} {
		if _, err := db.Exec(t.Context(), sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT count(*) FROM (SELECT v FROM t ORDER BY random())",
		"SELECT count(*) FROM (SELECT v, count(*) FROM t GROUP BY v)",
		"SELECT count(DISTINCT v) FROM t",
		"SELECT sum(length(v)) FROM t",
	} {
		if got, err := query(t, db, sql, ""); err != nil {
			t.Fatalf("%s: %s, %v", sql, got, err)
		}
		if got, err := query(t, db, "SELECT last_insert_rowid()", ""); err != nil || got != `{"columns":["last_insert_rowid()"],"rows":[[100000]]}` {
			t.Errorf("after %s: %s, %v; want the connection of the INSERT (100000)", sql, got, err)
		}
	}
}

// TestSQLiteBigStatementGivesItsMemoryBack measures it as the host's
// process sees it: the anonymous memory resident after a group_concat of
// 50 MB is back near what it was before, rather than 100 MB more for as
// long as the pool keeps the connection.
func TestSQLiteBigStatementGivesItsMemoryBack(t *testing.T) {
	if _, err := procStatusBytes("RssAnon"); err != nil {
		t.Skipf("no /proc/self/status to read the resident memory from: %v", err)
	}
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "rss.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := query(t, db, "SELECT 1", ""); err != nil {
		t.Fatal(err)
	}
	debug.FreeOSMemory()
	before, _ := procStatusBytes("RssAnon")
	if _, err := query(t, db, "SELECT length(group_concat(x, '')) FROM (SELECT printf('%.*c', 1048576, 'x') AS x FROM generate_series(1, 50))", ""); err != nil {
		t.Fatal(err)
	}
	debug.FreeOSMemory()
	after, _ := procStatusBytes("RssAnon")
	if grown := after - before; grown > 32<<20 {
		t.Errorf("the resident memory grew by %d MiB after the statement ended, want at most 32 MiB", grown>>20)
	}
}
