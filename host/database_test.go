package host_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	_ "github.com/wasmendpoints/endpoints/database/postgres"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// dbGuest is a plain route that runs the database operations its x-ops
// header lists, one letter each, on the database of x-db with the
// statement of x-sql and the parameters of x-params: q db_query, e
// db_exec, b db_begin, w db_begin_with (the options of x-opts; after
// -2 the line is followed by the pending result), c db_commit, r
// db_rollback, t trap, l loop until the deadline, o db_timeout(100), O
// db_timeout(0), n db_timeout(-1). After each it writes a line: the pending result (db_result)
// for a result or ErrDatabase, "ok" for a transaction call that succeeded,
// "!N" for errno -N. It writes its answer once, at the end, so that a trap
// or a deadline leaves nothing sent and the host answers 500.
var dbGuest = watModule{
	imports: `
  (import "endpoints" "db_query" (func $db_query (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "endpoints" "db_exec" (func $db_exec (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "endpoints" "db_result" (func $db_result (param i32 i32) (result i32)))
  (import "endpoints" "db_begin" (func $db_begin (param i32 i32) (result i32)))
  (import "endpoints" "db_begin_with" (func $db_begin_with (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "db_commit" (func $db_commit (param i32 i32) (result i32)))
  (import "endpoints" "db_rollback" (func $db_rollback (param i32 i32) (result i32)))
  (import "endpoints" "db_timeout" (func $db_timeout (param i32) (result i32)))
`,
	extra: `
  (data (i32.const 3000) "x-db")
  (data (i32.const 3010) "x-sql")
  (data (i32.const 3020) "x-params")
  (data (i32.const 3030) "x-ops")
  (data (i32.const 3040) "x-opts")
  (global $optsLen (mut i32) (i32.const 0))
  (func $hdr (param $name i32) (param $len i32) (param $buf i32) (param $cap i32) (result i32)
    (local $n i32)
    (local.set $n (call $request_header (local.get $name) (local.get $len) (local.get $buf) (local.get $cap)))
    (if (i32.lt_s (local.get $n) (i32.const 0)) (then (return (i32.const 0))))
    (local.get $n))
  (global $out (mut i32) (i32.const 131072))
  (func $put (param $c i32)
    (i32.store8 (global.get $out) (local.get $c))
    (global.set $out (i32.add (global.get $out) (i32.const 1))))
  (func $report (param $r i32) (param $sized i32)
    (local $n i32)
    (if (i32.or (i32.eq (local.get $r) (i32.const -8))
                (i32.and (local.get $sized) (i32.ge_s (local.get $r) (i32.const 0))))
      (then
        (local.set $n (call $db_result (global.get $out) (i32.sub (i32.const 262144) (global.get $out))))
        (global.set $out (i32.add (global.get $out) (local.get $n))))
      (else
        (if (i32.eqz (local.get $r))
          (then (call $put (i32.const 111)) (call $put (i32.const 107)))
          (else (call $put (i32.const 33)) (call $put (i32.sub (i32.const 48) (local.get $r)))))))
    (call $put (i32.const 10)))
`,
	handle: `(global.set $out (i32.const 131072))
    (global.set $optsLen (call $hdr (i32.const 3040) (i32.const 6) (i32.const 81000) (i32.const 1024)))
    (call $run
      (call $hdr (i32.const 3000) (i32.const 4) (i32.const 70000) (i32.const 64))
      (call $hdr (i32.const 3010) (i32.const 5) (i32.const 71000) (i32.const 4096))
      (call $hdr (i32.const 3020) (i32.const 8) (i32.const 76000) (i32.const 4096))
      (call $hdr (i32.const 3030) (i32.const 5) (i32.const 70100) (i32.const 64)))
    (drop (call $write (i32.const 131072) (i32.sub (global.get $out) (i32.const 131072))))
    (i32.const 0)`,
}

