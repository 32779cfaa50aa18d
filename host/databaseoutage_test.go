package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// outageGuest is a plain route that runs the statement of its x-sql
// header on the database main and answers 503 "down" when it fails
// (ErrDatabase), as the SDKs answer a database that is down, setting its
// own Retry-After: 7 when the request has an x-own header; "up" when it
// succeeds.
var outageGuest = watModule{
	imports: `
  (import "endpoints" "db_query" (func $db_query (param i32 i32 i32 i32 i32 i32) (result i32)))
`,
	extra: `
  (data (i32.const 3000) "main")
  (data (i32.const 3010) "x-sql")
  (data (i32.const 3020) "x-own")
  (data (i32.const 3030) "Retry-After")
  (data (i32.const 3050) "7")
  (data (i32.const 3060) "down")
  (data (i32.const 3070) "up")
`,
	handle: `(local.set $n (call $request_header (i32.const 3010) (i32.const 5) (i32.const 4000) (i32.const 1024)))
    (if (i32.lt_s (local.get $n) (i32.const 0)) (then (local.set $n (i32.const 0))))
    (if (i32.eq (call $db_query (i32.const 3000) (i32.const 4) (i32.const 4000) (local.get $n) (i32.const 0) (i32.const 0)) (i32.const -8))
      (then
        (drop (call $set_status (i32.const 503)))
        (if (i32.ge_s (call $request_header (i32.const 3020) (i32.const 5) (i32.const 5000) (i32.const 16)) (i32.const 0))
          (then (drop (call $set_header (i32.const 3030) (i32.const 11) (i32.const 3050) (i32.const 1)))))
        (drop (call $write (i32.const 3060) (i32.const 4)))
        (return (i32.const 0))))
    (drop (call $write (i32.const 3070) (i32.const 2)))
    (i32.const 0)`,
}

// outageMiddleware is a middleware of /mw whose before export runs a
// statement on the database main and answers 503 "down" when it fails.
var outageMiddleware = mwModule{
	decl:    `{"routes":["/mw"]}`,
	imports: `  (import "endpoints" "db_query" (func $db_query (param i32 i32 i32 i32 i32 i32) (result i32)))` + "\n",
	data:    []string{"main", "SELECT 1", "down"},
	before: `(if (i32.eq (call $db_query $0 $1 (i32.const 0) (i32.const 0)) (i32.const -8))
      (then (drop (call $set_status (i32.const 503))) (drop (call $write $2)) (return (i32.const 1))))
    (i32.const 0)`,
}

// TestDatabaseOutageMidRunRetryAfter: a database that goes away while the
// host serves (its SQLite file deleted: "unavailable") makes the guest
// answer 503, and the host adds Retry-After to that answer, as it does
// when it answers a call whose database waits itself; a guest's own
// Retry-After stands; a 503 after a statement that failed for another
// reason (syntax) gets none, nor does a guest's 200. A middleware's 503
// after its statement failed unavailable gets it too.
func TestDatabaseOutageMidRunRetryAfter(t *testing.T) {
	t.Parallel()
	a := newApp(t).wat("server/routes/q.get.wasm", outageGuest).
		wat("server/routes/mw.get.wasm", outageGuest).
		middleware("10-db", outageMiddleware)
	srv, logs := a.serve(host.Options{})
	query := func(sql string, own bool) response {
		headers := []string{"x-sql", sql}
		if own {
			headers = append(headers, "x-own", "1")
		}
		return do(t, srv, "GET", "/q", "", headers...)
	}
	check := func(name string, res response, status int, body, retryAfter string) {
		t.Helper()
		got := res.header.Get("Retry-After")
		if res.status != status || res.body != body {
			t.Errorf("%s: %d %s, want %d %s\n%s", name, res.status, res.body, status, body, logs)
		}
		switch retryAfter {
		case "seconds":
			if s, err := strconv.Atoi(got); err != nil || s < 1 {
				t.Errorf("%s: Retry-After %q, want seconds (at least 1)", name, got)
			}
		default:
			if got != retryAfter {
				t.Errorf("%s: Retry-After %q, want %q", name, got, retryAfter)
			}
		}
	}

	check("the database up", query("SELECT 1", false), 200, "up", "")
	check("the database up, through the middleware", do(t, srv, "GET", "/mw", "", "x-sql", "SELECT 1"), 200, "up", "")
	check("a 503 after a syntax error", query("SELEC 1", false), 503, "down", "")

	path := filepath.Join(a.dir, filepath.FromSlash(config.DefaultDatabasePath))
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	// The pool notices the file is gone within its check interval.
	var down response
	if !poll.Until(10*time.Second, func() bool { down = query("SELECT 1", false); return down.status == 503 }) {
		t.Fatalf("the database file deleted, the guest still answers %d %s\n%s", down.status, down.body, logs)
	}
	tests := []struct {
		name       string
		own        bool
		retryAfter string
	}{
		{"the database gone: the host adds Retry-After", false, "seconds"},
		{"the guest's own Retry-After stands", true, "7"},
	}
	for _, tt := range tests {
		check(tt.name, query("SELECT 1", tt.own), 503, "down", tt.retryAfter)
	}
	check("the database gone, the middleware's 503", do(t, srv, "GET", "/mw", ""), 503, "down", "seconds")
}

