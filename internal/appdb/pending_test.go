package appdb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// TestMigrateDeferAndAwait: with Defer, a database that cannot be reached
// (its SQLite file lies under a regular file, so its directory cannot be
// made) waits while the others are migrated; Pending, Waiting and Ping say
// so; without Defer the same run fails, as `endpoints migrate` does. Once
// it can be reached, Await applies its migrations, or, when one fails,
// reports the failure, which Pending keeps, and stops trying.
func TestMigrateDeferAndAwait(t *testing.T) {
	tests := []struct {
		name, migration string
		// applied is what Await applied; failed what it reports failing.
		applied, failed string
	}{
		{name: "applied once reachable", migration: "CREATE TABLE notes (x);", applied: "server/migrations/001-notes.sql"},
		{name: "a migration that fails once reachable", migration: "INSERT INTO nowhere VALUES (1);", failed: `server/migrations/001-notes.sql: database "main": syntax: no such table: nowhere`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeApp(t, map[string]string{
				"server/migrations/001-notes.sql":         tt.migration,
				"server/migrations/reports/001-daily.sql": "CREATE TABLE daily (x);",
				"blocked": "a file where a directory should be",
			})
			set := appdb.New(dir, map[string]config.Database{
				"main":    {Path: filepath.Join(dir, "blocked", "main.db")},
				"reports": {Path: filepath.Join(dir, "reports.db")},
			})
			defer set.Close()
			ctx := context.Background()

			if _, err := set.Migrate(ctx, appdb.MigrateOptions{}); database.CodeOf(err) != database.CodeUnavailable {
				t.Errorf("Migrate without Defer = %v, want the database unavailable", err)
			}
			applied, err := set.Migrate(ctx, appdb.MigrateOptions{Defer: true})
			if err != nil || len(applied) != 1 || applied[0].Database != "reports" {
				t.Fatalf("Migrate with Defer = %v, %v; want reports migrated and no error", applied, err)
			}
			if err := set.Pending("main"); !errors.Is(err, appdb.ErrPending) || database.CodeOf(err) != database.CodeUnavailable {
				t.Errorf("Pending(main) = %v, want ErrPending for an unavailable database", err)
			}
			if err := set.Pending("reports"); err != nil {
				t.Errorf("Pending(reports) = %v, want nil", err)
			}
			if got := set.Waiting(); !slices.Equal(got, []string{"main"}) {
				t.Errorf("Waiting() = %v, want [main]", got)
			}
			// The database is named once, not again by the reason.
			if err := set.Ping(ctx); err == nil || !strings.HasPrefix(err.Error(), `database "main": its migrations are not applied yet: `) || strings.Count(err.Error(), `database "main"`) != 1 {
				t.Errorf("Ping = %v, want main not ready, named once", err)
			}

			attempts := make(chan appdb.Attempt)
			next := make(chan time.Time, 1)
			done := make(chan struct{})
			awaitCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() {
				defer close(done)
				set.Await(awaitCtx, appdb.Backoff{Min: time.Millisecond, Max: 5 * time.Millisecond},
					func(at time.Time) {
						select {
						case next <- at:
						default: // the test reads the first only
						}
					}, func(a appdb.Attempt) { attempts <- a })
			}()
			// Attempts fail while the database cannot be reached.
			if a := <-attempts; len(a.Applied)+len(a.Failed) != 0 || a.Pending["main"] == nil || a.Next == 0 {
				t.Errorf("an attempt while unreachable: %+v", a)
			}
			if at := <-next; at.IsZero() {
				t.Error("no time for the next attempt")
			}
			if err := os.Remove(filepath.Join(dir, "blocked")); err != nil {
				t.Fatal(err)
			}
			var last appdb.Attempt
			for a := range attempts {
				if len(a.Applied)+len(a.Failed) > 0 {
					last = a
					break
				}
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Await did not return once nothing waits for the database")
			}
			if tt.applied != "" {
				if len(last.Applied) != 1 || last.Applied[0].File != tt.applied || len(last.Failed) != 0 || len(last.Pending) != 0 || last.Next != 0 {
					t.Errorf("the attempt that applied: %+v, want %s applied and nothing pending", last, tt.applied)
				}
				if err := set.Pending("main"); err != nil {
					t.Errorf("Pending(main) once applied = %v", err)
				}
				if err := set.Ping(ctx); err != nil {
					t.Errorf("Ping once applied = %v", err)
				}
				return
			}
			if len(last.Failed) != 1 || !strings.Contains(last.Failed[0].Error(), tt.failed) || last.Next != 0 {
				t.Errorf("the attempt that failed: %+v, want %q", last, tt.failed)
			}
			if err := set.Pending("main"); !errors.Is(err, appdb.ErrPending) || !strings.Contains(err.Error(), tt.failed) {
				t.Errorf("Pending(main) after the failure = %v, want ErrPending and %q", err, tt.failed)
			}
			if got := set.Waiting(); len(got) != 0 {
				t.Errorf("Waiting() after the failure = %v, want none: a failure is not tried again", got)
			}
		})
	}
}

// TestAwaitNotes: an attempt of Await that reaches a database at last
// reports what it found there that is no error: here a migration the
// database recorded of which the app has no file.
func TestAwaitNotes(t *testing.T) {
	ctx := t.Context()
	// A database migrated by a newer release, with 002.
	newer := writeApp(t, map[string]string{
		"server/migrations/001-notes.sql": "CREATE TABLE notes (x);",
		"server/migrations/002-tags.sql":  "CREATE TABLE tags (x);",
	})
	prepared := filepath.Join(t.TempDir(), "data")
	ahead := appdb.New(newer, map[string]config.Database{"main": {Path: filepath.Join(prepared, "main.db")}})
	if _, err := ahead.Migrate(ctx, appdb.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	ahead.Close()

	// The database's directory is a link to a file: it cannot be
	// reached until the link is swapped, at once, for one to the data.
	dir := writeApp(t, map[string]string{
		"server/migrations/001-notes.sql": "CREATE TABLE notes (x);",
		"file":                            "a file where the database's directory should be",
	})
	if err := os.Symlink(filepath.Join(dir, "file"), filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	set := appdb.New(dir, map[string]config.Database{"main": {Path: filepath.Join(dir, "data", "main.db")}})
	defer set.Close()
	if _, err := set.Migrate(ctx, appdb.MigrateOptions{Defer: true, Note: func(n appdb.Note) { t.Errorf("noted %s while unreachable", n) }}); err != nil {
		t.Fatal(err)
	}
	attempts := make(chan appdb.Attempt)
	go set.Await(ctx, appdb.Backoff{Min: time.Millisecond, Max: 5 * time.Millisecond}, nil, func(a appdb.Attempt) {
		select {
		case attempts <- a:
		case <-ctx.Done():
		}
	})
	if a := <-attempts; a.Pending["main"] == nil || len(a.Notes) != 0 {
		t.Fatalf("an attempt while unreachable: %+v", a)
	}
	// The database becomes reachable: the one the newer release migrated.
	if err := os.Symlink(prepared, filepath.Join(dir, "data.new")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "data.new"), filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	for a := range attempts {
		if a.Pending["main"] != nil {
			continue
		}
		if len(a.Applied) != 0 || len(a.Notes) != 1 || a.Notes[0].Kind != appdb.NoteUnknown || a.Notes[0].Record.File() != "002-tags.sql" {
			t.Errorf("the attempt that reached the database: %+v, want nothing applied and 002-tags.sql noted unknown", a)
		}
		break
	}
}
