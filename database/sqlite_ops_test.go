package database_test

import (
	"context"
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
	held, err := other.Begin(t.Context())
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
			tx, err := db.Begin(ctx)
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
