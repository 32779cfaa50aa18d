package host_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
)

// TestDatabaseBeginWith drives db_begin_with through the host on SQLite
// and PostgreSQL: the options reach the database (a read-only
// transaction's write is denied saying so; PostgreSQL's isolation is the
// one asked), options the host does not know fail -2 with a pending
// result saying what it expected, and no options is db_begin.
func TestDatabaseBeginWith(t *testing.T) {
	t.Parallel()
	url, _, _ := databasetest.StartPostgres(t)
	for _, driver := range []struct {
		name      string
		overrides []config.Override
	}{
		{"sqlite", nil},
		{"postgres", onPostgres(url)},
	} {
		t.Run(driver.name, func(t *testing.T) {
			h, logs := dbApp(t, "").host(host.Options{ConfigOverrides: driver.overrides})
			srv := httptest.NewServer(h)
			defer srv.Close()
			steps := []struct {
				name, db, ops, opts, sql string
				want                     []string // the answer holds each
				postgres                 bool     // PostgreSQL only
			}{
				{name: "create", db: "main", ops: "e", sql: "CREATE TABLE notes (x bigint)", want: []string{`{"rowsAffected":0`}},
				{name: "no options", db: "main", ops: "wec", sql: "INSERT INTO notes VALUES (1)", want: []string{"ok\n{\"rowsAffected\":1", "}\nok\n"}},
				{name: "read only refuses a write", db: "main", ops: "wec", opts: `{"readOnly":true}`, sql: "INSERT INTO notes VALUES (2)",
					want: []string{"ok\n{\"error\":{\"code\":\"denied\"", database.ReadOnlyMessage}},
				{name: "read only reads", db: "main", ops: "wqc", opts: `{"readOnly":true,"isolation":"repeatable_read"}`, sql: "SELECT count(*) AS n FROM notes",
					want: []string{"ok\n{\"columns\":[\"n\"],\"rows\":[[1]]}\nok\n"}},
				{name: "serializable", db: "main", ops: "wq", opts: `{"isolation":"serializable"}`, sql: "SELECT current_setting('transaction_isolation') AS level",
					want: []string{`"rows":[["serializable"]]`}, postgres: true},
				{name: "unknown level", db: "main", ops: "w", opts: `{"isolation":"snapshot"}`,
					want: []string{"!2\n" + `{"error":{"code":"other","message":"db_begin_with: transaction options: isolation \"snapshot\" is not a level; want one of \"read_committed\", \"repeatable_read\" or \"serializable\""}}` + "\n"}},
				{name: "undeclared database", db: "nope", ops: "w", opts: `{}`, want: []string{"!1\n"}},
				{name: "a second begin", db: "main", ops: "bw", opts: `{}`, want: []string{"ok\n" + `{"error":{"code":"transaction"`}},
			}
			for _, tt := range steps {
				if tt.postgres && driver.name != "postgres" {
					continue
				}
				res := do(t, srv, "GET", "/db", "", "x-db", tt.db, "x-ops", tt.ops, "x-sql", tt.sql, "x-opts", tt.opts)
				for _, want := range tt.want {
					if res.status != 200 || !strings.Contains(res.body, want) {
						t.Errorf("%s: got %d %s\nwant it to hold %s\nlog:\n%s", tt.name, res.status, res.body, want, logs)
					}
				}
			}
		})
	}
}