// failingGuest is a plain route that runs the statement of its x-sql
// header on the database main and, when it fails, runs onFailure (a trap,
// an error result, a status of its own); "up" when it succeeds.
func failingGuest(onFailure string) watModule {
	return watModule{
		imports: `
  (import "endpoints" "db_query" (func $db_query (param i32 i32 i32 i32 i32 i32) (result i32)))
`,
		extra: `
  (data (i32.const 3000) "main")
  (data (i32.const 3010) "x-sql")
  (data (i32.const 3060) "bad gateway")
  (data (i32.const 3080) "up")
`,
		handle: `(local.set $n (call $request_header (i32.const 3010) (i32.const 5) (i32.const 4000) (i32.const 1024)))
    (if (i32.lt_s (local.get $n) (i32.const 0)) (then (local.set $n (i32.const 0))))
    (if (i32.lt_s (call $db_query (i32.const 3000) (i32.const 4) (i32.const 4000) (local.get $n) (i32.const 0) (i32.const 0)) (i32.const 0))
      (then ` + onFailure + `))
    (drop (call $write (i32.const 3080) (i32.const 2)))
    (i32.const 0)`,
	}
}

// trapMiddleware is a middleware of /mw whose before export runs a
// statement on the database main and traps when it fails.
var trapMiddleware = mwModule{
	decl:    `{"routes":["/mw"]}`,
	imports: `  (import "endpoints" "db_query" (func $db_query (param i32 i32 i32 i32 i32 i32) (result i32)))` + "\n",
	data:    []string{"main", "SELECT 1"},
	before: `(if (i32.lt_s (call $db_query $0 $1 (i32.const 0) (i32.const 0)) (i32.const 0)) (then unreachable))
    (i32.const 0)`,
}

// TestDatabaseOutageFailedCall: a guest that fails (traps, or returns an
// error result) after a statement failed unavailable, as a C, Rust or
// AssemblyScript handler does with the error, is answered 503 with
// Retry-After by the host, logged as the outage and reported as one
// (GuestCallEvent.DatabaseOutage), not as a guest fault; a middleware's
// too. A failure after another error (syntax) stays a 500, and so does a
// failure after the guest set a status of its own; a status the guest
// chose and answered (502) stands.
func TestDatabaseOutageFailedCall(t *testing.T) {
	t.Parallel()
	a := newApp(t).
		wat("server/routes/trap.get.wasm", failingGuest(`unreachable`)).
		wat("server/routes/error.get.wasm", failingGuest(`(return (i32.const 1))`)).
		wat("server/routes/chose500.get.wasm", failingGuest(`(drop (call $set_status (i32.const 500))) unreachable`)).
		wat("server/routes/chose502.get.wasm", failingGuest(`(drop (call $set_status (i32.const 502))) (drop (call $write (i32.const 3060) (i32.const 11))) (return (i32.const 0))`)).
		wat("server/routes/mw.get.wasm", failingGuest(`unreachable`)).
		middleware("10-db", trapMiddleware)
	calls := make(chan host.GuestCallEvent, 64)
	srv, logs := a.serve(host.Options{Observer: &host.Observer{GuestCall: func(e host.GuestCallEvent) { calls <- e }}})
	type want struct {
		status     int
		retryAfter bool
		outage     bool // the handler's call reported as a database outage
		handler    bool // the handler ran (not stopped by its middleware)
	}
	check := func(name, path, sql string, w want) {
		t.Helper()
		res := do(t, srv, "GET", path, "", "x-sql", sql)
		got := res.header.Get("Retry-After")
		if res.status != w.status {
			t.Errorf("%s: %d %s, want %d\n%s", name, res.status, res.body, w.status, logs)
		}
		if s, err := strconv.Atoi(got); w.retryAfter && (err != nil || s < 1) || !w.retryAfter && got != "" {
			t.Errorf("%s: Retry-After %q, want seconds: %v", name, got, w.retryAfter)
		}
		if !w.handler {
			return
		}
		select {
		case e := <-calls:
			if e.DatabaseOutage != w.outage || e.Failed != (w.status >= 500 && w.status != 502) {
				t.Errorf("%s: guest call reported Failed %v, DatabaseOutage %v; want DatabaseOutage %v", name, e.Failed, e.DatabaseOutage, w.outage)
			}
		default:
			t.Errorf("%s: no guest call reported", name)
		}
	}

	check("the database up", "/trap", "SELECT 1", want{200, false, false, true})
	check("a trap after a syntax error", "/trap", "SELEC 1", want{500, false, false, true})
	check("an error result after a syntax error", "/error", "SELEC 1", want{500, false, false, true})

	path := filepath.Join(a.dir, filepath.FromSlash(config.DefaultDatabasePath))
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	// The pool notices the file is gone within its check interval.
	var down response
	if !poll.Until(10*time.Second, func() bool {
		down = do(t, srv, "GET", "/chose502", "", "x-sql", "SELECT 1")
		<-calls
		return down.status == 502
	}) {
		t.Fatalf("the database file deleted, the guest still answers %d %s\n%s", down.status, down.body, logs)
	}
	check("a trap after unavailable", "/trap", "SELECT 1", want{503, true, true, true})
	check("an error result after unavailable", "/error", "SELECT 1", want{503, true, true, true})
	check("a status of its own, then a trap", "/chose500", "SELECT 1", want{500, false, false, true})
	check("a status of its own, answered", "/chose502", "SELECT 1", want{502, false, false, true})
	check("a middleware's trap after unavailable", "/mw", "", want{503, true, false, false})
	if !strings.Contains(logs.String(), "guest failed after its database was unavailable: answered 503") {
		t.Errorf("the log does not say the failure was the database's:\n%s", logs)
	}
}

