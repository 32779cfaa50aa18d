package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestDatabaseHostileStatements: statements a hostile guest sends through
// db_query and db_exec get their error as the pending result, and the
// database serves the next call: SQLite running out of memory (on which
// its driver panics) neither fails the call nor keeps the only
// connection of the pool (maxConns 1), in a transaction too.
func TestDatabaseHostileStatements(t *testing.T) {
	t.Parallel()
	a := dbApp(t, `{"limits": {"timeout": "5s"}, "databases": {"main": {"driver": "sqlite", "path": "data/main.db", "maxConns": 1}}}`)
	srv, logs := a.serve(host.Options{})
	const oom = "SELECT length(printf('%.*c', 2000000000, 'x'))"
	tests := []struct {
		name, ops, sql, want string
	}{
		{"out of memory", "q", oom, `{"error":{"code":"too_large"`},
		{"out of memory again", "e", oom, `{"error":{"code":"too_large"`},
		{"out of memory in a transaction", "bqr", oom, `{"error":{"code":"too_large"`},
		{"the next call", "q", "SELECT 1 AS one", `{"columns":["one"],"rows":[[1]]}`},
	}
	for _, tt := range tests {
		res := dbDo(t, srv, "main", tt.ops, tt.sql, "")
		if res.status != 200 || !strings.Contains(res.body, tt.want) {
			t.Errorf("%s: got %d %s\nwant 200 with %s\nlog:\n%s", tt.name, res.status, res.body, tt.want, logs)
		}
	}
}
