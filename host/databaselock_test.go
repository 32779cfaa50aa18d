package host_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/host"
)

// TestDatabaseLockedPastDeadline: a write waiting for the SQLite write
// lock another process holds (endpoints migrate, a second host, a backup
// tool) in a call whose deadline comes before the busy timeout (5 s) gets
// its busy error while it can still answer it (a guest answers 503 with
// Retry-After), not at the deadline, where the host answers 500.
func TestDatabaseLockedPastDeadline(t *testing.T) {
	t.Parallel()
	a := dbApp(t, `{"limits": {"timeout": "1500ms"}}`)
	srv, logs := a.serve(host.Options{})
	if res := dbDo(t, srv, "main", "e", "CREATE TABLE notes (x)", ""); res.status != 200 || strings.Contains(res.body, "error") {
		t.Fatalf("create: %d %s", res.status, res.body)
	}
	other, err := database.Open(context.Background(), database.DriverSQLite, database.Options{Path: filepath.Join(a.dir, ".endpoints/data/main.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, err := other.Begin(context.Background(), database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(context.Background())
	for _, ops := range []string{"e", "b"} {
		res := dbDo(t, srv, "main", ops, "INSERT INTO notes VALUES (1)", "")
		if res.status != 200 || !strings.HasPrefix(res.body, `{"error":{"code":"busy"`) {
			t.Errorf("ops %q while another process holds the write lock = %d %s, want the busy error before the deadline\n%s", ops, res.status, res.body, logs)
		}
	}
	// Many writers at once, more than the route's instances, each
	// waiting for the lock at each of its statements (db_begin, db_exec,
	// db_commit): each gets an error it can answer (busy, or unavailable
	// for a full pool of connections), or the host's 503 for a request no
	// instance came free for; none a 500.
	const writers = 12
	type result struct {
		status int
		body   string
		err    error
	}
	results := make(chan result, writers)
	for range writers {
		go func() {
			req, err := http.NewRequest("GET", srv.URL+"/db", nil)
			if err != nil {
				results <- result{err: err}
				return
			}
			req.Header.Set("x-db", "main")
			req.Header.Set("x-ops", "bec")
			req.Header.Set("x-sql", "INSERT INTO notes VALUES (2)")
			res, err := srv.Client().Do(req)
			if err != nil {
				results <- result{err: err}
				return
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			results <- result{res.StatusCode, string(body), err}
		}()
	}
	for range writers {
		res := <-results
		switch {
		case res.err != nil:
			t.Errorf("a concurrent writer: %v", res.err)
		case res.status == 503:
			// The host's answer when no instance came free.
		case res.status != 200 || !(strings.HasPrefix(res.body, `{"error":{"code":"busy"`) || strings.HasPrefix(res.body, `{"error":{"code":"unavailable"`)):
			t.Errorf("a concurrent writer while another process holds the write lock = %d %s, want busy or unavailable before the deadline", res.status, res.body)
		}
	}
}
