package appdb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// endless are statements that would run for hours: a recursive CTE
// counting to a trillion on SQLite, pg_sleep on PostgreSQL.
var endless = map[string]string{
	config.DatabaseSQLite:   "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000000) SELECT count(*) FROM c",
	config.DatabasePostgres: "SELECT pg_sleep(3600)",
}

// TestAStatementTimeoutStopsTheStatementAndLeavesTheCallItsTime: with
// db_timeout's bound (100 ms) in a call of an hour, a statement that
// would run for an hour is stopped in the database and fails with code
// timeout, naming its timeout, while the call's context goes on and its
// next statement runs; in a transaction too (which PostgreSQL then
// refuses to go on with until it rolls back). Lifting the timeout gives
// the statement the call's deadline again.
func TestAStatementTimeoutStopsTheStatementAndLeavesTheCallItsTime(t *testing.T) {
	dbs := map[string]map[string]config.Database{config.DatabaseSQLite: nil}
	if !testing.Short() {
		url, _, _ := databasetest.StartPostgres(t)
		dbs[config.DatabasePostgres] = map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: url}}
	}
	for driver, specs := range dbs {
		t.Run(driver, func(t *testing.T) {
			set := appdb.New(t.TempDir(), specs)
			t.Cleanup(func() { set.Close() })
			ctx := t.Context()
			s := appdb.NewSession(set, ctx, time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
			t.Cleanup(func() { s.Close() })
			main := []byte("main")
			stopped := func(what string) {
				t.Helper()
				if _, e := s.Run(main, []byte(endless[driver]), nil, false); e != abi.ErrDatabase {
					t.Fatalf("%s: errno %d, want ErrDatabase", what, e)
				}
				res, _ := s.Result()
				if !strings.Contains(string(res), `"code":"timeout"`) || !strings.Contains(string(res), "its timeout of 100ms") {
					t.Errorf("%s: %s, want code timeout naming the statement's timeout", what, res)
				}
				if ctx.Err() != nil {
					t.Fatalf("%s: the call's context ended: %v", what, ctx.Err())
				}
			}
			answers := func(what string) {
				t.Helper()
				if _, e := s.Run(main, []byte("SELECT 1"), nil, false); e != 0 {
					res, _ := s.Result()
					t.Errorf("%s: the next statement failed: %s", what, res)
				}
			}

			s.SetTimeout(100 * time.Millisecond)
			stopped("a statement")
			answers("after a statement")
			if driver == config.DatabasePostgres {
				// The server ends it at the cancel request; it may take a
				// moment to say so.
				if !poll.Until(10*time.Second, func() bool { return !running(t, specs["main"].URL, "pg_sleep(3600)") }) {
					t.Error("the statement still runs in PostgreSQL after its timeout")
				}
			}

			if e := s.Begin(main); e != 0 {
				t.Fatalf("begin: %d", e)
			}
			stopped("a statement in a transaction")
			if e := s.End(main, false); e != 0 {
				t.Fatalf("rollback: %d", e)
			}
			answers("after the transaction")

			s.SetTimeout(0)
			// The call's deadline alone bounds it again: its own context,
			// ended by the test, stops it (code other, not timeout).
			short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			s2 := appdb.NewSession(set, short, time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
			defer s2.Close()
			if _, e := s2.Run(main, []byte(endless[driver]), nil, false); e != abi.ErrDatabase {
				t.Fatalf("without a timeout: errno %d, want ErrDatabase", e)
			}
			if res, _ := s2.Result(); strings.Contains(string(res), `"code":"timeout"`) {
				t.Errorf("without a timeout, stopped by the call's end: %s, want code other", res)
			}
		})
	}
}

// running reports whether PostgreSQL at url runs a statement whose text
// holds query, but for this one.
func running(t *testing.T, url, query string) bool {
	t.Helper()
	admin, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	rows, err := admin.Query(t.Context(), "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()", []any{query})
	if err != nil {
		t.Fatal(err)
	}
	b, err := database.AppendQueryResult(nil, rows, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	return !strings.Contains(string(b), `"rows":[]`)
}
