package host_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// TestDatabaseStatementTimeout: a guest that bounds its statements with
// db_timeout (100 ms) in a call of 10 s gets code timeout for a statement
// that would run for an hour, which the database stops, and answers
// itself (200, its lines) with the rest of its time, which the test does
// not wait for; a bad timeout is -2, and db_timeout(0) lifts it.
func TestDatabaseStatementTimeout(t *testing.T) {
	t.Parallel()
	type setup struct{ cfg, endless string }
	setups := map[string]func(t *testing.T) setup{
		"sqlite": func(*testing.T) setup {
			return setup{`{"limits": {"timeout": "10s"}}`,
				"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000000) SELECT count(*) FROM c"}
		},
		"postgres": func(t *testing.T) setup {
			url, _, _ := databasetest.StartPostgres(t)
			return setup{`{"limits": {"timeout": "10s"}, "databases": {"main": {"driver": "postgres", "url": "` + url + `"}}}`,
				"SELECT pg_sleep(3600)"}
		},
	}
	for name, start := range setups {
		t.Run(name, func(t *testing.T) {
			if name == "postgres" && testing.Short() {
				t.Skip("starts a PostgreSQL server")
			}
			s := start(t)
			h, logs := dbApp(t, s.cfg).host(host.Options{})
			srv := httptest.NewServer(h)
			defer srv.Close()
			res := dbDo(t, srv, "main", "oq", s.endless, "")
			lines := strings.Split(res.body, "\n")
			if res.status != 200 || len(lines) != 3 || lines[0] != "ok" || !strings.Contains(lines[1], `"code":"timeout"`) ||
				!strings.Contains(lines[1], "its timeout of 100ms") {
				t.Errorf("got %d %q, want the guest's 200 with ok then code timeout\nlog:\n%s", res.status, res.body, logs)
			}
			if res := dbDo(t, srv, "main", "nOq", "SELECT 1 AS one", ""); res.body != "!2\nok\n"+`{"columns":["one"],"rows":[[1]]}`+"\n" {
				t.Errorf("db_timeout(-1), db_timeout(0), then a query: got %d %q", res.status, res.body)
			}
			if name == "postgres" {
				// The server ends it at the cancel request; it may take a
				// moment to say so.
				var last string
				if !poll.Until(10*time.Second, func() bool {
					last = dbDo(t, srv, "main", "q", "SELECT count(*) AS n FROM pg_stat_activity WHERE query = $1 AND state = 'active'", `["`+s.endless+`"]`).body
					return last == `{"columns":["n"],"rows":[[0]]}`+"\n"
				}) {
					t.Errorf("the stopped statement still runs in PostgreSQL: %s", last)
				}
			}
		})
	}
}
