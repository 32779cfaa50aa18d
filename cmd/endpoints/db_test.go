package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
)

// TestDBBackup: endpoints db backup copies the app's SQLite database into
// a new file that opens with its rows; it refuses an existing file, a
// PostgreSQL database (saying pg_dump), an undeclared one, a database
// file not made yet, and a missing --to.
func TestDBBackup(t *testing.T) {
	app := t.TempDir()
	for rel, content := range map[string]string{
		"endpoints.json":                  `{"databases": {"main": {}, "reports": {"path": "data/reports.db"}}}`,
		"server/migrations/001-users.sql": "CREATE TABLE users (id INTEGER PRIMARY KEY); INSERT INTO users VALUES (7);",
	} {
		p := filepath.Join(app, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errs := runCLI("migrate", "--database", "main", app); code != exitOK {
		t.Fatalf("migrate: %s", errs)
	}
	to := filepath.Join(t.TempDir(), "main-backup.db")
	tests := []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"db", "backup", app, "--to", to}, exitOK, "backed up database main (" + filepath.Join(app, ".endpoints/data/main.db") + ") to " + to + "\n", ""},
		{[]string{"db", "backup", app, "--to", to}, exitError, "", to + " exists: a backup is written to a new file"},
		{[]string{"db", "backup", "--database", "reports", app, "--to", to + "2"}, exitError, "", "the database file " + filepath.Join(app, "data/reports.db") + ": "},
		{[]string{"db", "backup", "--database", "nope", app, "--to", to + "2"}, exitError, "", `the app declares no such database "nope" (declared: [main reports])`},
		{[]string{"db", "backup", "--set", "databases.main.url=postgres://u:pw@db/app", app, "--to", to + "2"}, exitError, "", `database "main" is a postgres database (/databases/main/driver): back it up with its own tools (pg_dump for PostgreSQL)`},
		{[]string{"db", "backup", app}, exitUsage, "", "--to FILE is required"},
		{[]string{"db", app}, exitUsage, "", "want a subcommand: endpoints db backup APP --to FILE"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(tt.args...)
		if code != tt.code || out != tt.out || !strings.Contains(errs, tt.errs) || (tt.errs == "" && errs != "") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, out, errs, tt.code, tt.out, tt.errs)
		}
	}
	db, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: to})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(t.Context(), "SELECT id FROM users", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("the backup has no user: %v", rows.Err())
	}
	if vals, err := rows.Values(); err != nil || vals[0] != int64(7) {
		t.Errorf("the backup's user: %v, %v; want 7", vals, err)
	}
	if _, err := os.Stat(filepath.Join(app, "data/reports.db")); err == nil {
		t.Error("backing up a database never used created its file")
	}
}
