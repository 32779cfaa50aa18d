package host_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// TestDatabaseDownAtStart: an app with migrations whose PostgreSQL is down
// starts anyway. Over real HTTP, a route that uses no database serves; a
// call that uses the database answers 503 with Retry-After (its guest never
// sees a schema without its migrations); /readyz is not ready, naming the
// database; the log says so once, not at each attempt. Once the server is
// up, the host applies the migrations in the background, the route serves
// what they made and /readyz is ready. A migration that fails once the
// server is reached keeps the database's calls at 503 and says why; at a
// start with the server up, it fails the start, as before.
func TestDatabaseDownAtStart(t *testing.T) {
	t.Parallel()
	const notes = "CREATE TABLE notes (body text);\nINSERT INTO notes VALUES ('migrated');\n"
	start := func(t *testing.T, url, migration string) (*host.Host, *httptest.Server, *logBuffer) {
		a := dbApp(t, "").
			wat("server/api/v.get.wasm", versionModule(1, false)).
			wat("server/api/mw.get.wasm", versionModule(2, false)).
			middleware("10-db", dbMiddleware).
			file("server/migrations/001-notes.sql", []byte(migration))
		h, logs := a.host(host.Options{ConfigOverrides: onPostgres(url)})
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return h, srv, logs
	}
	waitingFor := func(t *testing.T, h *host.Host, srv *httptest.Server, reason string) {
		t.Helper()
		if res := do(t, srv, "GET", "/api/v", ""); res.status != 200 || res.body != `{"version":1}` {
			t.Errorf("GET /api/v, which uses no database = %d %s, want 200", res.status, res.body)
		}
		res := dbDo(t, srv, "main", "q", "SELECT body FROM notes", "")
		if res.status != 503 || !strings.Contains(res.body, `"statusCode":503`) {
			t.Errorf("a call on the waiting database = %d %s, want 503", res.status, res.body)
		}
		if s, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || s < 1 {
			t.Errorf("Retry-After = %q, want seconds", res.header.Get("Retry-After"))
		}
		if res := do(t, srv, "GET", "/api/mw", ""); res.status != 503 || res.header.Get("Retry-After") == "" {
			t.Errorf("a route whose middleware uses the waiting database = %d %s (Retry-After %q), want 503 with Retry-After", res.status, res.body, res.header.Get("Retry-After"))
		}
		if got := readyErrors(h, context.Background()); len(got) != 1 || !strings.HasPrefix(got[0], `databases: database "main": its migrations are not applied yet: `) || !strings.Contains(got[0], reason) {
			t.Errorf("ready while the database waits: %q, want the databases check naming main and %q", got, reason)
		}
	}

	t.Run("down, then up", func(t *testing.T) {
		t.Parallel()
		url, stop, restart := databasetest.StartPostgres(t)
		stop()
		h, srv, logs := start(t, url, notes)
		waitingFor(t, h, srv, "unavailable")
		restart()
		if !poll.Until(30*time.Second, func() bool { return readyErrors(h, context.Background()) == nil }) {
			t.Fatalf("not ready 30 s after the database came up: %q\n%s", readyErrors(h, context.Background()), logs)
		}
		if res := do(t, srv, "GET", "/api/mw", ""); res.status != 200 || res.body != `{"version":2}` {
			t.Errorf("a route whose middleware uses the database, once ready = %d %s, want 200", res.status, res.body)
		}
		want := `{"columns":["body"],"rows":[["migrated"]]}` + "\n"
		if res := dbDo(t, srv, "main", "q", "SELECT body FROM notes", ""); res.status != 200 || res.body != want {
			t.Errorf("once the migrations are applied: %d %s, want %s", res.status, res.body, want)
		}
		log := logs.String()
		if n := strings.Count(log, "database not ready"); n != 1 {
			t.Errorf("the log says %d times that the database is not ready, want once (per change, not per attempt):\n%s", n, log)
		}
		for _, line := range []string{"migration applied", "database ready: its migrations are applied"} {
			if !strings.Contains(log, line) {
				t.Errorf("the log lacks %q:\n%s", line, log)
			}
		}
	})

	t.Run("closed while it waits", func(t *testing.T) {
		t.Parallel()
		// Nothing listens on port 1: every attempt is refused.
		h, srv, _ := start(t, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable", notes)
		waitingFor(t, h, srv, "unavailable")
		if !h.DatabaseRetrying() {
			t.Error("the host does not try the database again")
		}
		if err := h.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
		if h.DatabaseRetrying() {
			t.Error("the host still tries the database after Close")
		}
	})

	t.Run("a migration that fails once the database is reached", func(t *testing.T) {
		t.Parallel()
		url, stop, restart := databasetest.StartPostgres(t)
		const bad = "CREATE TABLE notes (body text);\nINSERT INTO nowhere VALUES ('secret-seed');\n"
		// With the server up, the start fails naming the file, as before,
		// and the statement whole, for the operator.
		a := dbApp(t, "").file("server/migrations/001-notes.sql", []byte(bad))
		if _, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t), Logger: discardLogger(), ConfigOverrides: onPostgres(url)}); err == nil || !strings.Contains(err.Error(), `server/migrations/001-notes.sql: database "main": syntax: relation "nowhere" does not exist`) || !strings.Contains(err.Error(), "secret-seed") {
			t.Errorf("New with a failing migration = %v, want the file and the database's error", err)
		}
		stop()
		h, srv, logs := start(t, url, bad)
		restart()
		if !poll.Until(30*time.Second, func() bool { return strings.Contains(logs.String(), "migration failed") }) {
			t.Fatalf("no failure logged 30 s after the database came up:\n%s", logs)
		}
		// The log names the file and the statement, its literals
		// replaced (appdb.MigrationError.LogValue).
		if log := logs.String(); strings.Contains(log, "secret-seed") || !strings.Contains(log, "server/migrations/001-notes.sql") || !strings.Contains(log, "INSERT INTO nowhere VALUES (?)") {
			t.Errorf("the log of the failed migration, want its file and statement without the literal secret-seed:\n%s", log)
		}
		waitingFor(t, h, srv, `relation "nowhere" does not exist`)
	})
}

// dbMiddleware is a middleware of /api/mw whose before export runs a
// statement on the database "main", and goes on whatever its result.
var dbMiddleware = mwModule{
	decl:    `{"routes":["/api/mw"]}`,
	imports: `  (import "endpoints" "db_query" (func $db_query (param i32 i32 i32 i32 i32 i32) (result i32)))` + "\n",
	data:    []string{"main", "SELECT 1"},
	before:  `(drop (call $db_query $0 $1 (i32.const 0) (i32.const 0))) (i32.const 0)`,
}
