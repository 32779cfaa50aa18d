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

// TestAStatementTimeoutOfASQLiteWriteRollsItsTransactionBack: SQLite
// rolls the whole transaction back when it stops a write of it, so the
// timeout's error says a transaction must be run again, and the next
// statement and the commit fail with code transaction, saying the
// statement was stopped (not that memory or disk ran out), leaving
// nothing of the transaction; the connection then serves writes again. A
// read it stops leaves the transaction open.
func TestAStatementTimeoutOfASQLiteWriteRollsItsTransactionBack(t *testing.T) {
	dir := writeApp(t, map[string]string{"server/migrations/001-a.sql": "CREATE TABLE a (x);"})
	set := appdb.New(dir, nil)
	t.Cleanup(func() { set.Close() })
	if _, err := set.Migrate(t.Context(), appdb.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := appdb.NewSession(set, t.Context(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
	t.Cleanup(func() { s.Close() })
	main := []byte("main")
	run := func(sql string, exec bool) (abi.Errno, string) {
		t.Helper()
		_, e := s.Run(main, []byte(sql), nil, exec)
		res, _ := s.Result()
		return e, string(res)
	}
	if e := s.Begin(main); e != 0 {
		t.Fatalf("begin: %d", e)
	}
	if e, res := run("INSERT INTO a VALUES (1)", true); e != 0 {
		t.Fatalf("insert: %s", res)
	}
	s.SetTimeout(100 * time.Millisecond)
	e, res := run("INSERT INTO a "+strings.Replace(endless[config.DatabaseSQLite], "count(*)", "n", 1), true)
	if e != abi.ErrDatabase || !strings.Contains(res, `"code":"timeout"`) || !strings.Contains(res, "SQLite rolls back the whole transaction") {
		t.Errorf("the endless write: %s, want code timeout saying SQLite rolls the transaction back", res)
	}
	s.SetTimeout(0)
	rolledBack := func(what string, e abi.Errno, res string) {
		t.Helper()
		if e != abi.ErrDatabase || !strings.Contains(res, `"code":"transaction"`) || !strings.Contains(res, "stopped at its timeout") {
			t.Errorf("%s: %s, want code transaction saying a statement was stopped", what, res)
		}
	}
	e, res = run("SELECT count(*) FROM a", false)
	rolledBack("the next statement", e, res)
	rolledBack("the commit", s.End(main, true), func() string { r, _ := s.Result(); return string(r) }())
	if e, res := run("INSERT INTO a VALUES (2)", true); e != 0 {
		t.Fatalf("a write after the transaction: %s", res)
	}
	if _, res := run("SELECT x FROM a", false); !strings.Contains(res, `"rows":[[2]]`) {
		t.Errorf("the table holds %s, want the later row alone", res)
	}

	// A read it stops leaves the transaction open: its write commits.
	if e := s.Begin(main); e != 0 {
		t.Fatalf("begin: %d", e)
	}
	if e, res := run("INSERT INTO a VALUES (3)", true); e != 0 {
		t.Fatalf("insert: %s", res)
	}
	s.SetTimeout(100 * time.Millisecond)
	if e, res := run(endless[config.DatabaseSQLite], false); e != abi.ErrDatabase || !strings.Contains(res, `"code":"timeout"`) {
		t.Errorf("the endless read: %s, want code timeout", res)
	}
	s.SetTimeout(0)
	if e := s.End(main, true); e != 0 {
		r, _ := s.Result()
		t.Fatalf("commit after a stopped read: %s", r)
	}
	if _, res := run("SELECT x FROM a ORDER BY x", false); !strings.Contains(res, `"rows":[[2],[3]]`) {
		t.Errorf("the table holds %s, want the committed row beside the earlier one", res)
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

// TestAStatementTimeoutBoundsTheWaitForSQLitesWriteLock: a write that
// finds the write lock held waits for it until a tenth of its db_timeout
// before the timeout, as abi/README.md §4.5 says, then fails busy saying
// its timeout stopped the wait; it is not refused at once for want of
// the margin a call's deadline keeps to answer (50 ms at least), which a
// statement timeout, after which the call goes on, does not need.
//
// Neither assertion depends on the machine's speed: the code busy (not
// timeout) is what says the wait ended before the statement's bound, and
// the timeout is long enough (a margin of 200 ms) that a loaded machine
// does not carry the wait past it; the wait's least length is a lower
// bound a slow machine only exceeds.
func TestAStatementTimeoutBoundsTheWaitForSQLitesWriteLock(t *testing.T) {
	dir := writeApp(t, map[string]string{"server/migrations/001-a.sql": "CREATE TABLE a (x);"})
	set := appdb.New(dir, nil)
	t.Cleanup(func() { set.Close() })
	if _, err := set.Migrate(t.Context(), appdb.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	main := []byte("main")
	holder := appdb.NewSession(set, t.Context(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
	t.Cleanup(func() { holder.Close() })
	if e := holder.Begin(main); e != 0 { // BEGIN IMMEDIATE: the write lock
		t.Fatalf("begin: %d", e)
	}
	const timeout = 2 * time.Second
	s := appdb.NewSession(set, t.Context(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
	t.Cleanup(func() { s.Close() })
	s.SetTimeout(timeout)
	began := time.Now()
	_, e := s.Run(main, []byte("INSERT INTO a VALUES (1)"), nil, true)
	waited := time.Since(began)
	res, _ := s.Result()
	if e != abi.ErrDatabase || !strings.Contains(string(res), `"code":"busy"`) || !strings.Contains(string(res), "statement's timeout") {
		t.Errorf("the write: %s, want busy saying the statement's timeout stopped the wait", res)
	}
	if waited < timeout*9/10 {
		t.Errorf("the write waited %s for the lock, want a tenth less than its timeout of %s", waited, timeout)
	}
}

// TestACommitStoppedAtItsTimeoutSaysItsOutcomeIsUnknown: a COMMIT the
// statement timeout stops (here PostgreSQL runs a deferred trigger that
// sleeps at commit) fails with code timeout saying that whether the
// transaction committed is not known, so that a guest checks before it
// runs the transaction again rather than apply it twice; it does not tell
// it to roll back and run it again, as for a statement inside.
func TestACommitStoppedAtItsTimeoutSaysItsOutcomeIsUnknown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	url, _, _ := databasetest.StartPostgres(t)
	dir := writeApp(t, map[string]string{"server/migrations/001-slow-commit.sql": `
CREATE TABLE slow_commit (x int);
CREATE FUNCTION sleep_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(3600); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER slow_commit_t AFTER INSERT ON slow_commit DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sleep_at_commit();
`})
	set := appdb.New(dir, map[string]config.Database{"main": {Driver: config.DatabasePostgres, URL: url}})
	t.Cleanup(func() { set.Close() })
	if _, err := set.Migrate(t.Context(), appdb.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := appdb.NewSession(set, t.Context(), time.Now().Add(time.Hour), 1<<20, appdb.Hooks{})
	t.Cleanup(func() { s.Close() })
	main := []byte("main")
	if e := s.Begin(main); e != 0 {
		t.Fatalf("begin: %d", e)
	}
	if _, e := s.Run(main, []byte("INSERT INTO slow_commit VALUES (1)"), nil, true); e != 0 {
		res, _ := s.Result()
		t.Fatalf("insert: %s", res)
	}
	s.SetTimeout(100 * time.Millisecond)
	e := s.End(main, true)
	res, _ := s.Result()
	if e != abi.ErrDatabase || !strings.Contains(string(res), `"code":"timeout"`) ||
		!strings.Contains(string(res), "whether the transaction committed is not known") ||
		strings.Contains(string(res), "roll back and run it again") {
		t.Errorf("the stopped commit: errno %d, %s\nwant code timeout saying the outcome is not known, not to run it again", e, res)
	}
}
