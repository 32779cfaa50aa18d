package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
)

// TestPostgresTransactionFirstStatementFails: whatever way a
// transaction's first statement fails, the transaction then behaves as
// PostgreSQL's own would after that statement: one the server refused
// (a syntax error, before it was ever prepared; a constraint) leaves the
// transaction aborted, its next statements refused saying why and its
// commit failing (code other, saying it rolled back), so that nothing of
// it remains; one whose parameters
// were refused before they were sent leaves it usable, and its commit
// keeps what the next statements did.
func TestPostgresTransactionFirstStatementFails(t *testing.T) {
	db, _ := openPG(t)
	ctx := t.Context()
	aborted := "other: current transaction is aborted, commands ignored until end of transaction block"
	for _, tt := range []struct {
		name    string
		sql     string
		args    []any
		code    database.Code
		aborted bool
	}{
		{name: "a syntax error", sql: "SELEC 1", code: database.CodeSyntax, aborted: true},
		{name: "no such table", sql: "SELECT * FROM nothing", code: database.CodeSyntax, aborted: true},
		{name: "a constraint", sql: "INSERT INTO users (name, email) VALUES ($1, $2)", args: []any{"Again", "ada@example.com"}, code: database.CodeConstraint, aborted: true},
		{name: "a value its parameter refuses in the server", sql: "SELECT $1::text::int", args: []any{"x"}, code: database.CodeOther, aborted: true},
		{name: "a fraction for an integer, refused before it is sent", sql: "SELECT $1::bigint", args: []any{2.5}, code: database.CodeOther},
		{name: "too many parameters, refused before they are sent", sql: "SELECT $1::int", args: []any{int64(1), int64(2)}, code: database.CodeSyntax},
	} {
		for _, exec := range []bool{false, true} {
			name := tt.name + " in a query"
			if exec {
				name = tt.name + " in an exec"
			}
			t.Run(name, func(t *testing.T) {
				tx, err := db.Begin(ctx, database.TxOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				if exec {
					_, err = tx.Exec(ctx, tt.sql, tt.args)
				} else {
					var rows database.Rows
					if rows, err = tx.Query(ctx, tt.sql, tt.args); err == nil {
						_, err = database.AppendQueryResult(nil, rows, 1<<10)
					}
				}
				if (tt.code == "" && err != nil) || (tt.code != "" && database.CodeOf(err) != tt.code) {
					t.Fatalf("the first statement: %v; want code %s", err, tt.code)
				}
				// The next statement's row is named after the case.
				_, err = tx.Exec(ctx, "INSERT INTO users (name) VALUES ($1)", []any{name})
				switch {
				case tt.aborted && (err == nil || !strings.HasPrefix(err.Error(), aborted)):
					t.Errorf("the next statement: %v; want %s...", err, aborted)
				case !tt.aborted && err != nil:
					t.Errorf("the next statement: %v", err)
				}
				err = tx.Commit(ctx)
				switch {
				case tt.aborted && (database.CodeOf(err) != database.CodeTransaction || !strings.Contains(err.Error(), "rolled the transaction back instead of committing it")):
					// The handler's transaction, not an outage (which
					// would answer 503).
					t.Errorf("commit: %v; want transaction, saying it rolled back", err)
				case !tt.aborted && err != nil:
					t.Errorf("commit: %v", err)
				}
				want := `{"columns":["count"],"rows":[[1]]}`
				if tt.aborted {
					want = `{"columns":["count"],"rows":[[0]]}`
				}
				rows, err := db.Query(ctx, "SELECT count(*) FROM users WHERE name = $1", []any{name})
				if err != nil {
					t.Fatal(err)
				}
				if got, err := database.AppendQueryResult(nil, rows, 1<<10); err != nil || string(got) != want {
					t.Errorf("after the commit: %s, %v; want %s", got, err, want)
				}
			})
		}
	}
}

// TestPostgresTransactionServerDown: a transaction begun on a pooled
// connection whose server has since gone fails unavailable (at db_begin
// or at its first statement), as a statement outside one does, and
// once the server is back the next transaction runs on a new connection,
// not failing again on a stale one.
func TestPostgresTransactionServerDown(t *testing.T) {
	url, stop, restart := databasetest.StartPostgres(t)
	ctx := t.Context()
	db, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// run runs a statement in a transaction, which it commits.
	run := func(ctx context.Context) error {
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SELECT 1", nil); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	// Both connections are in the pool, idle.
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	stop()
	call, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := run(call); database.CodeOf(err) != database.CodeUnavailable {
		t.Fatalf("a transaction on a stopped server: %v; want unavailable", err)
	}
	restart()
	if err := run(ctx); err != nil {
		t.Fatalf("the first transaction after the server came back: %v", err)
	}
}

// TestPostgresTransactionBadParametersKeepTheConnection: parameters that
// do not fit a transaction's first statement, refused by pgx after it
// queued BEGIN with it, cost that connection once (the transaction goes
// on on another); the transactions that begin with that statement later
// keep theirs, so that bad input does not make the pool connect anew for
// every request.
func TestPostgresTransactionBadParametersKeepTheConnection(t *testing.T) {
	ctx := t.Context()
	db, _ := startPG(t, database.Options{MaxConns: 1})
	// backend runs a transaction whose first statement's parameter does
	// not fit, then asks which server process (connection) serves it.
	backend := func() int64 {
		t.Helper()
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SELECT $1::bigint", []any{2.5}); database.CodeOf(err) != database.CodeOther {
			t.Fatalf("a fraction for a bigint: %v; want other", err)
		}
		return backendPid(t, tx)
	}
	first := backend()
	for i := range 3 {
		if pid := backend(); pid != first {
			t.Fatalf("transaction %d ran on server process %d, the first on %d: its connection was closed", i+2, pid, first)
		}
	}
}

// TestPostgresTransactionGoesOnAfterAFailedReconnect: a transaction whose
// first statement cost its connection (parameters pgx refused after it
// queued BEGIN) takes another at its next statement; when that fails (the
// call's context ended while it waited), the transaction has no
// connection, and a statement after that takes one again instead of
// crashing the host on the connection it no longer has.
func TestPostgresTransactionGoesOnAfterAFailedReconnect(t *testing.T) {
	db, _ := openPG(t)
	ctx := t.Context()
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT $1::bigint", []any{2.5}); database.CodeOf(err) != database.CodeOther {
		t.Fatalf("a fraction for a bigint: %v; want other", err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := tx.Exec(ended, "SELECT 1", nil); err == nil {
		t.Fatal("a statement whose context had ended ran")
	}
	if _, err := tx.Exec(ctx, "INSERT INTO users (name) VALUES ('after a failed reconnect')", nil); err != nil {
		t.Fatalf("the statement after: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, "SELECT count(*) FROM users WHERE name = 'after a failed reconnect'", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := database.AppendQueryResult(nil, rows, 1<<10); err != nil || string(got) != `{"columns":["count"],"rows":[[1]]}` {
		t.Errorf("after the commit: %s, %v; want one row", got, err)
	}
}

// TestPostgresTransactionOptions: a transaction begins at the isolation
// level and in the access mode its options ask (BEGIN ISOLATION LEVEL
// ... READ ONLY), whichever statement comes first; a write in a
// read-only one is denied, saying the transaction is read-only, not
// unavailable as a server that takes no writes.
func TestPostgresTransactionOptions(t *testing.T) {
	db, _ := openPG(t)
	ctx := t.Context()
	settings := "SELECT current_setting('transaction_isolation') || ' ' || current_setting('transaction_read_only') AS s"
	for _, tt := range []struct {
		name string
		opts database.TxOptions
		want string
	}{
		{"default", database.TxOptions{}, "read committed off"},
		{"read committed", database.TxOptions{Isolation: database.IsolationReadCommitted}, "read committed off"},
		{"repeatable read", database.TxOptions{Isolation: database.IsolationRepeatableRead}, "repeatable read off"},
		{"serializable", database.TxOptions{Isolation: database.IsolationSerializable}, "serializable off"},
		{"read only", database.TxOptions{ReadOnly: true}, "read committed on"},
		{"serializable read only", database.TxOptions{Isolation: database.IsolationSerializable, ReadOnly: true}, "serializable on"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := db.Begin(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			want := `{"columns":["s"],"rows":[["` + tt.want + `"]]}`
			if got := resultOrError(t, tx, settings); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
	t.Run("writes in a read-only transaction", func(t *testing.T) {
		for _, sql := range []string{"UPDATE users SET name = 'Bob'", "INSERT INTO users (name) VALUES ('Bob') RETURNING id", "CREATE TABLE other (x int)"} {
			for _, first := range []bool{true, false} {
				tx, err := db.Begin(ctx, database.TxOptions{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				if !first { // BEGIN went with another statement
					resultOrError(t, tx, "SELECT 1")
				}
				_, err = result(t, tx, sql)
				if database.CodeOf(err) != database.CodeDenied || !strings.Contains(err.Error(), database.ReadOnlyMessage) {
					t.Errorf("%s (first %v): %v; want denied, saying the transaction is read-only", sql, first, err)
				}
				// Logs and observers see PostgreSQL's SQLSTATE
				// (read_only_sql_transaction), as for its other errors.
				if r := database.AsError(err).Redact().Error(); !strings.Contains(r, "(SQLSTATE 25006)") {
					t.Errorf("%s (first %v): redacted %q, want SQLSTATE 25006", sql, first, r)
				}
				tx.Rollback(ctx)
			}
		}
		if got := resultOrError(t, db, "SELECT count(*) AS n FROM users WHERE name = 'Bob'"); got != `{"columns":["n"],"rows":[[0]]}` {
			t.Errorf("after the refused writes: %s", got)
		}
	})
	t.Run("a serializable read-modify-write fails busy", func(t *testing.T) {
		for _, tt := range []struct {
			opts database.TxOptions
			code database.Code
		}{
			{database.TxOptions{}, ""}, // read committed: the lost update goes through
			{database.TxOptions{Isolation: database.IsolationRepeatableRead}, database.CodeBusy},
			{database.TxOptions{Isolation: database.IsolationSerializable}, database.CodeBusy},
		} {
			tx, err := db.Begin(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			resultOrError(t, tx, "SELECT name FROM users WHERE id = 1")
			if _, err := db.Exec(ctx, "UPDATE users SET name = name || '.' WHERE id = 1", nil); err != nil {
				t.Fatal(err)
			}
			_, err = tx.Exec(ctx, "UPDATE users SET name = 'Ada' WHERE id = 1", nil)
			if (tt.code == "" && err != nil) || (tt.code != "" && database.CodeOf(err) != tt.code) {
				t.Errorf("%+v: the update after a concurrent one: %v; want code %q", tt.opts, err, tt.code)
			}
			tx.Rollback(ctx)
		}
	})
}
