package database_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteOutOfMemoryIsAnError runs statements that make SQLite run out
// of memory: go-sqlite3 panics then instead of returning SQLITE_NOMEM. A
// guest's statement must fail with an error, never panic the host, and
// the connection it ran on must not be lost to the pool (one connection
// here: a leaked one leaves every later statement waiting).
func TestSQLiteOutOfMemoryIsAnError(t *testing.T) {
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "oom.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(t.Context(), "CREATE TABLE t (v TEXT)", nil); err != nil {
		t.Fatal(err)
	}
	huge := "printf('%.*c', 2000000000, 'x')"
	tests := []struct {
		name string
		run  func(q database.Querier) error
	}{
		{"query", func(q database.Querier) error {
			_, err := query(t, q, "SELECT length("+huge+")", "")
			return err
		}},
		{"a later row of a query", func(q database.Querier) error {
			_, err := query(t, q, "SELECT CASE WHEN value = 3 THEN length("+huge+") ELSE value END FROM json_each('[1,2,3]')", "")
			return err
		}},
		{"exec", func(q database.Querier) error {
			_, err := q.Exec(t.Context(), "INSERT INTO t VALUES ("+huge+")", nil)
			return err
		}},
	}
	for _, tt := range tests {
		ok := t.Run(tt.name, func(t *testing.T) {
			if err := noPanic(func() error { return tt.run(db) }); database.CodeOf(err) != database.CodeTooLarge {
				t.Errorf("got %v, want a too_large error", err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			tx, err := db.Begin(ctx, database.TxOptions{})
			if err != nil {
				t.Fatalf("the connection was not given back: %v", err)
			}
			if err := noPanic(func() error { return tt.run(tx) }); database.CodeOf(err) != database.CodeTooLarge {
				t.Fatalf("in a transaction: got %v, want a too_large error", err)
			}
			// Whether SQLite rolled the transaction back or not, a
			// statement after it must not run outside the transaction,
			// committed at once: the rollback undoes it.
			if err := noPanic(func() error {
				_, err := tx.Exec(t.Context(), "INSERT INTO t VALUES ('after')", nil)
				return err
			}); err != nil && database.CodeOf(err) != database.CodeTransaction {
				t.Errorf("a statement after it in the transaction: got %v, want none or a transaction error", err)
			}
			if err := noPanic(func() error { return tx.Rollback(t.Context()) }); err != nil {
				t.Errorf("rollback: %v", err)
			}
			if got, err := query(t, db, "SELECT count(*) FROM t", ""); err != nil || got != `{"columns":["count(*)"],"rows":[[0]]}` {
				t.Fatalf("after it: %s, %v", got, err)
			}
		})
		if !ok {
			break // a connection lost would stop the next case
		}
	}
}

// noPanic runs f and returns its error, or the panic it raised as one.
func noPanic(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panicked: %v", v)
		}
	}()
	return f()
}

// TestSQLiteOutOfMemoryFreesTheConnection: the connection a statement ran
// out of memory on is closed, and its memory given back to the system.
// The statement the driver's panic interrupted is still prepared, so
// SQLite refuses to close the connection until it is finalized, and
// go-sqlite3 then keeps its memory mapped: a guest that ran out of
// memory request after request took 256 MiB of address space (and half
// of it resident) from the host each time.
func TestSQLiteOutOfMemoryFreesTheConnection(t *testing.T) {
	if _, err := vmSize(); err != nil {
		t.Skipf("no /proc/self/status to read the address space from: %v", err)
	}
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "oom.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := query(t, db, "SELECT 1", ""); err != nil {
		t.Fatal(err)
	}
	before, _ := vmSize()
	const runs = 8
	for range runs {
		if _, err := query(t, db, "SELECT length(printf('%.*c', 2000000000, 'x'))", ""); database.CodeOf(err) != database.CodeTooLarge {
			t.Fatalf("got %v, want too_large", err)
		}
	}
	after, _ := vmSize()
	// Each connection reserves 256 MiB: those kept would be 2 GiB.
	if grown := after - before; grown > 512<<20 {
		t.Errorf("the address space grew by %d MiB over %d statements that ran out of memory: their connections were not freed", grown>>20, runs)
	}
}

// vmSize is the process's address space in bytes (VmSize of
// /proc/self/status).
func vmSize() (int64, error) { return procStatusBytes("VmSize") }

// procStatusBytes is the field of /proc/self/status given in kB (VmSize,
// RssAnon), in bytes.
func procStatusBytes(field string) (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s line in /proc/self/status", field)
}

// TestSQLiteMigrationOutOfMemoryIsAnError: a migration's statement that
// runs SQLite out of memory fails the migration, whose changes are rolled
// back, instead of panicking the host at its load (a migration runs
// outside any guest call, where nothing recovers a panic).
func TestSQLiteMigrationOutOfMemoryIsAnError(t *testing.T) {
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: filepath.Join(t.TempDir(), "oom.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	err = noPanic(func() error {
		return db.Migrate(t.Context(), func(m database.Migration) error {
			return m.Script(t.Context(), "CREATE TABLE t (v TEXT); INSERT INTO t VALUES (printf('%.*c', 2000000000, 'x'));")
		})
	})
	if database.CodeOf(err) != database.CodeTooLarge {
		t.Fatalf("got %v, want a too_large error", err)
	}
	if _, err := query(t, db, "SELECT count(*) FROM t", ""); database.CodeOf(err) != database.CodeSyntax {
		t.Errorf("the table the failed migration made: %v, want no such table", err)
	}
}
