package postgres_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
)

// backendPid is the server process (connection) that runs a statement of
// q: the pool's next connection, or a transaction's own.
func backendPid(t *testing.T, q database.Querier) int64 {
	t.Helper()
	rows, err := q.Query(t.Context(), "SELECT pg_backend_pid()::bigint", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("no pid: %v", rows.Err())
	}
	vals, err := rows.Values()
	if err != nil {
		t.Fatal(err)
	}
	return vals[0].(int64)
}

// TestPostgresTerminatedBackendClosesOnlyItsConnection: a statement whose
// own connection the server ends (pg_terminate_backend, an idle session
// timeout, a proxy dropping one socket) fails unavailable, and costs that
// connection only: the other idle connection serves the next statement,
// with no failure in between, and a transaction in flight on a third goes
// on and keeps its connection in the pool. The pool dropped every
// connection (pgxpool's Reset) on any such failure.
func TestPostgresTerminatedBackendClosesOnlyItsConnection(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	for _, tt := range []struct {
		name string
		run  func(db database.DB, sql string) error
	}{
		{"query", func(db database.DB, sql string) error { _, err := result(t, db, sql); return err }},
		{"exec", func(db database.DB, sql string) error {
			_, err := db.Exec(t.Context(), sql, nil)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			db, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			inFlight, err := db.Begin(ctx, database.TxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer inFlight.Rollback(ctx)
			pidA := backendPid(t, inFlight)
			// Two more connections, idle in the pool once their
			// transactions end.
			b, err := db.Begin(ctx, database.TxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := db.Begin(ctx, database.TxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			idle := []int64{backendPid(t, b), backendPid(t, c)}
			b.Rollback(ctx)
			c.Rollback(ctx)

			err = tt.run(db, "SELECT pg_terminate_backend(pg_backend_pid())")
			if database.CodeOf(err) != database.CodeUnavailable {
				t.Fatalf("a statement whose connection was terminated: %v; want unavailable", err)
			}
			// The next statement runs on the idle connection that is
			// left, not on a new one.
			if pid := backendPid(t, db); !slices.Contains(idle, pid) {
				t.Errorf("the statement after ran on server process %d, not on the idle connection left (one of %v): the pool dropped its connections", pid, idle)
			}
			if pid := backendPid(t, inFlight); pid != pidA {
				t.Fatalf("the transaction in flight moved from server process %d to %d", pidA, pid)
			}
			if err := inFlight.Commit(ctx); err != nil {
				t.Fatalf("the transaction in flight: %v", err)
			}
			// Its connection went back to the pool: two transactions
			// at once run on it and on the idle one.
			t1, err := db.Begin(ctx, database.TxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer t1.Rollback(ctx)
			t2, err := db.Begin(ctx, database.TxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer t2.Rollback(ctx)
			got := []int64{backendPid(t, t1), backendPid(t, t2)}
			if !slices.Contains(got, pidA) {
				t.Errorf("after its commit, the transaction's connection (server process %d) was not pooled: transactions ran on %v", pidA, got)
			}
		})
	}
}

// TestPostgresOutageThenNewConnections: once the server is gone, the
// statement that finds out drops the pool's other connections, which a
// restarted server no longer knows: after the restart, every statement
// runs on a new connection and none fails on a stale one.
func TestPostgresOutageThenNewConnections(t *testing.T) {
	url, stop, restart := databasetest.StartPostgres(t)
	ctx := t.Context()
	db, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Three connections, idle in the pool, which have each prepared the
	// statement: it is sent as its Bind and Execute, whose error comes
	// with the rows, not from Query.
	const one = "SELECT 1 AS one"
	var txs []database.Tx
	for range 3 {
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := result(t, tx, one); err != nil {
			t.Fatalf("%s: %s, %v", one, got, err)
		}
		txs = append(txs, tx)
	}
	for _, tx := range txs {
		tx.Rollback(ctx)
	}
	stop()
	if _, err := result(t, db, one); database.CodeOf(err) != database.CodeUnavailable {
		t.Fatalf("a statement on a stopped server: %v; want unavailable", err)
	}
	// The restart takes less than the second after which pgxpool pings
	// an idle connection before handing it out: the stale ones would be
	// handed out as they are.
	restart()
	for i := range 3 {
		if got, err := result(t, db, one); err != nil || got != `{"columns":["one"],"rows":[[1]]}` {
			t.Fatalf("statement %d after the restart: %s, %v", i+1, got, err)
		}
	}
}

// TestPostgresConnectionLimitKeepsThePool: a connection the server
// refuses because it has too many (its max_connections, or the role's
// connection limit) fails the statement unavailable, saying which limit
// and which setting to lower; the server answered, so the pool keeps the
// connections it has: the transaction's that ends is pooled and serves
// the next statement.
func TestPostgresConnectionLimitKeepsThePool(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	ctx := t.Context()
	admin, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(ctx, "CREATE ROLE capped LOGIN CONNECTION LIMIT 2", nil); err != nil {
		t.Fatal(err)
	}
	capped := strings.Replace(url, "postgres://postgres@", "postgres://capped@", 1)
	db, err := database.Open(ctx, database.DriverPostgres, database.Options{Name: "main", URL: capped, MaxConns: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Both connections the role may have, held by transactions.
	var txs []database.Tx
	var pids []int64
	for range 2 {
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		txs = append(txs, tx)
		pids = append(pids, backendPid(t, tx))
	}
	_, err = result(t, db, "SELECT 1")
	const want = "the server refuses more connections (its max_connections, or a connection limit of the role or database): lower databases.main.maxConns"
	if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), want) {
		t.Errorf("a statement past the role's connection limit: %v; want unavailable: %s", err, want)
	}
	// The second transaction ends: its connection is idle, and serves
	// the next statement.
	if err := txs[1].Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if pid := backendPid(t, db); pid != pids[1] {
		t.Errorf("the statement after ran on server process %d, not on the pooled connection %d: the pool dropped its connections", pid, pids[1])
	}
}