func init() {
	dbGuest.extra += `
  (func $run (param $db i32) (param $sql i32) (param $params i32) (param $ops i32)
    (local $i i32) (local $op i32) (local $r i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $ops)))
        (local.set $op (i32.load8_u (i32.add (i32.const 70100) (local.get $i))))
        (if (i32.eq (local.get $op) (i32.const 113)) ;; q
          (then (call $report (call $db_query (i32.const 70000) (local.get $db) (i32.const 71000) (local.get $sql) (i32.const 76000) (local.get $params)) (i32.const 1))))
        (if (i32.eq (local.get $op) (i32.const 101)) ;; e
          (then (call $report (call $db_exec (i32.const 70000) (local.get $db) (i32.const 71000) (local.get $sql) (i32.const 76000) (local.get $params)) (i32.const 1))))
        (if (i32.eq (local.get $op) (i32.const 98)) ;; b
          (then (call $report (call $db_begin (i32.const 70000) (local.get $db)) (i32.const 0))))
        (if (i32.eq (local.get $op) (i32.const 119)) ;; w
          (then
            (local.set $r (call $db_begin_with (i32.const 70000) (local.get $db) (i32.const 81000) (global.get $optsLen)))
            (call $report (local.get $r) (i32.const 0))
            (if (i32.eq (local.get $r) (i32.const -2))
              (then (call $report (i32.const -8) (i32.const 0))))))
        (if (i32.eq (local.get $op) (i32.const 99)) ;; c
          (then (call $report (call $db_commit (i32.const 70000) (local.get $db)) (i32.const 0))))
        (if (i32.eq (local.get $op) (i32.const 114)) ;; r
          (then (call $report (call $db_rollback (i32.const 70000) (local.get $db)) (i32.const 0))))
        (if (i32.eq (local.get $op) (i32.const 111)) ;; o
          (then (call $report (call $db_timeout (i32.const 100)) (i32.const 0))))
        (if (i32.eq (local.get $op) (i32.const 79)) ;; O
          (then (call $report (call $db_timeout (i32.const 0)) (i32.const 0))))
        (if (i32.eq (local.get $op) (i32.const 110)) ;; n
          (then (call $report (call $db_timeout (i32.const -1)) (i32.const 0))))
        (if (i32.eq (local.get $op) (i32.const 116)) ;; t
          (then unreachable))
        (if (i32.eq (local.get $op) (i32.const 108)) ;; l
          (then (loop $forever (br $forever))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))
`
}

// dbDo sends one request to the database guest.
func dbDo(t *testing.T, srv *httptest.Server, db, ops, sql, params string) response {
	t.Helper()
	return do(t, srv, "GET", "/db", "", "x-db", db, "x-ops", ops, "x-sql", sql, "x-params", params)
}

// dbApp is an app serving dbGuest at /db with endpoints.json cfg.
func dbApp(t *testing.T, cfg string) *app {
	a := newApp(t).wat("server/routes/db.get.wasm", dbGuest)
	if cfg != "" {
		a.file("endpoints.json", []byte(cfg))
	}
	return a
}

