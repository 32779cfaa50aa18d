package database_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestBackupSQLiteWhileWriting: a backup taken while transactions of two
// inserts each commit is a consistent snapshot (an even count of rows,
// at least those committed before it began) in one file that opens,
// passes integrity_check and has no -wal beside it; the database goes on
// taking writes during and after it.
func TestBackupSQLiteWhileWriting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	ctx := t.Context()
	db, err := database.Open(ctx, database.DriverSQLite, database.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", nil); err != nil {
		t.Fatal(err)
	}
	insertPair := func() error {
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		for range 2 {
			if _, err := tx.Exec(ctx, "INSERT INTO notes (body) VALUES ($1)", []any{strings.Repeat("x", 500)}); err != nil {
				return err
			}
		}
		return tx.Commit(ctx)
	}
	const before = 50
	started, stop, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		for n := 0; ; n++ {
			if n == before {
				close(started)
			}
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if err := insertPair(); err != nil {
				if n < before {
					close(started)
				}
				done <- err
				return
			}
		}
	}()
	<-started
	to := filepath.Join(dir, "backup.db")
	err = database.BackupSQLite(ctx, path, to)
	close(stop)
	if werr := <-done; werr != nil {
		t.Fatalf("the writes beside the backup: %v", werr)
	}
	if err != nil {
		t.Fatalf("BackupSQLite: %v", err)
	}
	if _, err := os.Stat(to + "-wal"); err == nil {
		t.Error("the backup has a -wal file beside it")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".backup.db.partial-*")); len(m) > 0 {
		t.Errorf("the partial file was left: %v", m)
	}
	copyDB, err := database.Open(ctx, database.DriverSQLite, database.Options{Path: to})
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	got := queryOne(t, copyDB, "SELECT count(*) FROM notes")
	if n, ok := got.(int64); !ok || n%2 != 0 || n < 2*before {
		t.Errorf("the backup holds %v rows; want an even count (whole transactions), at least %d", got, 2*before)
	}
	if got := queryOne(t, copyDB, "PRAGMA integrity_check"); got != "ok" {
		t.Errorf("integrity_check of the backup: %v", got)
	}
	if err := insertPair(); err != nil {
		t.Errorf("a write after the backup: %v", err)
	}
}

func queryOne(t *testing.T, db database.DB, sql string) any {
	t.Helper()
	rows, err := db.Query(context.Background(), sql, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("%s: no row: %v", sql, rows.Err())
	}
	vals, err := rows.Values()
	if err != nil {
		t.Fatal(err)
	}
	return vals[0]
}

// TestBackupSQLiteRefuses: no database file (nothing to back up, and none
// is created), a target that exists (never replaced), a target in a
// directory that does not exist: each an error naming the file.
func TestBackupSQLiteRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	exists := filepath.Join(dir, "exists.db")
	if err := os.WriteFile(exists, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(t.Context(), "CREATE TABLE t (x)", nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, from, to, want string }{
		{"no database", filepath.Join(dir, "none.db"), filepath.Join(dir, "b1.db"), "the database file " + filepath.Join(dir, "none.db") + ": "},
		{"the target exists", path, exists, exists + " exists: a backup is written to a new file"},
		{"no target directory", path, filepath.Join(dir, "no", "b.db"), "the backup's directory: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := database.BackupSQLite(t.Context(), tt.from, tt.to)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("a backup of no database created one")
	}
	if b, _ := os.ReadFile(exists); string(b) != "keep" {
		t.Errorf("the existing target was changed: %q", b)
	}
}
