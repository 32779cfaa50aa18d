package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMigrate(t *testing.T) {
	app := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(app, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("endpoints.json", `{"databases": {"main": {}, "reports": {"path": "data/reports.db"}}}`)
	write("server/migrations/001-users.sql", "CREATE TABLE users (id INTEGER PRIMARY KEY);")
	write("server/migrations/reports/001-daily.sql", "CREATE TABLE daily (day TEXT);")
	tests := []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"migrate", "--dry-run", app}, 0, "would apply server/migrations/001-users.sql to database main\nwould apply server/migrations/reports/001-daily.sql to database reports\n", ""},
		{[]string{"migrate", "--database", "reports", app}, 0, "applied server/migrations/reports/001-daily.sql to database reports\n", ""},
		{[]string{"migrate", app}, 0, "applied server/migrations/001-users.sql to database main\n", ""},
		{[]string{"migrate", app}, 0, "every migration is applied\n", ""},
		{[]string{"migrate", "--database", "nope", app}, 1, "", `the app declares no database "nope"`},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(tt.args...)
		if code != tt.code || out != tt.out || !strings.Contains(errs, tt.errs) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, out, errs, tt.code, tt.out, tt.errs)
		}
	}
	write("server/migrations/002-bad.sql", "CREATE TABLE orders (id INTEGER);\nINSERT INTO nowhere VALUES (1);")
	code, _, errs := runCLI("migrate", app)
	if code != 1 || !strings.Contains(errs, `server/migrations/002-bad.sql: database "main": syntax: no such table: nowhere in the statement "INSERT INTO nowhere VALUES (1)"`) {
		t.Errorf("a failing migration: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(app, ".endpoints", "data", "main.db")); err != nil {
		t.Errorf("the default database file: %v", err)
	}
}
