package host_test

import (
	"context"
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
	a := dbApp(t, `{"limits": {"timeout": "600ms"}}`)
	srv, logs := a.serve(host.Options{})
	if res := dbDo(t, srv, "main", "e", "CREATE TABLE notes (x)", ""); res.status != 200 || strings.Contains(res.body, "error") {
		t.Fatalf("create: %d %s", res.status, res.body)
	}
	other, err := database.Open(context.Background(), database.DriverSQLite, database.Options{Path: filepath.Join(a.dir, ".endpoints/data/main.db"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, err := other.Begin(context.Background())
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
}
