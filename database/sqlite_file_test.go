package database_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestSQLiteFileDeletedOrReplaced: a database file deleted while the host
// serves it fails the statements that follow, unavailable and saying so,
// instead of their writes going to the deleted file (acknowledged, then
// lost with the connection) or to an empty file made anew; restored,
// it serves again. A file moved over it (a backup restored, with the old
// -wal and -shm removed) is the one the next statements read, not the
// one the pooled connections had open.
func TestSQLiteFileDeletedOrReplaced(t *testing.T) {
	database.CheckFileAlways(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	for _, s := range []string{"CREATE TABLE t (v INTEGER)", "INSERT INTO t VALUES (1)"} {
		if _, err := db.Exec(ctx, s, nil); err != nil {
			t.Fatal(err)
		}
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := database.BackupSQLite(ctx, path, backup); err != nil {
		t.Fatal(err)
	}
	count := func() string {
		got, err := query(t, db, "SELECT count(*) AS n FROM t", "")
		if err != nil {
			return err.Error()
		}
		return got
	}

	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	_, err = db.Exec(ctx, "INSERT INTO t VALUES (2)", nil)
	if err == nil || database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("a write after the file was deleted: %v, want unavailable, saying it was deleted", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the deleted file was made anew (%v): an empty database the app's tables are missing from", err)
	}

	if err := os.Rename(backup, path); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != `{"columns":["n"],"rows":[[1]]}` {
		t.Errorf("restored: %s, want the backup's one row", got)
	}

	other := filepath.Join(dir, "other.db")
	if err := database.BackupSQLite(ctx, path, other); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO t VALUES (3)", nil); err != nil {
		t.Fatal(err)
	}
	// A restore replaces the -wal and -shm beside the file too: those
	// are the old file's.
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if got := count(); got != `{"columns":["n"],"rows":[[1]]}` {
		t.Errorf("replaced by a copy of one row: %s, want the copy's one row", got)
	}
}
