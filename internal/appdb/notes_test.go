package appdb_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	_ "github.com/wasmendpoints/endpoints/database/postgres"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// notesCases are releases of an app migrated in turn, then the run whose
// notes are checked.
var notesCases = []struct {
	name string
	// before are the releases (migration file name: SQL) migrated in turn.
	before []map[string]string
	// now is the release of the run checked.
	now    map[string]string
	dryRun bool
	// applied are the files the run applies (or would apply); notes
	// what it notes, "KIND FILE [after FILE...]" each.
	applied, notes []string
}{
	{
		name:   "nothing to say",
		before: []map[string]string{{"001-a.sql": "CREATE TABLE a (x INTEGER);"}},
		now:    map[string]string{"001-a.sql": "CREATE TABLE a (x INTEGER);", "002-b.sql": "CREATE TABLE b (x INTEGER);"},
		applied: []string{
			"server/migrations/002-b.sql",
		},
	},
	{
		name: "a rollback: the database has migrations the app has no file of",
		before: []map[string]string{{
			"001-a.sql": "CREATE TABLE a (x INTEGER);",
			"002-b.sql": "CREATE TABLE b (x INTEGER);",
			"003-c.sql": "ALTER TABLE a ADD COLUMN y INTEGER;",
		}},
		now:   map[string]string{"001-a.sql": "CREATE TABLE a (x INTEGER);"},
		notes: []string{"unknown 002-b.sql", "unknown 003-c.sql"},
	},
	{
		name: "a rollback, listed by a dry run too",
		before: []map[string]string{{
			"001-a.sql": "CREATE TABLE a (x INTEGER);",
			"002-b.sql": "CREATE TABLE b (x INTEGER);",
		}},
		now:    map[string]string{"001-a.sql": "CREATE TABLE a (x INTEGER);"},
		dryRun: true,
		notes:  []string{"unknown 002-b.sql"},
	},
	{
		name: "a file added below the highest applied number is applied, noted",
		before: []map[string]string{{
			"001-a.sql": "CREATE TABLE a (x INTEGER);",
			"003-c.sql": "CREATE TABLE c (x INTEGER);",
			"004-d.sql": "CREATE TABLE d (x INTEGER);",
		}},
		now: map[string]string{
			"001-a.sql": "CREATE TABLE a (x INTEGER);",
			"002-b.sql": "CREATE TABLE b (x INTEGER);",
			"003-c.sql": "CREATE TABLE c (x INTEGER);",
			"004-d.sql": "CREATE TABLE d (x INTEGER);",
			"005-e.sql": "CREATE TABLE e (x INTEGER);",
		},
		applied: []string{"server/migrations/002-b.sql", "server/migrations/005-e.sql"},
		notes:   []string{"out of order server/migrations/002-b.sql after 003-c.sql 004-d.sql"},
	},
	{
		name: "out of order in a dry run",
		before: []map[string]string{{
			"001-a.sql": "CREATE TABLE a (x INTEGER);",
			"003-c.sql": "CREATE TABLE c (x INTEGER);",
		}},
		now: map[string]string{
			"001-a.sql": "CREATE TABLE a (x INTEGER);",
			"002-b.sql": "CREATE TABLE b (x INTEGER);",
			"003-c.sql": "CREATE TABLE c (x INTEGER);",
		},
		dryRun:  true,
		applied: []string{"server/migrations/002-b.sql"},
		notes:   []string{"out of order server/migrations/002-b.sql after 003-c.sql"},
	},
	{
		name: "both: a rollback to a release with a file the database lacks",
		before: []map[string]string{
			{"001-a.sql": "CREATE TABLE a (x INTEGER);"},
			{"001-a.sql": "CREATE TABLE a (x INTEGER);", "003-c.sql": "CREATE TABLE c (x INTEGER);"},
		},
		now:     map[string]string{"001-a.sql": "CREATE TABLE a (x INTEGER);", "002-b.sql": "CREATE TABLE b (x INTEGER);"},
		applied: []string{"server/migrations/002-b.sql"},
		notes:   []string{"unknown 003-c.sql", "out of order server/migrations/002-b.sql after 003-c.sql"},
	},
}

// TestMigrateNotes: on SQLite, a run of Migrate notes each migration the
// database recorded of which the app has no file (a rollback of the app),
// with when it was applied and its checksum, and each migration it
// applies after migrations of higher numbers; neither is an error, and
// the out-of-order one is applied.
func TestMigrateNotes(t *testing.T) {
	for _, tt := range notesCases {
		t.Run(tt.name, func(t *testing.T) {
			checkNotes(t, nil, tt.before, tt.now, tt.dryRun, tt.applied, tt.notes)
		})
	}
}