func TestDatabaseSQLite(t *testing.T) {
	t.Parallel()
	a := dbApp(t, `{"limits": {"timeout": "1s", "sqlResultBytes": 2000}}`)
	srv, logs := a.serve(host.Options{})
	tests := []struct {
		name, db, ops, sql, params string
		status                     int
		want                       string
	}{
		{"create", "main", "e", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)", "", 200, `{"rowsAffected":0,"lastInsertId":0}` + "\n"},
		{"insert with parameters", "main", "e", "INSERT INTO users (name) VALUES ($1)", `["Ada"]`, 200, `{"rowsAffected":1,"lastInsertId":1}` + "\n"},
		{"query", "main", "q", "SELECT id, name FROM users WHERE id = ?", `[1]`, 200, `{"columns":["id","name"],"rows":[[1,"Ada"]]}` + "\n"},
		{"unique violation", "main", "e", "INSERT INTO users (name) VALUES ($1)", `["Ada"]`, 200, `{"error":{"code":"constraint","constraint":"users.name","kind":"unique","message":"UNIQUE constraint failed: users.name"}}` + "\n"},
		{"injection stays a value", "main", "q", "SELECT count(*) AS n FROM users WHERE name = $1", `["x' OR '1'='1"]`, 200, `{"columns":["n"],"rows":[[0]]}` + "\n"},
		{"two statements refused", "main", "e", "DELETE FROM users; DROP TABLE users", "", 200, `{"error":{"code":"denied","message":"the SQL text holds more than one statement; run one per call"}}` + "\n"},
		{"attach refused", "main", "e", "ATTACH DATABASE 'other.db' AS other", "", 200, `{"error":{"code":"denied","message":"not authorized: a guest may not ATTACH, load extensions, run PRAGMAs other than schema information, or control transactions in SQL (db_begin does)"}}` + "\n"},
		{"file pragma refused", "main", "q", "PRAGMA journal_mode=DELETE", "", 200, `{"error":{"code":"denied","message":"not authorized: a guest may not ATTACH, load extensions, run PRAGMAs other than schema information, or control transactions in SQL (db_begin does)"}}` + "\n"},
		{"unknown database", "other", "q", "SELECT 1", "", 200, "!1\n"},
		{"bad parameters", "main", "q", "SELECT ?", `{"a": 1}`, 200, "!2\n"},
		{"result too large", "main", "q", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 1000) SELECT i FROM n", "", 200, `{"error":{"code":"too_large","message":"the result is larger than limits.sqlResultBytes (2000 bytes): select fewer rows (LIMIT) or columns"}}` + "\n"},
		{"commit without begin", "main", "c", "", "", 200, `{"error":{"code":"transaction","message":"no transaction is open on database main: call db_begin first"}}` + "\n"},
		{"second begin", "main", "bbr", "", "", 200, "ok\n" + `{"error":{"code":"transaction","message":"a transaction is already open on database main in this call: commit or roll it back first"}}` + "\nok\n"},
		{"committed transaction", "main", "bec", "INSERT INTO users (name) VALUES ('Grace')", "", 200, "ok\n" + `{"rowsAffected":1,"lastInsertId":2}` + "\nok\n"},
		{"rolled back transaction", "main", "ber", "INSERT INTO users (name) VALUES ('Tmp')", "", 200, "ok\n" + `{"rowsAffected":1,"lastInsertId":3}` + "\nok\n"},
		{"return without commit", "main", "be", "INSERT INTO users (name) VALUES ('Left')", "", 200, "ok\n" + `{"rowsAffected":1,"lastInsertId":3}` + "\n"},
		{"trap in a transaction", "main", "bet", "INSERT INTO users (name) VALUES ('Trapped')", "", 500, ""},
		{"deadline in a transaction", "main", "bel", "INSERT INTO users (name) VALUES ('Late')", "", 500, ""},
		{"deadline stops a long query", "main", "q", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n", "", 500, ""},
		// Had a transaction above been left open, its write lock would
		// stop this one.
		{"writes go on after those", "main", "bec", "INSERT INTO users (name) VALUES ('After')", "", 200, "ok\n" + `{"rowsAffected":1,"lastInsertId":3}` + "\nok\n"},
		{"only committed rows remain", "main", "q", "SELECT name FROM users ORDER BY id", "", 200, `{"columns":["name"],"rows":[["Ada"],["Grace"],["After"]]}` + "\n"},
	}
	for _, tt := range tests {
		began := time.Now()
		res := dbDo(t, srv, tt.db, tt.ops, tt.sql, tt.params)
		if res.status != tt.status || (tt.status == 200 && res.body != tt.want) {
			t.Errorf("%s: got %d %s\nwant %d %s\nlog:\n%s", tt.name, res.status, res.body, tt.status, tt.want, logs)
		}
		if d := time.Since(began); d > 5*time.Second {
			t.Errorf("%s: took %s, past the 1 s deadline", tt.name, d)
		}
	}
	if !strings.Contains(logs.String(), "rolled back") {
		t.Errorf("the log does not tell the transactions left open were rolled back:\n%s", logs)
	}
	if _, err := os.Stat(filepath.Join(a.dir, filepath.FromSlash(config.DefaultDatabasePath))); err != nil {
		t.Errorf("the default database is not at %s: %v", config.DefaultDatabasePath, err)
	}
}

// TestDatabaseAppsApart: each app has its own databases: a guest of app B
// sees nothing of app A's, whatever it names.
func TestDatabaseAppsApart(t *testing.T) {
	t.Parallel()
	a, _ := dbApp(t, "").serve(host.Options{})
	b, _ := dbApp(t, `{"databases": {"main": {"path": "data/b.db"}}}`).serve(host.Options{})
	if res := dbDo(t, a, "main", "e", "CREATE TABLE secrets (s TEXT)", ""); res.status != 200 || strings.Contains(res.body, "error") {
		t.Fatalf("app A: %d %s", res.status, res.body)
	}
	want := `{"error":{"code":"syntax","message":"no such table: secrets"}}` + "\n"
	if res := dbDo(t, b, "main", "q", "SELECT * FROM secrets", ""); res.body != want {
		t.Errorf("app B reads app A's table: %s", res.body)
	}
	if res := dbDo(t, b, "a", "q", "SELECT 1", ""); res.body != "!1\n" {
		t.Errorf("app B names a database it does not declare: %s, want !1", res.body)
	}
}

// TestDatabaseMigrations: migrations apply at load, once; a failing one
// fails the reload naming file, statement and error, the previous version
// keeps serving and nothing of the failed file remains.
func TestDatabaseMigrations(t *testing.T) {
	t.Parallel()
	a := dbApp(t, "").file("server/migrations/001-users.sql", []byte("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);\nINSERT INTO users (name) VALUES ('Ada');\n"))
	h, logs := a.host(host.Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	count := `{"columns":["n"],"rows":[[1]]}` + "\n"
	if res := dbDo(t, srv, "main", "q", "SELECT count(*) AS n FROM users", ""); res.body != count {
		t.Fatalf("after the first load: %s\n%s", res.body, logs)
	}
	a.file("server/migrations/002-orders.sql", []byte("CREATE TABLE orders (id INTEGER PRIMARY KEY);\nINSERT INTO nowhere VALUES (1);\n"))
	report := h.Reload(context.Background())
	if len(report.Problems) != 1 || !strings.Contains(report.Problems[0].Error(), `server/migrations/002-orders.sql: database "main": syntax: no such table: nowhere in the statement "INSERT INTO nowhere VALUES (1)"`) {
		t.Fatalf("reload with a failing migration: %v", report.Problems)
	}
	if res := dbDo(t, srv, "main", "q", "SELECT count(*) AS n FROM orders", ""); !strings.Contains(res.body, "no such table: orders") {
		t.Errorf("the failed migration's first statement remains: %s", res.body)
	}
	// The previous version keeps serving, and the host says why until a
	// reload serves the app on disk.
	if problems := h.Problems(); len(problems) != 1 || !strings.Contains(problems[0].Error(), "002-orders.sql") {
		t.Errorf("Problems after the failing migration = %v, want it", problems)
	}
	a.file("server/migrations/002-orders.sql", []byte("CREATE TABLE orders (id INTEGER PRIMARY KEY);\n"))
	if report := h.Reload(context.Background()); len(report.Problems) != 0 || !report.Recovered {
		t.Fatalf("reload with the fixed migration: %v, recovered %v (want true: endpoints dev said nothing after the failure)", report.Problems, report.Recovered)
	}
	if problems := h.Problems(); len(problems) != 0 {
		t.Errorf("Problems after the fixed migration = %v, want none", problems)
	}
	// A failing migration removed, never applied, is the app on disk
	// served again too.
	a.file("server/migrations/003-bad.sql", []byte("INSERT INTO nowhere VALUES (1);\n"))
	if report := h.Reload(context.Background()); len(report.Problems) != 1 {
		t.Fatalf("reload with another failing migration: %v", report.Problems)
	}
	a.remove("server/migrations/003-bad.sql")
	if report := h.Reload(context.Background()); len(report.Problems) != 0 || !report.Recovered || !strings.Contains(report.String(), "fixed, the app on disk serves") {
		t.Fatalf("reload without the failing migration: %q, recovered %v", report.String(), report.Recovered)
	}
	if res := dbDo(t, srv, "main", "q", "SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM users) AS n", ""); res.body != count {
		t.Errorf("after the fixed migration: %s", res.body)
	}
	// A host starting on the same app applies nothing again: the seed
	// row is still one.
	h2, _ := a.host(host.Options{})
	srv2 := httptest.NewServer(h2)
	defer srv2.Close()
	if res := dbDo(t, srv2, "main", "q", "SELECT count(*) AS n FROM users", ""); res.body != count {
		t.Errorf("a second host re-applied a migration: %s", res.body)
	}
}

// TestDatabaseMigrationsPerDriver: one app migrates SQLite and PostgreSQL
// with the file of each driver where their SQL differs (an id the
// database numbers itself), and the files of every driver on both.
func TestDatabaseMigrationsPerDriver(t *testing.T) {
	t.Parallel()
	url, _, _ := databasetest.StartPostgres(t)
	for _, tt := range []struct {
		driver    string
		overrides []config.Override
	}{
		{"sqlite", nil},
		{"postgres", onPostgres(url)},
	} {
		t.Run(tt.driver, func(t *testing.T) {
			a := dbApp(t, "").
				file("server/migrations/001-notes.sqlite.sql", []byte("CREATE TABLE notes (id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, attachment BLOB);\n")).
				file("server/migrations/001-notes.postgres.sql", []byte("CREATE TABLE notes (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, slug TEXT NOT NULL UNIQUE, attachment BYTEA);\n")).
				file("server/migrations/002-seed.sql", []byte("INSERT INTO notes (slug) VALUES ('a'), ('b');\n"))
			h, logs := a.host(host.Options{ConfigOverrides: tt.overrides})
			srv := httptest.NewServer(h)
			defer srv.Close()
			want := `{"columns":["id","slug","version","name"],"rows":[[1,"a",1,"notes"],[2,"b",2,"seed"]]}` + "\n"
			res := dbDo(t, srv, "main", "q", "SELECT n.id, n.slug, m.version, m.name FROM notes n JOIN endpoints_migrations m ON m.version = n.id ORDER BY n.id", "")
			if res.body != want {
				t.Errorf("got %s\nwant %s\nlog:\n%s", res.body, want, logs)
			}
		})
	}
}

// TestDatabasePostgres runs the guest against a real PostgreSQL: the
// deadline cancels pg_sleep in the server, a transaction left open rolls
// back, and a server that is down makes the guest see "unavailable" and
// the host not ready.
func TestDatabasePostgres(t *testing.T) {
	t.Parallel()
	url, stop, restart := databasetest.StartPostgres(t)
	a := dbApp(t, `{"limits": {"timeout": "1s"}, "databases": {"main": {"driver": "postgres", "url": "`+url+`", "maxConns": 2}}}`)
	h, logs := a.host(host.Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	steps := []struct {
		name, ops, sql, params string
		status                 int
		want                   string
	}{
		{"create", "e", "CREATE TABLE users (id bigserial PRIMARY KEY, name text UNIQUE NOT NULL)", "", 200, `{"rowsAffected":0}` + "\n"},
		{"insert returning", "q", "INSERT INTO users (name) VALUES ($1) RETURNING id", `["Ada"]`, 200, `{"columns":["id"],"rows":[[1]]}` + "\n"},
		{"unique violation", "e", "INSERT INTO users (name) VALUES ($1)", `["Ada"]`, 200, `{"error":{"code":"constraint","constraint":"users_name_key","kind":"unique","message":"duplicate key value violates unique constraint \"users_name_key\"","detail":"Key (name)=(Ada) already exists."}}` + "\n"},
		{"two statements refused", "e", "DELETE FROM users; DROP TABLE users", "", 200, `{"error":{"code":"denied","message":"the SQL text holds more than one statement; run one per call"}}` + "\n"},
		{"return without commit", "be", "INSERT INTO users (name) VALUES ('Left')", "", 200, "ok\n" + `{"rowsAffected":1}` + "\n"},
		{"trap in a transaction", "bet", "INSERT INTO users (name) VALUES ('Trapped')", "", 500, ""},
		{"deadline cancels pg_sleep", "q", "SELECT pg_sleep(30)", "", 500, ""},
		{"only committed rows remain", "q", "SELECT name FROM users ORDER BY id", "", 200, `{"columns":["name"],"rows":[["Ada"]]}` + "\n"},
		{"pg_sleep no longer runs", "q", "SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'", "", 200, `{"columns":["n"],"rows":[[0]]}` + "\n"},
	}
	for _, tt := range steps {
		began := time.Now()
		res := dbDo(t, srv, "main", tt.ops, tt.sql, tt.params)
		if res.status != tt.status || (tt.status == 200 && res.body != tt.want) {
			t.Errorf("%s: got %d %s\nwant %d %s\nlog:\n%s", tt.name, res.status, res.body, tt.status, tt.want, logs)
		}
		if d := time.Since(began); d > 5*time.Second {
			t.Errorf("%s: took %s, past the 1 s deadline", tt.name, d)
		}
	}
	if got := readyErrors(h, context.Background()); got != nil {
		t.Errorf("ready with the database up: %q", got)
	}
	stop()
	if res := dbDo(t, srv, "main", "q", "SELECT 1", ""); !strings.Contains(res.body, `"code":"unavailable"`) {
		t.Errorf("the database down: %d %s, want the code unavailable", res.status, res.body)
	}
	if got := readyErrors(h, context.Background()); len(got) != 1 || !strings.HasPrefix(got[0], `databases: database "main": unavailable`) {
		t.Errorf("ready with the database down: %q, want the databases check failing", got)
	}
	dbDo(t, srv, "main", "q", "SELECT 1", "")
	if n := strings.Count(logs.String(), `msg="database unavailable`); n != 1 || !strings.Contains(logs.String(), "database=main") {
		t.Errorf("the database down logged %d times, want once naming it:\n%s", n, logs)
	}
	restart()
	if got := readyErrors(h, context.Background()); got != nil {
		t.Errorf("ready with the database back: %q", got)
	}
	if res := dbDo(t, srv, "main", "q", "SELECT 1 AS one", ""); res.body != `{"columns":["one"],"rows":[[1]]}`+"\n" {
		t.Errorf("the database back: %d %s", res.status, res.body)
	}
	if !strings.Contains(logs.String(), `msg="database answers again`) {
		t.Errorf("the database back is not logged:\n%s", logs)
	}
}

// TestDatabaseObserved: each statement is a span (its text, never its
// values) and a Database event with its duration and code, and a request
// whose statement failed says so in its Request event (the access log's
// db_error).
func TestDatabaseObserved(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, s)
	}
	obs := &host.Observer{
		Span: func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
			if e.Step != host.StepDatabase {
				return ctx, nil
			}
			note(fmt.Sprintf("span %s %s %s %q", e.Database, e.DBSystem, e.Route, e.Op))
			return ctx, func(err error) { note(fmt.Sprintf("end %v", err != nil)) }
		},
		Database: func(e host.DatabaseEvent) { note(fmt.Sprintf("statement %s code=%q", e.Database, e.Code)) },
		Request: func(e host.RequestEvent) {
			if e.Route == "/db" {
				note(fmt.Sprintf("request %d db_error=%q", e.Status, e.DatabaseError))
			}
		},
	}
	srv, _ := dbApp(t, "").serve(host.Options{Observer: obs})
	dbDo(t, srv, "main", "e", "CREATE TABLE t (x TEXT UNIQUE)", "")
	dbDo(t, srv, "main", "ee", "INSERT INTO t VALUES ($1)", `["secret"]`)
	want := []string{
		`span main sqlite /db "CREATE TABLE t (x TEXT UNIQUE)"`, "end false", `statement main code=""`, `request 200 db_error=""`,
		`span main sqlite /db "INSERT INTO t VALUES ($1)"`, "end false", `statement main code=""`,
		`span main sqlite /db "INSERT INTO t VALUES ($1)"`, "end true", `statement main code="constraint"`, `request 200 db_error="constraint"`,
	}
	if !poll.Until(5*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= len(want) }) || !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDatabaseMigrationOnSave: with Watch running (endpoints dev), a
