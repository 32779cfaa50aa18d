package appdb_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/appdb"
)

// writeApp writes files into a new app directory.
func writeApp(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMigrationsRead(t *testing.T) {
	two := map[string]config.Database{"main": {}, "reports": {}}
	pg := map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: "postgres://db/app"}}
	tests := []struct {
		name  string
		dbs   map[string]config.Database
		files map[string]string
		want  string // files in order, or the error
	}{
		{"in version order, per database", two, map[string]string{
			"server/migrations/010-later.sql":         "SELECT 1;",
			"server/migrations/002-first.sql":         "SELECT 1;",
			"server/migrations/reports/001-daily.sql": "SELECT 1;",
			"server/migrations/README.md":             "notes",
		}, "main:2:first main:10:later reports:1:daily"},
		{"the one database an app declares takes the top files", map[string]config.Database{"app": {}}, map[string]string{
			"server/migrations/001-init.sql": "SELECT 1;",
		}, "app:1:init"},
		{"a bad name", nil, map[string]string{"server/migrations/init.sql": ""}, "server/migrations/init.sql: a migration is named NNN-name.sql"},
		{"two of one version", nil, map[string]string{"server/migrations/001-a.sql": "", "server/migrations/1-b.sql": ""}, "version 1 is also"},
		{"a directory of no database", nil, map[string]string{"server/migrations/other/001-a.sql": ""}, `server/migrations/other: names no database`},
		{"top files with no main", map[string]config.Database{"a": {}, "b": {}}, map[string]string{"server/migrations/001-a.sql": ""}, `the app declares no database "main"`},
		{"none", nil, map[string]string{}, ""},
		{"a NUL byte, past which SQLite reads nothing", nil, map[string]string{"server/migrations/001-a.sql": "CREATE TABLE a (x);\n\x00\nCREATE TABLE b (y);"}, "server/migrations/001-a.sql:2: a NUL byte"},
		{"a driver's file on SQLite", nil, map[string]string{
			"server/migrations/001-notes.sqlite.sql":   "SELECT 1;",
			"server/migrations/001-notes.postgres.sql": "SELECT 1;",
			"server/migrations/002-tags.sql":           "SELECT 1;",
		}, "main:1:notes(server/migrations/001-notes.sqlite.sql) main:2:tags"},
		{"a driver's file on PostgreSQL", pg, map[string]string{
			"server/migrations/001-notes.sqlite.sql":   "SELECT 1;",
			"server/migrations/001-notes.postgres.sql": "SELECT 1;",
			"server/migrations/002-tags.sql":           "SELECT 1;",
		}, "main:1:notes(server/migrations/001-notes.postgres.sql) main:2:tags"},
		{"a driver's file in a database's directory", map[string]config.Database{"main": {}, "reports": {Driver: config.DatabasePostgres, URL: "postgres://db/reports"}}, map[string]string{
			"server/migrations/reports/001-daily.sqlite.sql":   "SELECT 1;",
			"server/migrations/reports/001-daily.postgres.sql": "SELECT 1;",
		}, "reports:1:daily(server/migrations/reports/001-daily.postgres.sql)"},
		{"a dot in a name that is no driver's", nil, map[string]string{"server/migrations/001-v1.2.sql": ""}, "main:1:v1.2"},
		{"no file for the database's driver", nil, map[string]string{
			"server/migrations/001-notes.postgres.sql": "",
		}, `server/migrations/001-notes.postgres.sql: version 1 has no file for the driver sqlite of database "main", which applies it: add server/migrations/001-notes.sqlite.sql`},
		{"a file of every driver beside a driver's", pg, map[string]string{
			"server/migrations/001-notes.sql":          "",
			"server/migrations/001-notes.postgres.sql": "",
		}, "server/migrations/001-notes.sql: version 1 is also server/migrations/001-notes.postgres.sql, for one driver"},
		{"a file of every driver beside another driver's", nil, map[string]string{
			"server/migrations/001-notes.sql":          "",
			"server/migrations/001-notes.postgres.sql": "",
		}, "server/migrations/001-notes.sql: version 1 is also server/migrations/001-notes.postgres.sql, for one driver"},
		{"two of one version for one driver", nil, map[string]string{
			"server/migrations/001-a.sqlite.sql": "",
			"server/migrations/1-b.sqlite.sql":   "",
		}, "server/migrations/1-b.sqlite.sql: version 1 is also server/migrations/001-a.sqlite.sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := appdb.New(writeApp(t, tt.files), tt.dbs)
			ms, err := set.Migrations()
			var got []string
			for _, m := range ms {
				g := m.Database + ":" + strconv.FormatInt(m.Version, 10) + ":" + m.Name
				if m.Driver != "" {
					g += "(" + m.File + ")"
				}
				got = append(got, g)
			}
			s := strings.Join(got, " ")
			if err != nil {
				s = err.Error()
			}
			if !strings.Contains(s, tt.want) || (tt.want == "" && s != "") {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}

func TestMigrateChangedFile(t *testing.T) {
	dir := writeApp(t, map[string]string{"server/migrations/001-a.sql": "CREATE TABLE a (x);"})
	set := appdb.New(dir, nil)
	defer set.Close()
	ctx := context.Background()
	if done, err := set.Migrate(ctx, appdb.MigrateOptions{}); err != nil || len(done) != 1 {
		t.Fatalf("first run: %v, %v", done, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server/migrations/001-a.sql"), []byte("CREATE TABLE a (x, y);"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := set.Migrate(ctx, appdb.MigrateOptions{})
	if err == nil || !strings.Contains(err.Error(), "server/migrations/001-a.sql: changed since it was applied") || !strings.Contains(err.Error(), "(in development, deleting .endpoints/data/main.db starts the database again from its migrations)") {
		t.Errorf("a changed migration: %v", err)
	}
}

func TestSessionCloseRollsBack(t *testing.T) {
	dir := writeApp(t, map[string]string{"server/migrations/001-a.sql": "CREATE TABLE a (x);"})
	set := appdb.New(dir, nil)
	defer set.Close()
	if _, err := set.Migrate(context.Background(), appdb.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := appdb.NewSession(set, context.Background(), time.Now().Add(time.Minute), 1<<20, appdb.Hooks{})
	main := []byte("main")
	if e := s.Begin(main); e != 0 {
		t.Fatal(e)
	}
	if _, e := s.Run(main, []byte("INSERT INTO a VALUES (1)"), nil, true); e != 0 {
		t.Fatal(e)
	}
	if n := s.Close(); n != 1 {
		t.Errorf("Close rolled back %d transactions, want 1", n)
	}
	s2 := appdb.NewSession(set, context.Background(), time.Now().Add(time.Minute), 1<<20, appdb.Hooks{})
	if _, e := s2.Run(main, []byte("SELECT count(*) FROM a"), nil, false); e != 0 {
		t.Fatal(e)
	}
	if r, _ := s2.Result(); string(r) != `{"columns":["count(*)"],"rows":[[0]]}` {
		t.Errorf("after Close: %s, want the insert rolled back", r)
	}
	if _, e := s2.Run([]byte("nope"), []byte("SELECT 1"), nil, false); e != abi.ErrNotFound {
		t.Errorf("an undeclared database: errno %d, want ErrNotFound", e)
	}
	if _, ok := s2.Result(); ok {
		t.Error("a result is pending after ErrNotFound")
	}
}

// TestSessionRestart reuses one session for calls in turn, as the host's
// pooled calls do: a restart rolls back what the last call left open,
// forgets its pending result and last error, keeps the hooks, and answers
// the next call's statements under the next call's bounds.
func TestSessionRestart(t *testing.T) {
	dir := writeApp(t, map[string]string{"server/migrations/001-a.sql": "CREATE TABLE a (x);"})
	set := appdb.New(dir, nil)
	defer set.Close()
	if _, err := set.Migrate(context.Background(), appdb.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	var done []string
	hooks := appdb.Hooks{Done: func(db string, _ time.Duration, err error) { done = append(done, db) }}
	main := []byte("main")
	s := appdb.NewSession(set, context.Background(), time.Now().Add(time.Minute), 1<<20, hooks)
	if e := s.Begin(main); e != 0 {
		t.Fatal(e)
	}
	if _, e := s.Run(main, []byte("INSERT INTO a VALUES (1)"), nil, true); e != 0 {
		t.Fatal(e)
	}
	if _, e := s.Run(main, []byte("SELEC 1"), nil, false); e != abi.ErrDatabase {
		t.Fatalf("a syntax error: errno %d, want ErrDatabase", e)
	}

	// The call returned without a commit, and the pool hands the session
	// to the next call, whose result cap is smaller.
	s.Restart(set, context.Background(), time.Now().Add(time.Minute), 64)
	if _, ok := s.Result(); ok {
		t.Error("the last call's result is pending after a restart")
	}
	if code := s.LastError(); code != "" {
		t.Errorf("the last call's error %q outlived the restart", code)
	}
	if _, e := s.Run(main, []byte("SELECT count(*) FROM a"), nil, false); e != 0 {
		t.Fatal(e)
	}
	if r, _ := s.Result(); string(r) != `{"columns":["count(*)"],"rows":[[0]]}` {
		t.Errorf("after a restart: %s, want the open insert rolled back", r)
	}
	if _, e := s.Run(main, []byte("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 100) SELECT i FROM n"), nil, false); e != abi.ErrDatabase {
		t.Errorf("a result past the restarted cap of 64 bytes: errno %d, want ErrDatabase", e)
	}
	if e := s.Begin(main); e != 0 {
		t.Errorf("a transaction after a restart: errno %d", e)
	}
	if e := s.End(main, true); e != 0 {
		t.Errorf("its commit: errno %d", e)
	}
	// BEGIN, INSERT, SELEC; then SELECT, WITH, BEGIN, COMMIT.
	if len(done) != 7 {
		t.Errorf("the hooks saw %d statements, want 7 (the hooks are kept)", len(done))
	}
}

// TestSessionStatementStopsAtDeadline runs a query that never ends: the
// session's deadline stops it in SQLite, and its error says why. The
// session's context can be canceled, as a request's is, but is not.
func TestSessionStatementStopsAtDeadline(t *testing.T) {
	set := appdb.New(t.TempDir(), nil)
	defer set.Close()
	s := appdb.NewSession(set, t.Context(), time.Now().Add(100*time.Millisecond), 1<<20, appdb.Hooks{})
	_, e := s.Run([]byte("main"), []byte("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n"), nil, false)
	r, _ := s.Result()
	if e != abi.ErrDatabase || !strings.Contains(string(r), `"message":"the statement was stopped: context deadline exceeded"`) {
		t.Errorf("got errno %d, %s; want the statement stopped at the deadline", e, r)
	}
}

// TestSessionOutage: Outage names the outage of a call's last statement
// that failed unavailable or busy when no statement came after it: a
// guest that goes on to another statement that succeeds, or fails for a
// reason of its own (syntax), has got past the outage, and its failure
// after that is its own, not the database's (the host answers that 500,
// not 503, and counts it as the guest's failure).
func TestSessionOutage(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "postgres://app@" + l.Addr().String() + "/app?connect_timeout=5"
	l.Close() // nothing listens there: connecting is refused
	set := appdb.New(t.TempDir(), map[string]config.Database{
		"main": {Path: "data/main.db"},
		"down": {Driver: config.DatabasePostgres, URL: down},
	})
	defer set.Close()
	main, other := []byte("main"), []byte("down")
	for _, tt := range []struct {
		name       string
		statements []string // "db:sql"
		want       database.Code
	}{
		{"no statement", nil, ""},
		{"a statement that succeeds", []string{"main:SELECT 1"}, ""},
		{"the last statement unavailable", []string{"main:SELECT 1", "down:SELECT 1"}, database.CodeUnavailable},
		{"unavailable, then one that succeeds", []string{"down:SELECT 1", "main:SELECT 1"}, ""},
		{"unavailable, then a syntax error", []string{"down:SELECT 1", "main:SELEC 1"}, ""},
		// A rollback cleans up (an SDK's transaction dropped as the
		// guest fails): it does not get past the outage.
		{"unavailable in a transaction, then its rollback", []string{"begin:main", "down:SELECT 1", "rollback:main"}, database.CodeUnavailable},
		{"unavailable, then a rollback of no transaction", []string{"down:SELECT 1", "rollback:main"}, database.CodeUnavailable},
		{"unavailable, then a commit", []string{"begin:main", "down:SELECT 1", "commit:main"}, ""},
		// Parameters or transaction options the host refuses are the
		// guest's own failure too (ErrInvalid, with the reason pending).
		{"unavailable, then parameters refused", []string{"down:SELECT 1", "main:SELECT $1|[[1]]"}, ""},
		{"unavailable, then transaction options refused", []string{"down:SELECT 1", `beginwith:main|{"isolation":"snapshot"}`}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := appdb.NewSession(set, t.Context(), time.Now().Add(time.Minute), 1<<20, appdb.Hooks{})
			defer s.Close()
			for _, st := range tt.statements {
				db, sql, _ := strings.Cut(st, ":")
				sql, params, _ := strings.Cut(sql, "|")
				switch db {
				case "begin":
					s.Begin([]byte(sql))
				case "beginwith":
					s.BeginWith([]byte(sql), []byte(params))
				case "commit", "rollback":
					s.End([]byte(sql), db == "commit")
				case "down":
					s.Run(other, []byte(sql), nil, false)
				default:
					s.Run(main, []byte(sql), []byte(params), false)
				}
			}
			if got := s.Outage(); got != tt.want {
				t.Errorf("Outage() = %q, want %q (last error %q)", got, tt.want, s.LastError())
			}
		})
	}
}