// TestDatabaseBusyFailedCall: a guest that traps after its write found
// the SQLite write lock held past the busy timeout (another process holds
// it: "busy") is answered 503 with Retry-After, as for a database down.
func TestDatabaseBusyFailedCall(t *testing.T) {
	t.Parallel()
	a := newApp(t).wat("server/routes/trap.get.wasm", failingGuest(`unreachable`)).
		file("server/migrations/001-notes.sql", []byte("CREATE TABLE notes (x INTEGER);\n")).
		file("endpoints.json", []byte(`{"limits": {"timeout": "1500ms"}}`))
	path := filepath.Join(t.TempDir(), "main.db")
	srv, logs := a.serve(host.Options{ConfigOverrides: []config.Override{{Pointer: "/databases/main/path", Value: path, Source: "test"}}})
	if res := do(t, srv, "GET", "/trap", "", "x-sql", "INSERT INTO notes VALUES (1)"); res.status != 200 {
		t.Fatalf("the write lock free: %d %s\n%s", res.status, res.body, logs)
	}
	other, err := database.Open(t.Context(), database.DriverSQLite, database.Options{Path: path, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, err := other.Begin(t.Context(), database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(context.Background())
	res := do(t, srv, "GET", "/trap", "", "x-sql", "INSERT INTO notes VALUES (2)")
	if s, err := strconv.Atoi(res.header.Get("Retry-After")); res.status != 503 || err != nil || s < 1 {
		t.Errorf("a trap after busy: %d %s (Retry-After %q), want 503 with Retry-After\n%s", res.status, res.body, res.header.Get("Retry-After"), logs)
	}
	if !strings.Contains(logs.String(), "guest failed after its database was busy: answered 503") {
		t.Errorf("the log does not say the failure was the database's:\n%s", logs)
	}
}

// TestDatabaseOutageNotAContractError: in development, where answers are
// checked against the contract, the 503 a route answers because its
// database went down is passed to the client, with Retry-After, though the
// contract declares only 200: it is the database's answer, as the host's
// own 503 for a failed call is, not a 500 Response Contract Error. A 503
// the guest chooses for another reason is still checked.
func TestDatabaseOutageNotAContractError(t *testing.T) {
	t.Parallel()
	endpoint := outageGuest
	endpoint.contract = `{"responses":{"200":{"description":"ok","schema":{"type":"string"}}}}`
	a := newApp(t).wat("server/api/q.get.wasm", endpoint)
	srv, logs := a.serve(host.Options{Mode: host.Development})
	query := func(sql string) response { return do(t, srv, "GET", "/api/q", "", "x-sql", sql) }
	if got := query("SELEC 1"); got.status != 500 || !strings.Contains(got.body, host.MessageResponseContract) {
		t.Fatalf("a 503 the contract does not declare, the database up: %d %s, want 500 %s\n%s", got.status, got.body, host.MessageResponseContract, logs)
	}
	path := filepath.Join(a.dir, filepath.FromSlash(config.DefaultDatabasePath))
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	// The pool notices the file is gone within its check interval.
	var down response
	if !poll.Until(10*time.Second, func() bool { down = query("SELECT 1"); return down.status != 200 }) {
		t.Fatalf("the database file deleted, the route still answers %d %s\n%s", down.status, down.body, logs)
	}
	if s, err := strconv.Atoi(down.header.Get("Retry-After")); down.status != 503 || down.body != "down" || err != nil || s < 1 {
		t.Errorf("the database down: %d %s (Retry-After %q), want the guest's 503 down with Retry-After\n%s", down.status, down.body, down.header.Get("Retry-After"), logs)
	}
}