// TestMigrateNotesPostgres is TestMigrateNotes on PostgreSQL, each case
// in a database of its own on one server.
func TestMigrateNotesPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	url, _, _ := databasetest.StartPostgres(t)
	admin, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for i, tt := range notesCases {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("notes%d", i)
			if _, err := admin.Exec(t.Context(), "CREATE DATABASE "+name, nil); err != nil {
				t.Fatal(err)
			}
			dbs := map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: strings.Replace(url, "/postgres?", "/"+name+"?", 1)}}
			checkNotes(t, dbs, tt.before, tt.now, tt.dryRun, tt.applied, tt.notes)
		})
	}
}

func checkNotes(t *testing.T, dbs map[string]config.Database, before []map[string]string, now map[string]string, dryRun bool, wantApplied, wantNotes []string) {
	t.Helper()
	start := time.Now().UTC().Add(-time.Second)
	dir := t.TempDir()
	release := func(files map[string]string) {
		t.Helper()
		mig := filepath.Join(dir, filepath.FromSlash(appdb.MigrationsDir))
		if err := os.RemoveAll(mig); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(mig, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, sql := range files {
			if err := os.WriteFile(filepath.Join(mig, name), []byte(sql), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	set := appdb.New(dir, dbs)
	defer set.Close()
	sums := map[string]string{} // file name: checksum of the releases before
	for i, files := range before {
		release(files)
		if _, err := set.Migrate(t.Context(), appdb.MigrateOptions{Note: func(n appdb.Note) { t.Errorf("release %d: noted %s", i, n) }}); err != nil {
			t.Fatalf("release %d: %v", i, err)
		}
		for name, sql := range files {
			sum := sha256.Sum256([]byte(sql))
			sums[name] = hex.EncodeToString(sum[:])
		}
	}
	release(now)
	var notes []string
	done, err := set.Migrate(t.Context(), appdb.MigrateOptions{DryRun: dryRun, Note: func(n appdb.Note) {
		if n.Database != "main" {
			t.Errorf("a note of database %q, want main", n.Database)
		}
		switch n.Kind {
		case appdb.NoteUnknown:
			notes = append(notes, "unknown "+n.Record.File())
			if n.Record.Checksum != sums[n.Record.File()] {
				t.Errorf("%s: checksum %q, want that of the file applied, %q", n.Record.File(), n.Record.Checksum, sums[n.Record.File()])
			}
			if at, err := time.Parse(time.RFC3339, n.Record.AppliedAt); err != nil || at.Before(start) || at.After(time.Now()) {
				t.Errorf("%s: applied at %q (%v), want the time of the run", n.Record.File(), n.Record.AppliedAt, err)
			}
			for _, want := range []string{"database main has " + n.Record.File() + ", applied " + n.Record.AppliedAt + " (checksum " + n.Record.Checksum + ")", "rolled back", "roll the app forward"} {
				if !strings.Contains(n.String(), want) {
					t.Errorf("note %q lacks %q", n, want)
				}
			}
		case appdb.NoteOutOfOrder:
			s := "out of order " + n.Migration.File + " after"
			for _, r := range n.Later {
				s += " " + r.File()
			}
			notes = append(notes, s)
			if !strings.HasPrefix(n.String(), n.Migration.File+" runs on database main after ") {
				t.Errorf("note %q does not begin with the file and database", n)
			}
		default:
			t.Errorf("a note of kind %q", n.Kind)
		}
	}})
	if err != nil {
		t.Fatalf("the run: %v", err)
	}
	var applied []string
	for _, m := range done {
		applied = append(applied, m.File)
	}
	if !slices.Equal(applied, wantApplied) {
		t.Errorf("applied %q, want %q", applied, wantApplied)
	}
	if !slices.Equal(notes, wantNotes) {
		t.Errorf("noted %q, want %q", notes, wantNotes)
	}
	if dryRun {
		return
	}
	// What was applied is recorded: a run again notes no migration out
	// of order, only the files still unknown.
	var again []string
	if _, err := set.Migrate(t.Context(), appdb.MigrateOptions{Note: func(n appdb.Note) { again = append(again, string(n.Kind)+" "+n.Record.File()) }}); err != nil {
		t.Fatal(err)
	}
	var unknown []string
	for _, n := range wantNotes {
		if strings.HasPrefix(n, "unknown ") {
			unknown = append(unknown, n)
		}
	}
	if !slices.Equal(again, unknown) {
		t.Errorf("a second run noted %q, want %q", again, unknown)
	}
}
