package database_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// smallDisk mounts a tmpfs of size (mount's syntax: "2m") on a new
// directory and returns it, unmounted when the test ends; it skips the
// test where it cannot mount one (not root, no tmpfs).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// TestSQLiteDiskFull: on a disk that fills up, a write fails unavailable
// (a guest answers 503) saying to check the free space; a transaction
// whose commit fails for want of space leaves nothing; the database
// serves reads all along; once space is back, writes go on, and every
// write acknowledged before is there.
func TestSQLiteDiskFull(t *testing.T) {
	dir := smallDisk(t, "2m")
	path := filepath.Join(dir, "app.db")
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	if _, err := db.Exec(ctx, "CREATE TABLE t (n INTEGER, b BLOB)", nil); err != nil {
		t.Fatal(err)
	}
	// The filler takes what the database leaves, and is removed to give
	// the space back.
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	acked := 0
	for ; acked < 100; acked++ {
		if _, err = db.Exec(ctx, "INSERT INTO t VALUES ($1, randomblob(50000))", []any{int64(acked)}); err != nil {
			break
		}
	}
	if acked == 100 {
		t.Fatal("the disk never filled up")
	}
	if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), "check the free space") {
		t.Errorf("a write on a full disk: %v; want unavailable, saying to check the free space", err)
	}
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err == nil {
		_, err = tx.Exec(ctx, "INSERT INTO t VALUES (-1, randomblob(50000))", nil)
		if err == nil {
			err = tx.Commit(ctx)
		} else {
			tx.Rollback(ctx)
		}
	}
	if database.CodeOf(err) != database.CodeUnavailable {
		t.Errorf("a transaction on a full disk: %v; want unavailable", err)
	}
	count := func() string {
		t.Helper()
		got, err := query(t, db, "SELECT count(*), count(DISTINCT n), min(n), max(n) FROM t", "")
		if err != nil {
			t.Fatalf("a read: %v", err)
		}
		return got
	}
	want := func(n int) string {
		return `{"columns":["count(*)","count(DISTINCT n)","min(n)","max(n)"],"rows":[[` + strconv.Itoa(n) + `,` + strconv.Itoa(n) + `,0,` + strconv.Itoa(n-1) + `]]}`
	}
	if got := count(); got != want(acked) {
		t.Errorf("on the full disk: %s, want the %d rows acknowledged", got, acked)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for i := acked; i < acked+5; i++ {
		if _, err := db.Exec(ctx, "INSERT INTO t VALUES ($1, randomblob(50000))", []any{int64(i)}); err != nil {
			t.Fatalf("a write once space is back: %v", err)
		}
	}
	if got := count(); got != want(acked+5) {
		t.Errorf("once space is back: %s, want %d rows", got, acked+5)
	}
}

// TestBackupSQLiteDiskFull: a backup into a directory without the space
// for it fails saying to check the free space there, and leaves no
// partial file behind.
func TestBackupSQLiteDiskFull(t *testing.T) {
	full := smallDisk(t, "1m")
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sql := range []string{"CREATE TABLE t (b BLOB)", "INSERT INTO t SELECT randomblob(100000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 30) SELECT i FROM n)"} {
		if _, err := db.Exec(t.Context(), sql, nil); err != nil {
			t.Fatal(err)
		}
	}
	to := filepath.Join(full, "backup.db")
	err = database.BackupSQLite(context.Background(), path, to)
	if err == nil || !strings.Contains(err.Error(), "check the free space of "+full) {
		t.Errorf("a backup onto a full disk: %v; want it to say to check the free space of %s", err, full)
	}
	if left, _ := os.ReadDir(full); len(left) != 0 {
		t.Errorf("a failed backup left %v in %s", left, full)
	}
}