// migration saved into server/migrations is applied at once, and one
// that fails is reported while the previous version keeps serving.
func TestDatabaseMigrationOnSave(t *testing.T) {
	a := dbApp(t, "")
	h, _ := a.host(host.Options{Mode: host.Development})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var problems []string
	done := startWatch(t, ctx, h, func(r host.ReloadReport) {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range r.Problems {
			problems = append(problems, p.Error())
		}
	})
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	a.file("server/migrations/001-notes.sql", []byte("CREATE TABLE notes (body TEXT);\nINSERT INTO notes VALUES ('saved');\n"))
	want := `{"columns":["body"],"rows":[["saved"]]}` + "\n"
	if !waitFor(t, 5*time.Second, func() bool { return dbDo(t, srv, "main", "q", "SELECT body FROM notes", "").body == want }) {
		t.Fatalf("the saved migration was not applied: %s", dbDo(t, srv, "main", "q", "SELECT body FROM notes", "").body)
	}
	a.file("server/migrations/002-bad.sql", []byte("CREATE TABLE nope (x;\n"))
	if !waitFor(t, 5*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(problems) > 0 && strings.Contains(problems[0], "server/migrations/002-bad.sql")
	}) {
		t.Fatalf("the failing migration was not reported: %q", problems)
	}
	if got := dbDo(t, srv, "main", "q", "SELECT body FROM notes", "").body; got != want {
		t.Errorf("after a failing migration: %s", got)
	}
}

