package database_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteFilesMadeUnwritable: the database's files made unwritable
// under a serving pool (chattr +i here; a file system the kernel remounts
// read-only after an I/O error does the same to the -shm file's shared
// mapping): a statement touching the -shm file meets a memory fault
// (SIGBUS), which must fail the statement, unavailable, and close its
// connection, not crash the process. Once the files are writable again,
// the database serves, its rows intact.
func TestSQLiteFilesMadeUnwritable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	path := filepath.Join(t.TempDir(), "app.db")
	db := openWithRow(t, path, 2)
	ctx := t.Context()
	files := []string{path, path + "-wal", path + "-shm"}
	chattr := func(flag string) {
		t.Helper()
		for _, f := range files {
			if out, err := exec.Command("chattr", flag, f).CombinedOutput(); err != nil {
				t.Skipf("chattr %s %s: %v %s", flag, f, err, out)
			}
		}
	}
	chattr("+i")
	t.Cleanup(func() {
		for _, f := range files {
			exec.Command("chattr", "-i", f).Run()
		}
	})
	// The first statement faults on the pooled connection, which is
	// closed; the next ones find that a new connection cannot open the
	// file.
	for i, sql := range []string{"INSERT INTO t VALUES (2)", "SELECT count(*) FROM t", "INSERT INTO t VALUES (2)"} {
		_, err := db.Exec(ctx, sql, nil)
		want := path + ": "
		if i == 0 {
			want = "a bus error in the shared mapping of its -shm file"
		}
		if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), want) {
			t.Errorf("%s once the files are unwritable: %v; want unavailable, saying %q", sql, err, want)
		}
	}
	chattr("-i")
	if _, err := db.Exec(ctx, "INSERT INTO t VALUES (3)", nil); err != nil {
		t.Errorf("a write once the files are writable again: %v", err)
	}
	if got, err := query(t, db, "SELECT x FROM t ORDER BY x", ""); err != nil || got != `{"columns":["x"],"rows":[[1],[3]]}` {
		t.Errorf("the rows: %s %v, want 1 and 3", got, err)
	}
}

// TestSQLiteFaultMidCommit: a write whose commit meets a memory fault in
// the -shm file's shared mapping (made unwritable, chattr +i here), in
// its step or in the reset that closing its rows makes (INSERT ...
// RETURNING whose rows were not all read), fails unavailable, its
// connection closed, and does not crash the process: Close ran without
// debug.SetPanicOnFault. The connection cannot close while the file is
// unwritable (its statement, stopped mid-commit, cannot be finalized),
// and until it does it holds the write lock: once the file is writable
// again it is closed, and the database serves writes; it stayed locked
// until the process ended.
func TestSQLiteFaultMidCommit(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	tests := []struct {
		name  string
		write func(ctx context.Context, db database.DB) error
	}{
		{"in the step", func(ctx context.Context, db database.DB) error {
			_, err := db.Exec(ctx, "INSERT INTO t SELECT value FROM generate_series(2, 11)", nil)
			return err
		}},
		{"closing the rows", func(ctx context.Context, db database.DB) error {
			rows, err := db.Query(ctx, "INSERT INTO t SELECT value FROM generate_series(2, 11) RETURNING x", nil)
			if err != nil {
				return fmt.Errorf("the insert's first step: %w", err)
			}
			if !rows.Next() {
				return fmt.Errorf("the insert returned no row: %w", rows.Err())
			}
			return rows.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "app.db")
			db := openWithRow(t, path, 1)
			ctx := t.Context()
			if _, err := query(t, db, "SELECT x FROM t", ""); err != nil {
				t.Fatal(err)
			}
			shm := path + "-shm"
			if out, err := exec.Command("chattr", "+i", shm).CombinedOutput(); err != nil {
				t.Skipf("chattr +i %s: %v %s", shm, err, out)
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", shm).Run() })
			err := tt.write(ctx, db)
			if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), "a bus error in the shared mapping of its -shm file") {
				t.Errorf("a write once the -shm file is unwritable: %v; want unavailable, saying it", err)
			}
			if out, err := exec.Command("chattr", "-i", shm).CombinedOutput(); err != nil {
				t.Fatalf("chattr -i %s: %v %s", shm, err, out)
			}
			if _, err := db.Exec(ctx, "INSERT INTO t VALUES (12)", nil); err != nil {
				t.Errorf("a write once the file is writable again: %v", err)
			}
			if got, err := query(t, db, "PRAGMA integrity_check", ""); err != nil || !strings.Contains(got, `"rows":[["ok"]]`) {
				t.Errorf("the database's integrity once the file is writable again: %s %v", got, err)
			}
		})
	}
}

// TestSQLiteReadOnlyFilesRecover: a connection opened while the -shm file
// could not be written (made immutable here; owned by another user, as
// after an operator ran the sqlite3 shell as root, does the same) maps it
// read-only, and every write on it fails, read-only. Once the file is
// writable again, the writes of the pool succeed: a connection a write
// found read-only is closed, not pooled to fail every write after.
func TestSQLiteReadOnlyFilesRecover(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chattr +i needs root")
	}
	path := filepath.Join(t.TempDir(), "app.db")
	ctx := t.Context()
	// Another process keeps the -shm file, and writes.
	openWithRow(t, path, 1)
	shm := path + "-shm"
	if out, err := exec.Command("chattr", "+i", shm).CombinedOutput(); err != nil {
		t.Skipf("chattr +i %s: %v %s", shm, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", shm).Run() })
	db, err := database.Open(ctx, database.DriverSQLite, database.Options{Path: path, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "INSERT INTO t VALUES (2)", nil); database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("a write while the -shm file is unwritable: %v; want unavailable, read-only", err)
	}
	if out, err := exec.Command("chattr", "-i", shm).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i %s: %v %s", shm, err, out)
	}
	if _, err := db.Exec(ctx, "INSERT INTO t VALUES (3)", nil); err != nil {
		t.Errorf("a write once the file is writable again: %v", err)
	}
}

// openWithRow opens the SQLite database at path, a pool of maxConns
// closed when the test ends, and makes its table t holding one row (x =
// 1).
func openWithRow(t *testing.T, path string, maxConns int) database.DB {
	t.Helper()
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path, MaxConns: maxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, sql := range []string{"CREATE TABLE t (x)", "INSERT INTO t VALUES (1)"} {
		if _, err := db.Exec(t.Context(), sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return db
}
