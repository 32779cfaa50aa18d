package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/syncbuf"
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
		{[]string{"migrate", app}, 0, "every migration of the app is applied: database main (sqlite .endpoints/data/main.db), database reports (sqlite data/reports.db)\n", ""},
		{[]string{"migrate", "--database", "main", app}, 0, "every migration of the app is applied: database main (sqlite .endpoints/data/main.db)\n", ""},
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

// TestMigrateLocation: migrate names where each database is: the
// server, port, database and user a PostgreSQL url resolves to in each of
// its spellings (with libpq's environment, here empty), never its
// password.
func TestMigrateLocation(t *testing.T) {
	for _, v := range []string{"PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGSERVICE", "PGSSLMODE"} {
		t.Setenv(v, "") // pgx reads an empty variable as unset
	}
	tests := []struct {
		name string
		db   config.Database
		want string
	}{
		{"sqlite by default", config.Database{}, "sqlite .endpoints/data/main.db"},
		{"sqlite at a path", config.Database{Path: "/var/lib/app/main.db"}, "sqlite /var/lib/app/main.db"},
		{"a url", config.Database{Driver: "postgres", URL: "postgres://app:s3cret@db.internal:5433/shop?sslmode=require"}, "postgres host=db.internal port=5433 dbname=shop user=app"},
		{"a url over a Unix socket", config.Database{Driver: "postgres", URL: "postgresql://app:s3cret@/shop?host=/run/postgresql"}, "postgres host=/run/postgresql port=5432 dbname=shop user=app"},
		{"key=value settings", config.Database{Driver: "postgres", URL: "host=db port=5432 dbname=shop user=app password=s3cret"}, "postgres host=db port=5432 dbname=shop user=app"},
		// Urls the driver reads as libpq does, which url.Parse refuses.
		{"a password holding ^ and #", config.Database{Driver: "postgres", URL: "postgres://app:s3cret^#@db.internal:5433/shop?sslmode=require"}, "postgres host=db.internal port=5433 dbname=shop user=app"},
		{"hosts, the last without a port", config.Database{Driver: "postgres", URL: "postgres://app:s3cret@db1:5432,db2/shop"}, "postgres host=db1,db2 port=5432,5432 dbname=shop user=app"},
		{"a socket directory as the host", config.Database{Driver: "postgres", URL: "postgres://app@%2Frun%2Fpostgresql/shop"}, "postgres host=/run/postgresql port=5432 dbname=shop user=app"},
		{"no database: the user's, as the server takes it", config.Database{Driver: "postgres", URL: "postgres://app:s3cret@db.internal"}, "postgres host=db.internal port=5432 dbname=app user=app"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := appdb.New(t.TempDir(), map[string]config.Database{"main": tt.db})
			defer set.Close()
			got := location(context.Background(), set, "main")
			if got != tt.want || strings.Contains(got, "s3cret") {
				t.Errorf("location = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestMigrateWarns: migrate, and its dry run, warn of each migration the
// database recorded of which the app has no file (a rollback of the app:
// the database is ahead of it), naming the file, when it was applied and
// its checksum, and of a file applied after migrations of higher
// numbers; neither fails the run, and the file out of order is applied.
func TestMigrateWarns(t *testing.T) {
	app := t.TempDir()
	mig := filepath.Join(app, "server", "migrations")
	if err := os.MkdirAll(mig, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, sql string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(mig, name), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("001-users.sql", "CREATE TABLE users (id INTEGER PRIMARY KEY);")
	write("003-email.sql", "ALTER TABLE users ADD COLUMN email TEXT;")
	if code, _, errs := runCLI("migrate", app); code != 0 || errs != "" {
		t.Fatalf("the first release: exit %d, %s", code, errs)
	}
	// The app is rolled back to a release without 003, with a file 002
	// from another branch.
	if err := os.Remove(filepath.Join(mig, "003-email.sql")); err != nil {
		t.Fatal(err)
	}
	write("002-orders.sql", "CREATE TABLE orders (id INTEGER PRIMARY KEY);")
	sum := sha256.Sum256([]byte("ALTER TABLE users ADD COLUMN email TEXT;"))
	unknown := "endpoints migrate: warning: database main has 003-email.sql, applied 20"
	late := "endpoints migrate: warning: server/migrations/002-orders.sql runs on database main after 003-email.sql"
	tests := []struct {
		args []string
		out  string
		// errs are in stderr, which has a line per warning: warnings.
		errs     []string
		warnings int
	}{
		{[]string{"migrate", "--dry-run", app}, "would apply server/migrations/002-orders.sql to database main (sqlite .endpoints/data/main.db)\n",
			[]string{unknown, "(checksum " + hex.EncodeToString(sum[:]) + ")", "roll the app forward", late}, 2},
		{[]string{"migrate", app}, "applied server/migrations/002-orders.sql to database main (sqlite .endpoints/data/main.db)\n", []string{unknown, late}, 2},
		{[]string{"migrate", app}, "every migration of the app is applied: database main (sqlite .endpoints/data/main.db)\n", []string{unknown}, 1},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(tt.args...)
		if code != 0 || out != tt.out {
			t.Errorf("%v: exit %d, stdout %q; want 0, %q", tt.args, code, out, tt.out)
		}
		for _, want := range tt.errs {
			if !strings.Contains(errs, want) {
				t.Errorf("%v: stderr %q lacks %q", tt.args, errs, want)
			}
		}
		if n := strings.Count(errs, "\n"); n != tt.warnings || strings.Count(errs, ": warning: ") != tt.warnings {
			t.Errorf("%v: stderr %q, want %d warnings, one a line", tt.args, errs, tt.warnings)
		}
	}
}

// TestMigrateWithLibpqEnvironment: a database that is PostgreSQL
// ("driver": "postgres", here by ENDPOINTS_DATABASES_MAIN_DRIVER) without
// a url takes its settings from libpq's environment alone (PGHOST,
// PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE): `endpoints migrate`
// migrates the real server they name and says where it is, as the
// host's start log does, never the password. Without PGHOST, migrate
// fails saying what to set.
func TestMigrateWithLibpqEnvironment(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	server, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(int(server.Port))
	env := map[string]string{"ENDPOINTS_DATABASES_MAIN_DRIVER": "postgres",
		"PGHOST": server.Host, "PGPORT": port, "PGDATABASE": server.Database, "PGUSER": server.User, "PGPASSWORD": "s3cret", "PGSSLMODE": "disable"}
	for _, v := range []string{"PGPASSFILE", "PGSERVICE", "PGSERVICEFILE"} {
		t.Setenv(v, "")
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	app := writeApp(t, map[string]string{"server/migrations/001-notes.sql": "CREATE TABLE notes (id BIGINT PRIMARY KEY);"})
	where := fmt.Sprintf("postgres host=%s port=%s dbname=%s user=%s", server.Host, port, server.Database, server.User)
	code, out, errOut := runCLI("migrate", app)
	if want := "applied server/migrations/001-notes.sql to database main (" + where + ")\n"; code != exitOK || out != want || strings.Contains(out+errOut, "s3cret") {
		t.Fatalf("migrate = %d, stdout %q, stderr %q; want 0 and %q", code, out, errOut, want)
	}
	// The host's start says so too.
	var log syncbuf.Buffer
	ovs, _ := config.OverridesFromEnv(os.Environ())
	h, err := host.New(t.Context(), app, host.Options{Mode: host.Production, CacheDir: "off", ConfigOverrides: ovs,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if want := fmt.Sprintf("msg=database database=main location=%q", where); !strings.Contains(log.String(), want) || strings.Contains(log.String(), "s3cret") {
		t.Errorf("the start's log lacks %s (or shows the password):\n%s", want, log.String())
	}
	t.Setenv("PGHOST", "")
	code, out, errOut = runCLI("migrate", app)
	if want := "endpoints.json: /databases/main: databases.main.url is empty, so libpq's environment gives the connection settings, and it names no server: set PGHOST (and PGPORT unless 5432)"; code != exitError || !strings.Contains(errOut, want) {
		t.Errorf("migrate without PGHOST = %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
	}
}
