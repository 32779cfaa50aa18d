package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/appdb"
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
		{[]string{"migrate", "--dry-run", app}, 0, "would apply server/migrations/001-users.sql to database main (sqlite .endpoints/data/main.db)\nwould apply server/migrations/reports/001-daily.sql to database reports (sqlite data/reports.db)\n", ""},
		{[]string{"migrate", "--database", "reports", app}, 0, "applied server/migrations/reports/001-daily.sql to database reports (sqlite data/reports.db)\n", ""},
		{[]string{"migrate", app}, 0, "applied server/migrations/001-users.sql to database main (sqlite .endpoints/data/main.db)\n", ""},
		{[]string{"migrate", app}, 0, "every migration is applied: database main (sqlite .endpoints/data/main.db), database reports (sqlite data/reports.db)\n", ""},
		{[]string{"migrate", "--database", "main", app}, 0, "every migration is applied: database main (sqlite .endpoints/data/main.db)\n", ""},
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

// TestMigrateLocation: migrate names where each database is, the server
// and database of a PostgreSQL url in each of its spellings, never its
// user or password.
func TestMigrateLocation(t *testing.T) {
	tests := []struct {
		name string
		db   config.Database
		want string
	}{
		{"sqlite by default", config.Database{}, "sqlite .endpoints/data/main.db"},
		{"sqlite at a path", config.Database{Path: "/var/lib/app/main.db"}, "sqlite /var/lib/app/main.db"},
		{"a url", config.Database{Driver: "postgres", URL: "postgres://app:s3cret@db.internal:5433/shop?sslmode=require"}, "postgres db.internal:5433/shop"},
		{"a url over a Unix socket", config.Database{Driver: "postgres", URL: "postgresql://app:s3cret@/shop?host=/run/postgresql"}, "postgres /run/postgresql/shop"},
		{"key=value settings", config.Database{Driver: "postgres", URL: "host=db port=5432 dbname=shop user=app password=s3cret"}, "postgres db:5432/shop"},
		// Urls the driver reads as libpq does, which url.Parse refuses:
		// they said "postgres /".
		{"a password holding ^ and #", config.Database{Driver: "postgres", URL: "postgres://app:s3cret^#@db.internal:5433/shop?sslmode=require"}, "postgres db.internal:5433/shop"},
		{"hosts, the last without a port", config.Database{Driver: "postgres", URL: "postgres://app:s3cret@db1:5432,db2/shop"}, "postgres db1:5432,db2/shop"},
		{"a socket directory as the host", config.Database{Driver: "postgres", URL: "postgres://%2Frun%2Fpostgresql/shop"}, "postgres /run/postgresql/shop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := location(appdb.New(t.TempDir(), map[string]config.Database{"main": tt.db}), "main")
			if got != tt.want || strings.Contains(got, "s3cret") || strings.Contains(got, "app@") {
				t.Errorf("location = %q, want %q", got, tt.want)
			}
		})
	}
}