// TestDatabaseOutsideARequest: a db_* call while the module starts
// (_initialize), outside any request, gets ErrState and touches no
// database.
func TestDatabaseOutsideARequest(t *testing.T) {
	t.Parallel()
	m := dbGuest
	m.extra += `
  (data (i32.const 3100) "main")
  (data (i32.const 3110) "CREATE TABLE started (x)")
  ;; A result other than -6 (ErrState) traps, and the load fails.
  (func (export "_initialize")
    (if (i32.ne (call $db_exec (i32.const 3100) (i32.const 4) (i32.const 3110) (i32.const 24) (i32.const 0) (i32.const 0)) (i32.const -6)) (then unreachable))
    (if (i32.ne (call $db_begin (i32.const 3100) (i32.const 4)) (i32.const -6)) (then unreachable))
    (if (i32.ne (call $db_result (i32.const 131072) (i32.const 64)) (i32.const -6)) (then unreachable)))
`
	a := newApp(t).wat("server/routes/db.get.wasm", m)
	srv, _ := a.serve(host.Options{})
	// The table the start function tried to create does not exist.
	want := `{"error":{"code":"syntax","message":"no such table: started"}}` + "\n"
	if got := dbDo(t, srv, "main", "q", "SELECT * FROM started", ""); got.status != 200 || got.body != want {
		t.Errorf("after a db_exec at start: %d %s, want %s", got.status, got.body, want)
	}
}

// TestDatabaseRefusedParametersLogged: parameters the host refuses before
// running the statement (-2, not an array) fail the statement as the
// guest sees it (code other), and the access log's db_error says so, as
// for a statement the database ran and refused; a refusal is the
// guest's own failure, not an outage: no 503.
func TestDatabaseRefusedParametersLogged(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	obs := &host.Observer{
		Request: func(e host.RequestEvent) {
			if e.Route == "/db" {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, fmt.Sprintf("request %d db_error=%q", e.Status, e.DatabaseError))
			}
		},
	}
	srv, _ := dbApp(t, "").serve(host.Options{Observer: obs})
	res := dbDo(t, srv, "main", "q", "SELECT $1", `{"id":7}`)
	if res.status == 503 {
		t.Errorf("refused parameters answered %d %s, want the guest's own failure", res.status, res.body)
	}
	want := []string{fmt.Sprintf("request %d db_error=%q", res.status, "other")}
	if !poll.Until(5*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= len(want) }) || !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
