package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/database/postgres"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// result runs sql on q and returns its result as a guest gets it, under a
// bound of 1 MiB.
func result(t *testing.T, q database.Querier, sql string, args ...any) (string, error) {
	t.Helper()
	rows, err := q.Query(t.Context(), sql, args)
	if err != nil {
		return "", err
	}
	b, err := database.AppendQueryResult(nil, rows, 1<<20)
	return string(b), err
}

// resultOrError is result's result, or its error's text.
func resultOrError(t *testing.T, q database.Querier, sql string, args ...any) string {
	t.Helper()
	b, err := result(t, q, sql, args...)
	if err != nil {
		return err.Error()
	}
	return b
}

// startPG starts a PostgreSQL server for the test and opens a pool on it
// with opts (its URL filled in), closed when the test ends; it returns
// the pool and the server's URL.
func startPG(t *testing.T, opts database.Options) (database.DB, string) {
	t.Helper()
	url, _, _ := databasetest.StartPostgres(t)
	opts.URL = url
	db, err := database.Open(t.Context(), database.DriverPostgres, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, url
}

func openPG(t *testing.T) (database.DB, func()) {
	t.Helper()
	url, stop, _ := databasetest.StartPostgres(t)
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(t.Context(), func(m database.Migration) error {
		return m.Script(t.Context(), `
		CREATE TABLE users (id bigserial PRIMARY KEY, name text NOT NULL, email text UNIQUE, photo bytea, balance numeric(10,2), born date, seen timestamptz, meta jsonb, ref uuid, ok boolean);
		INSERT INTO users (name, email, photo, balance, born, seen, meta, ref, ok)
		VALUES ('Ada', 'ada@example.com', '\x0001', 12.50, '1815-12-10', '2026-01-02T03:04:05Z', '{"a": 1}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', true);`,
		)
	}); err != nil {
		t.Fatal(err)
	}
	return db, stop
}

func TestPostgres(t *testing.T) {
	db, stop := openPG(t)
	ctx := t.Context()
	run := func(sql string, args ...any) (string, error) {
		rows, err := db.Query(ctx, sql, args)
		if err != nil {
			return "", err
		}
		b, err := database.AppendQueryResult(nil, rows, 1<<20)
		return string(b), err
	}
	tests := []struct {
		name, sql string
		args      []any
		want      string
		code      database.Code
	}{
		{name: "types", sql: "SELECT id, name, photo, balance, born, seen, meta, ref, ok, 2.5::float8 AS f, 9007199254740993::bigint AS big FROM users WHERE id = $1", args: []any{int64(1)},
			want: `{"columns":["id","name","photo","balance","born","seen","meta","ref","ok","f","big"],"blobs":[[0,2]],"rows":[[1,"Ada","AAE=","12.50","1815-12-10T00:00:00Z","2026-01-02T03:04:05Z","{\"a\":1}","a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",true,2.5,9007199254740993]]}`},
		{name: "blobs and text that reads as base64", sql: "SELECT 'test' AS t, $1::bytea AS b UNION ALL SELECT 'hello', NULL UNION ALL SELECT 'x', '\\x00'::bytea", args: []any{[]byte("hi")},
			want: `{"columns":["t","b"],"blobs":[[0,1],[2,1]],"rows":[["test","aGk="],["hello",null],["x","AA=="]]}`},
		{name: "injection stays a value", sql: "SELECT count(*) FROM users WHERE name = $1", args: []any{"x' OR '1'='1"}, want: `{"columns":["count"],"rows":[[0]]}`},
		{name: "two statements refused", sql: "SELECT 1; DELETE FROM users", code: database.CodeDenied},
		{name: "two statements with a parameter refused", sql: "SELECT $1::int; DELETE FROM users", args: []any{int64(1)}, code: database.CodeDenied},
		{name: "session settings refused", sql: "SET statement_timeout = 0", code: database.CodeDenied},
		{name: "transaction control refused", sql: "/* c */ COMMIT", code: database.CodeDenied},
		{name: "syntax", sql: "SELEC 1", code: database.CodeSyntax},
		{name: "no such table", sql: "SELECT * FROM nothing", code: database.CodeSyntax},
		// Refused by pgx before the server sees them: the handler's
		// mistake, not an outage (which would answer 503 and reset the pool).
		{name: "more parameters than the statement takes", sql: "SELECT $1::int", args: []any{int64(1), int64(2)}, code: database.CodeSyntax},
		{name: "a parameter its type cannot hold", sql: "SELECT $1::bigint", args: []any{true}, code: database.CodeOther},
		// pgx would send 2.5 for a bigint as 2: a fraction for an integer
		// type is refused, as PostgreSQL refuses '2.5'::bigint.
		{name: "a fraction for an integer refused", sql: "SELECT $1::bigint", args: []any{2.5}, code: database.CodeOther},
		{name: "a fraction for an int refused", sql: "SELECT $1::int", args: []any{-0.5}, code: database.CodeOther},
		{name: "a real past int64 refused", sql: "SELECT $1::bigint", args: []any{1e19}, code: database.CodeOther},
		{name: "a whole real for an integer", sql: "SELECT $1::bigint AS n", args: []any{3.0}, want: `{"columns":["n"],"rows":[[3]]}`},
		{name: "a real for a real", sql: "SELECT $1::float8 AS f", args: []any{2.5}, want: `{"columns":["f"],"rows":[[2.5]]}`},
		{name: "a real for a numeric", sql: "SELECT $1::numeric AS n", args: []any{2.5}, want: `{"columns":["n"],"rows":[["2.5"]]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := run(tt.sql, tt.args...)
			if tt.code != "" {
				if database.CodeOf(err) != tt.code {
					t.Fatalf("got %s, %v; want code %s", got, err, tt.code)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got  %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}

	t.Run("constraint", func(t *testing.T) {
		_, err := db.Exec(ctx, "INSERT INTO users (name, email) VALUES ($1, $2)", []any{"Again", "ada@example.com"})
		var e *database.Error
		if !errors.As(err, &e) || e.Code != database.CodeConstraint || e.Constraint != "users_email_key" {
			t.Fatalf("got %v, want constraint users_email_key", err)
		}
	})
	t.Run("constraint kinds", func(t *testing.T) {
		for _, s := range []string{
			"CREATE TABLE teams (id bigint PRIMARY KEY)",
			"INSERT INTO teams VALUES (1)",
			"CREATE TABLE tags (id bigserial PRIMARY KEY, team_id bigint NOT NULL REFERENCES teams (id), name text CONSTRAINT name_not_empty CHECK (name <> ''))",
			"CREATE TABLE bookings (room int4range, during int4range, EXCLUDE USING gist (room WITH =, during WITH &&))",
			"INSERT INTO tags (team_id, name) VALUES (1, 'x')",
			"INSERT INTO bookings VALUES ('[1,1]', '[1,5)')",
		} {
			if _, err := db.Exec(ctx, s, nil); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		for _, tt := range []struct {
			name, sql, constraint string
			kind                  database.Kind
		}{
			{"unique", "INSERT INTO users (name, email) VALUES ('Again', 'ada@example.com')", "users_email_key", database.KindUnique},
			{"primary key", "INSERT INTO users (id, name) VALUES (1, 'Again')", "users_pkey", database.KindUnique},
			{"not null", "INSERT INTO users (email) VALUES ('x@example.com')", "", database.KindNotNull},
			{"check", "INSERT INTO tags (team_id, name) VALUES (1, '')", "name_not_empty", database.KindCheck},
			{"foreign key to a missing row", "INSERT INTO tags (team_id, name) VALUES (99, 'x')", "tags_team_id_fkey", database.KindForeignKey},
			{"delete of a row others name", "DELETE FROM teams WHERE id = 1", "tags_team_id_fkey", database.KindForeignKey},
			{"exclusion", "INSERT INTO bookings VALUES ('[1,1]', '[3,8)')", "bookings_room_during_excl", database.KindExclusion},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := db.Exec(ctx, tt.sql, nil)
				var e *database.Error
				if !errors.As(err, &e) || e.Code != database.CodeConstraint || e.Constraint != tt.constraint || e.Kind != tt.kind {
					t.Errorf("%s: %v (constraint %q, kind %q), want constraint %q of kind %q", tt.sql, err, e.Constraint, e.Kind, tt.constraint, tt.kind)
				}
			})
		}
	})
	t.Run("exec", func(t *testing.T) {
		r, err := db.Exec(ctx, "UPDATE users SET ok = $1", []any{false})
		if err != nil || r.RowsAffected != 1 || r.HasLastInsertID {
			t.Fatalf("got %+v, %v", r, err)
		}
	})
	t.Run("deadline cancels pg_sleep in the server", func(t *testing.T) {
		c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		began := time.Now()
		_, err := db.Exec(c, "SELECT pg_sleep(30)", nil)
		if err == nil {
			t.Fatal("pg_sleep(30) returned no error")
		}
		if d := time.Since(began); d > 10*time.Second {
			t.Fatalf("the statement ran %s past a 200 ms deadline", d)
		}
		// The server no longer runs it.
		got, err := run("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%'")
		if err != nil || got != `{"columns":["count"],"rows":[[0]]}` {
			t.Fatalf("pg_sleep still runs: %s, %v", got, err)
		}
	})
	t.Run("transaction rolls back", func(t *testing.T) {
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM users", nil); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := run("SELECT count(*) FROM users"); got != `{"columns":["count"],"rows":[[1]]}` {
			t.Fatalf("after rollback: %s", got)
		}
	})
	t.Run("down is unavailable", func(t *testing.T) {
		stop()
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		err := db.Ping(c)
		if database.CodeOf(err) != database.CodeUnavailable {
			t.Fatalf("ping of a stopped server: %v, want unavailable", err)
		}
		if _, err := run("SELECT 1"); database.CodeOf(err) != database.CodeUnavailable && !strings.Contains(err.Error(), "stopped") {
			t.Fatalf("query on a stopped server: %v, want unavailable", err)
		}
	})
}

// TestPostgresScriptNamesTheStatement: a migration script that fails
// names the statement that failed, whether PostgreSQL gives its position
// (a syntax error) or not (a table that does not exist, a constraint),
// past strings, quoted names, comments and function bodies holding
// semicolons; and nothing of the script remains.
func TestPostgresScriptNamesTheStatement(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 2})
	for _, tt := range []struct {
		name, script, want string
	}{
		{"a syntax error", "CREATE TABLE a (x int);\nCREATE TABLE b (y int NOT NUL);\n",
			`syntax: syntax error at or near "NUL" in the statement "CREATE TABLE b (y int NOT NUL)"`},
		{"a table that does not exist", "-- notes\nCREATE TABLE a (x int);\nALTER TABLE a ADD COLUMN r bigint REFERENCES nowhere (id);\nCREATE TABLE c (z int);\n",
			`syntax: relation "nowhere" does not exist in the statement "ALTER TABLE a ADD COLUMN r bigint REFERENCES nowhere (id)"`},
		{"a constraint, after strings, names and bodies with semicolons", `CREATE TABLE a (x int UNIQUE, "semi;colon" text);
INSERT INTO a VALUES (1, 'it''s; here'), (2, E'back\'slash;');
/* a comment; /* nested; */ still */ CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$;
CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $$ SELECT 2; $$;
INSERT INTO a VALUES (1, 'again');`,
			`constraint: duplicate key value violates unique constraint "a_x_key" in the statement "INSERT INTO a VALUES (1, 'again')" (constraint a_x_key)`},
		// The script's own transaction statements: a COMMIT in the
		// middle committed what ran before it, unrecorded, and the rest
		// ran outside the migration's transaction and lock.
		{"a commit in the middle", "CREATE TABLE a (x int);\nCOMMIT;\nINSERT INTO nowhere VALUES (1);\n",
			`denied: ` + database.MigrationTransactionMessage + ` in the statement "COMMIT"`},
		{"begin and commit", "begin;\nCREATE TABLE a (x int);\ncommit;\n",
			`denied: ` + database.MigrationTransactionMessage + ` in the statement "begin"`},
		{"start transaction and end", "CREATE TABLE a (x int);\n/* done */ END;\nSTART TRANSACTION;\n",
			`denied: ` + database.MigrationTransactionMessage + ` in the statement "/* done */ END"`},
		{"a rollback", "CREATE TABLE a (x int);\nROLLBACK WORK;\n",
			`denied: ` + database.MigrationTransactionMessage + ` in the statement "ROLLBACK WORK"`},
		{"abort", "CREATE TABLE a (x int);\nABORT;\n",
			`denied: ` + database.MigrationTransactionMessage + ` in the statement "ABORT"`},
		{"a prepared transaction", "CREATE TABLE a (x int);\nPREPARE TRANSACTION 'm';\n",
			`denied: ` + database.MigrationTransactionMessage + ` in the statement "PREPARE TRANSACTION 'm'"`},
		// A body in BEGIN ATOMIC ... END (PostgreSQL 14) holds semicolons,
		// and its END (a CASE's too) is not the script's: it was taken
		// for a transaction statement and the script refused.
		{"a constraint, after a BEGIN ATOMIC body", `CREATE TABLE a (x int UNIQUE);
CREATE FUNCTION h(v int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN v > 0 THEN v ELSE 0 END; END;
INSERT INTO a VALUES (1), (1);`,
			`constraint: duplicate key value violates unique constraint "a_x_key" in the statement "INSERT INTO a VALUES (1), (1)" (constraint a_x_key)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := db.Migrate(t.Context(), func(m database.Migration) error { return m.Script(t.Context(), tt.script) })
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
			rows, err := db.Query(t.Context(), "SELECT count(*) FROM pg_tables WHERE tablename = 'a'", nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := database.AppendQueryResult(nil, rows, 1<<10)
			if err != nil || string(b) != `{"columns":["count"],"rows":[[0]]}` {
				t.Errorf("the failed script left its table: %s, %v", b, err)
			}
		})
	}
}

// TestPostgresScriptSavepoints: a migration may use savepoints within its
// transaction (ROLLBACK TO is not the script's ROLLBACK), and a body that
// holds the words COMMIT or BEGIN (a function's) is not a statement.
func TestPostgresScriptSavepoints(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 2})
	script := `CREATE TABLE kept (x int);
SAVEPOINT s;
CREATE TABLE dropped (y int);
ROLLBACK TO SAVEPOINT s;
rollback work to s;
RELEASE s;
CREATE PROCEDURE p() LANGUAGE plpgsql AS $$ BEGIN COMMIT; END $$;
`
	if err := db.Migrate(t.Context(), func(m database.Migration) error { return m.Script(t.Context(), script) }); err != nil {
		t.Fatalf("the migration failed: %v", err)
	}
	rows, err := db.Query(t.Context(), "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename IN ('kept', 'dropped')", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := database.AppendQueryResult(nil, rows, 1<<10); err != nil || !strings.Contains(string(b), `[["kept"]]`) {
		t.Errorf("the tables after the migration: %s, %v; want kept alone", b, err)
	}
}

// TestPostgresScriptStandardBodies: functions and procedures whose body
// is SQL-standard (BEGIN ATOMIC ... END, PostgreSQL 14), semicolons and
// CASE ... END inside, are statements of the script like any other: their
// END is not a transaction statement.
func TestPostgresScriptStandardBodies(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 2})
	script := `CREATE FUNCTION add_positive(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE
BEGIN ATOMIC
  SELECT CASE WHEN a > 0 THEN a ELSE 0 END + b;
END;
CREATE OR REPLACE PROCEDURE noop() LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END;
CREATE TABLE after_bodies (x int);
`
	if err := db.Migrate(t.Context(), func(m database.Migration) error { return m.Script(t.Context(), script) }); err != nil {
		t.Fatalf("the migration failed: %v", err)
	}
	rows, err := db.Query(t.Context(), "SELECT add_positive(-1, 2) + add_positive(3, 4), (SELECT count(*) FROM pg_tables WHERE tablename = 'after_bodies')", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := database.AppendQueryResult(nil, rows, 1<<10); err != nil || !strings.Contains(string(b), `"rows":[[9,1]]`) {
		t.Errorf("the function and table after the migration: %s, %v; want 9 and 1", b, err)
	}
}

// abortedTx opens openPG's database and a transaction on it whose
// statement failed (a duplicate email), which PostgreSQL aborts; rolled
// back at the end.
func abortedTx(t *testing.T) (database.DB, database.Tx) {
	t.Helper()
	db, _ := openPG(t)
	ctx := t.Context()
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(context.Background()) })
	if _, err := tx.Exec(ctx, "INSERT INTO users (name, email) VALUES ($1, $2)", []any{"Again", "ada@example.com"}); database.CodeOf(err) != database.CodeConstraint {
		t.Fatalf("the duplicate: %v, want a constraint error", err)
	}
	return db, tx
}

// TestPostgresAbortedTransactionSaysWhy: after a statement of a
// transaction fails, PostgreSQL refuses the next ones until the
// transaction ends (SQLite does not); the error says so and what to do.
func TestPostgresAbortedTransactionSaysWhy(t *testing.T) {
	ctx := t.Context()
	_, tx := abortedTx(t)
	_, err := tx.Exec(ctx, "INSERT INTO users (name) VALUES ($1)", []any{"Next"})
	want := "other: current transaction is aborted, commands ignored until end of transaction block: an earlier statement of this transaction failed, and PostgreSQL runs no other until it rolls back; return that statement's error from the transaction, or keep it from failing (INSERT ... ON CONFLICT DO NOTHING)"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestPostgresCommitOfAnAbortedTransaction: PostgreSQL answers the COMMIT
// of a transaction a failed statement aborted by rolling it back. That is
// the handler's transaction, not the server gone: a transaction error
// that says so, not unavailable (which guests answer 503, and which
// drops the pool's connections).
func TestPostgresCommitOfAnAbortedTransaction(t *testing.T) {
	ctx := t.Context()
	db, tx := abortedTx(t)
	err := tx.Commit(ctx)
	if database.CodeOf(err) != database.CodeTransaction || !strings.Contains(err.Error(), "rolled the transaction back") {
		t.Errorf("commit: %v, want a transaction error saying it was rolled back", err)
	}
	if got, err := db.Query(ctx, "SELECT count(*) FROM users", nil); err != nil {
		t.Fatalf("after it: %v", err)
	} else {
		got.Close()
	}
}

// TestPostgresDeallocateRefused: a guest's DEALLOCATE would drop the
// statements pgx prepared on the pooled connection, and every statement
// cached there would fail once in the calls that follow ("prepared
// statement stmtcache_... does not exist"). It is refused, and the cached
// statement runs on.
func TestPostgresDeallocateRefused(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	ctx := t.Context()
	for _, sql := range []string{"SELECT 1", "DEALLOCATE ALL", "SELECT 1"} {
		_, err := db.Exec(ctx, sql, nil)
		if sql == "DEALLOCATE ALL" {
			if database.CodeOf(err) != database.CodeDenied {
				t.Errorf("%s: %v, want denied", sql, err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// TestPostgresLongStatementsAreNotCached: pgx keeps 512 statements a
// connection prepared under a name (cache_statement), their SQL text on
// the host and their plans in the server: a guest that sent distinct long
// statements (its SQL built per request) filled both, 200 statements of
// 256 KiB grew the host's heap by 51 MB and the server's prepared
// statements to 52 MB of text, a connection. A statement longer than the
// statements a connection caches (as SQLite's driver bounds its own) is
// prepared unnamed for each run; short ones stay cached; both run, alone
// and in transactions, in either exec mode that caches.
func TestPostgresLongStatementsAreNotCached(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	pad := strings.Repeat(" ", 64<<10)
	for _, mode := range []string{"cache_statement", "cache_describe"} {
		t.Run(mode, func(t *testing.T) {
			db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url + "&default_query_exec_mode=" + mode, MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := t.Context()
			for i := range 20 {
				want := fmt.Sprintf(`{"columns":["n"],"rows":[[%d]]}`, i)
				if got := resultOrError(t, db, fmt.Sprintf("SELECT %d AS n", i)+pad); got != want {
					t.Fatalf("a long statement: %s, want %s", got, want)
				}
				if _, err := db.Exec(ctx, fmt.Sprintf("SELECT %d", i)+pad, nil); err != nil {
					t.Fatalf("a long exec: %v", err)
				}
				tx, err := db.Begin(ctx, database.TxOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := resultOrError(t, tx, fmt.Sprintf("SELECT %d AS n", i)+pad); got != want {
					t.Fatalf("a long statement first in a transaction: %s, want %s", got, want)
				}
				if got := resultOrError(t, tx, fmt.Sprintf("SELECT $1::int + %d AS n", i)+pad, int64(0)); got != want {
					t.Fatalf("a long statement in a transaction: %s, want %s", got, want)
				}
				if err := tx.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// A migration's statements, long and short, as the host
			// records a migration.
			if err := db.Migrate(ctx, func(m database.Migration) error {
				for _, sql := range []string{"SELECT $1::int AS n", "SELECT $1::int AS n" + pad} {
					if got := resultOrError(t, m, sql, int64(7)); got != `{"columns":["n"],"rows":[[7]]}` {
						return fmt.Errorf("%.40s: %s", sql, got)
					}
				}
				return nil
			}); err != nil {
				t.Fatalf("a migration: %v", err)
			}
			if got := resultOrError(t, db, "SELECT count(*) FILTER (WHERE length(statement) > 4096) AS long, count(*) AS n FROM pg_prepared_statements"); mode == "cache_statement" && got != `{"columns":["long","n"],"rows":[[0,1]]}` ||
				mode == "cache_describe" && got != `{"columns":["long","n"],"rows":[[0,0]]}` {
				t.Errorf("the server's prepared statements: %s, want none long, the short one itself alone (cache_statement)", got)
			}
		})
	}
}

// TestPostgresStatementCacheIsBounded: pgx keeps 512 prepared statements
// a connection, each with its plan in the server, which a statement of 4
// KiB (250 UNION ALL branches) makes 800 KB: a guest's distinct
// statements took one connection's backend to 410 MB, 4 GB for a pool of
// ten. A connection keeps 64, as SQLite's driver does, unless the url
// says otherwise (statement_cache_capacity).
func TestPostgresStatementCacheIsBounded(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	for _, tc := range []struct {
		name, url string
		want      int
	}{
		{"by default", url, 64},
		{"as the url says", url + "&statement_cache_capacity=100", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: tc.url, MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for i := range 150 {
				if got, want := resultOrError(t, db, fmt.Sprintf("SELECT %d AS n", i)), fmt.Sprintf(`{"columns":["n"],"rows":[[%d]]}`, i); got != want {
					t.Fatalf("got %s, want %s", got, want)
				}
			}
			// The count is itself a statement the cache keeps: the
			// one it pushes out is deallocated with the next statement.
			want := fmt.Sprintf(`{"columns":["n"],"rows":[[%d]]}`, tc.want+1)
			if got := resultOrError(t, db, "SELECT count(*) AS n FROM pg_prepared_statements"); got != want {
				t.Errorf("the server's prepared statements: %s, want %s", got, want)
			}
		})
	}
}

// TestPostgresJSONNumbersExact: json and jsonb values come as their JSON
// text, numbers as PostgreSQL wrote them: an integer past 2^53 kept to the
// digit, a number past float64's range (valid JSON, which json keeps)
// read at all. Decoded into float64 they came rounded
// (12345678901234567890 as 12345678901234567000), and the second failed
// the statement as "unavailable", a 503 for every read of that row.
func TestPostgresJSONNumbersExact(t *testing.T) {
	db, _ := openPG(t)
	tests := []struct{ sql, want string }{
		{`SELECT '{"id": 12345678901234567890, "f": 0.1}'::jsonb AS j`, `{"columns":["j"],"rows":[["{\"f\":0.1,\"id\":12345678901234567890}"]]}`},
		{`SELECT '{"a": [1, 2.5e400]}'::json AS j`, `{"columns":["j"],"rows":[["{\"a\":[1,2.5e400]}"]]}`},
		{`SELECT '123456789012345678901234567890'::jsonb AS j, 'x' AS t`, `{"columns":["j","t"],"rows":[["123456789012345678901234567890","x"]]}`},
	}
	for _, tt := range tests {
		b, err := result(t, db, tt.sql)
		if err != nil || b != tt.want {
			t.Errorf("%s:\ngot  %s, %v\nwant %s", tt.sql, b, err, tt.want)
		}
	}
}

// TestPostgresOtherTypesAsText: a value of a type the driver has no
// mapping of its own for comes as its PostgreSQL text (abi/README.md
// §4.5), not as Go's syntax for the struct pgx decodes it into ("{{1 2}
// true}" for a point, "{43200000000 true}" for a time of day).
func TestPostgresOtherTypesAsText(t *testing.T) {
	db, _ := openPG(t)
	got, err := result(t, db, "SELECT '(1,2)'::point AS p, '12:00'::time AS t, B'101' AS b, '1 day 2 hours'::interval AS i, '((0,0),(1,1))'::lseg AS l")
	want := `{"columns":["p","t","b","i","l"],"rows":[["(1,2)","12:00:00.000000","101","1 day 02:00:00","[(0,0),(1,1)]"]]}`
	if err != nil || got != want {
		t.Errorf("got  %s, %v\nwant %s", got, err, want)
	}
	got, err = result(t, db, "SELECT int4range(1, 5) AS a, int8range(NULL, 10, '(]') AS b, 'empty'::numrange AS c, numrange(1.5, NULL) AS d, tstzrange('2026-01-02T03:04:05Z', '2026-01-03T00:00:00Z', '[]') AS e, NULL::int4range AS f")
	want = `{"columns":["a","b","c","d","e","f"],"rows":[["[1,5)","(,11)","empty","[1.5,)","[2026-01-02T03:04:05Z,2026-01-03T00:00:00Z]",null]]}`
	if err != nil || got != want {
		t.Errorf("ranges: got  %s, %v\nwant %s", got, err, want)
	}
	// xml is text, not a blob; json and jsonb arrays keep their numbers
	// exact, as a json or jsonb value does.
	got, err = result(t, db, `SELECT '<a>1</a>'::xml AS x, ARRAY['{"n": 12345678901234567890}'::jsonb, 'null'] AS jb, ARRAY['[1.10, 2e400]'::json] AS j, ARRAY[1.5::numeric, 2] AS n,
		ARRAY['24:00'::time] AS t, ARRAY['infinity'::date, '2026-01-02'] AS d, ARRAY['2026-01-02T03:04:05Z'::timestamptz] AS ts, ARRAY['(1,2)'::point] AS p, ARRAY['\x0001'::bytea] AS b`)
	want = `{"columns":["x","jb","j","n","t","d","ts","p","b"],"rows":[["<a>1</a>","[{\"n\":12345678901234567890},null]","[[1.10,2e400]]","[1.5,2]",` +
		`"[\"24:00:00.000000\"]","[\"infinity\",\"2026-01-02T00:00:00Z\"]","[\"2026-01-02T03:04:05Z\"]","[\"(1,2)\"]","[\"AAE=\"]"]]}`
	if err != nil || got != want {
		t.Errorf("xml and json arrays: got  %s, %v\nwant %s", got, err, want)
	}
}

// TestPostgresTempObjectsEndWithTheStatement: a temporary table lives in
// its session, which the pool hands to the next call: a second CREATE
// TEMP TABLE of the same name failed ("already exists") on that
// connection alone, and a temporary table shadowed the app's table of
// its name (pg_temp comes first in the search path). They end when the
// statement, or the transaction, that made them ends.
func TestPostgresTempObjectsEndWithTheStatement(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	ctx := t.Context()
	exec := func(q database.Querier, sql string) {
		t.Helper()
		if _, err := q.Exec(ctx, sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	count := func() string {
		t.Helper()
		return resultOrError(t, db, "SELECT count(*) AS n FROM users")
	}
	exec(db, "CREATE TABLE users (name text)")
	exec(db, "INSERT INTO users VALUES ('Ada')")
	for range 2 {
		exec(db, "CREATE TEMP TABLE staging (v int)")
	}
	rows, err := db.Query(ctx, "CREATE TEMPORARY TABLE users (x int)", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if got := count(); got != `{"columns":["n"],"rows":[[1]]}` {
		t.Errorf("the app's table after a temporary one of its name: %s", got)
	}
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exec(tx, "CREATE TEMP TABLE staging (v int)")
	exec(tx, "INSERT INTO staging VALUES (1)")
	exec(tx, "INSERT INTO users SELECT 'Staged' FROM staging")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	exec(db, "CREATE TEMP TABLE staging (v int)")
	if got := count(); got != `{"columns":["n"],"rows":[[2]]}` {
		t.Errorf("after the transaction: %s", got)
	}
}

// TestPostgresSessionLockEndsWithTheStatement: a session-level advisory
// lock (pg_advisory_lock, pg_try_advisory_lock...) a guest takes and does
// not release, because its call trapped or passed its deadline first, or
// because its pg_advisory_unlock ran on another connection of the pool,
// was held by the pooled connection for good: every later call waiting
// for it waited until its deadline. It ends with the statement, or the
// transaction, that took it.
func TestPostgresSessionLockEndsWithTheStatement(t *testing.T) {
	db, url := startPG(t, database.Options{MaxConns: 2})
	other, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := t.Context()
	free := func(key int) string {
		t.Helper()
		return resultOrError(t, other, "SELECT pg_try_advisory_lock($1) AS free, pg_advisory_unlock_all() AS u", int64(key))
	}
	// The server frees a closed connection's locks as its backend
	// exits, a moment after the close.
	freed := func(key int) bool {
		return poll.Until(5*time.Second, func() bool { return free(key) == `{"columns":["free","u"],"rows":[[true,""]]}` })
	}
	if _, err := db.Exec(ctx, "SELECT pg_advisory_lock(42)", nil); err != nil {
		t.Fatal(err)
	}
	if !freed(42) {
		t.Errorf("after a statement took the lock: %s, want it free", free(42))
	}
	rows, err := db.Query(ctx, "SELECT id FROM (VALUES (7)) AS jobs(id) WHERE PG_TRY_ADVISORY_LOCK(id)", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if !freed(7) {
		t.Errorf("after a query took the lock: %s, want it free", free(7))
	}
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_lock_shared(9)", nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if !freed(9) {
		t.Errorf("after a transaction took the lock: %s, want it free", free(9))
	}
}

// TestPostgresSessionSettingEndsWithTheStatement: SET is refused, but
// set_config(name, value, false) and a DO block change the session's
// settings as much, for every later call on the pooled connection: a
// statement_timeout of 1 ms, a search_path that hides the app's tables.
// Their connection is closed when their statement or transaction ends; a
// set_config local to its transaction (true), which ends with it, keeps
// the connection.
func TestPostgresSessionSettingEndsWithTheStatement(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	ctx := t.Context()
	one := func(q database.Querier, sql string) string {
		t.Helper()
		return resultOrError(t, q, sql)
	}
	const host = `{"columns":["statement_timeout"],"rows":[["30s"]]}`
	for _, sql := range []string{
		"SELECT set_config('statement_timeout', '1', false)",
		"SELECT length(SET_CONFIG('statement_timeout', '2', 1 = 0))",
		"DO $$BEGIN PERFORM set_config('statement_timeout', '3', false); END$$",
	} {
		one(db, sql)
		if got := one(db, "SHOW statement_timeout"); got != host {
			t.Errorf("after %s: %s, want the host's %s", sql, got, host)
		}
	}
	pid := one(db, "SELECT pg_backend_pid() AS pid")
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := one(tx, "SELECT set_config('app.user', '42', true) AS v"); got != `{"columns":["v"],"rows":[["42"]]}` {
		t.Errorf("a local setting: %s", got)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := one(db, "SELECT pg_backend_pid() AS pid"); got != pid {
		t.Errorf("a transaction that set a setting of its own closed its connection: backend %s, then %s", pid, got)
	}
}

// TestPostgresRowBoundedAsItArrives: with Options.MaxRowBytes, a row the
// server sends larger than it fails the statement with too_large as it
// arrives (never held whole), and the pool serves the next statement.
func TestPostgresRowBoundedAsItArrives(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1, MaxRowBytes: 1 << 20})
	_, err := result(t, db, "SELECT repeat('x', 8 << 20) AS big")
	if database.CodeOf(err) != database.CodeTooLarge || !strings.Contains(err.Error(), "a row of the result is larger than limits.sqlResultBytes (1048576 bytes") {
		t.Errorf("a row of 8 MiB under a bound of 1 MiB: %v; want too_large as the row arrives, naming the limit", err)
	}
	for _, sql := range []string{"SELECT 1", "SELECT repeat('x', 512 << 10)"} {
		if _, err := result(t, db, sql); err != nil {
			t.Errorf("%s after it: %v", sql, err)
		}
	}
}

// TestPostgresTransactionAfterATooLargeRow: a row past MaxRowBytes costs a
// transaction its connection; its next statements and its commit then
// say the transaction ended (transaction), not that the server is down
// (unavailable, which a handler answers 503).
func TestPostgresTransactionAfterATooLargeRow(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1, MaxRowBytes: 1 << 20})
	for _, first := range []bool{true, false} { // the row in BEGIN's batch, or after it
		tx, err := db.Begin(t.Context(), database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !first {
			if _, err := tx.Exec(t.Context(), "SELECT 1", nil); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := tx.Query(t.Context(), "SELECT repeat('x', 8 << 20)", nil)
		if err == nil {
			_, err = database.AppendQueryResult(nil, rows, 1<<20)
		}
		if database.CodeOf(err) != database.CodeTooLarge {
			t.Fatalf("first=%v: the row: %v, want too_large", first, err)
		}
		if _, err := tx.Exec(t.Context(), "SELECT 1", nil); database.CodeOf(err) != database.CodeTransaction {
			t.Errorf("first=%v: the next statement: %v; want transaction", first, err)
		}
		if err := tx.Commit(t.Context()); database.CodeOf(err) != database.CodeTransaction {
			t.Errorf("first=%v: commit: %v; want transaction", first, err)
		}
	}
	if _, err := db.Exec(t.Context(), "SELECT 1", nil); err != nil {
		t.Errorf("the pool after it: %v", err)
	}
}

// TestPostgresMigrationSessionEndsWithIt: what a migration leaves in its
// session (a temporary table of a data migration, a setting it changed
// for itself) ends with it, not on a connection the pool hands to the
// guests next.
func TestPostgresMigrationSessionEndsWithIt(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	ctx := t.Context()
	if err := db.Migrate(ctx, func(m database.Migration) error {
		return m.Script(ctx, "CREATE TABLE users (name text); INSERT INTO users VALUES ('Ada'); CREATE TEMP TABLE users (x int); SELECT set_config('statement_timeout', '1', false);")
	}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ sql, want string }{
		{"SELECT count(*) AS n FROM users", `{"columns":["n"],"rows":[[1]]}`},
		{"SHOW statement_timeout", `{"columns":["statement_timeout"],"rows":[["30s"]]}`},
	} {
		rows, err := db.Query(ctx, tt.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		got, err := database.AppendQueryResult(nil, rows, 1<<20)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s after the migration: %s, %v; want %s", tt.sql, got, err, tt.want)
		}
	}
}

// TestPostgresMigrationOutlastsStatementTimeout: the statement timeout is
// the guests'; a migration that runs longer (an index built on a large
// table) completes, and a second one that waits for the migration lock
// longer than the timeout (a second host starting beside the first) waits
// on and then runs. The lock is found in pg_locks as its doc comment
// says.
func TestPostgresMigrationOutlastsStatementTimeout(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	const timeout = 200 * time.Millisecond
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 4, StatementTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	if _, err := db.Exec(ctx, "SELECT pg_sleep(0.4)", nil); database.CodeOf(err) == "" {
		t.Fatal("a guest's statement outlasted the statement timeout")
	}
	if err := db.Migrate(ctx, func(m database.Migration) error {
		return m.Script(ctx, "SELECT pg_sleep(0.4); CREATE TABLE slow (x int);")
	}); err != nil {
		t.Fatalf("a migration longer than the statement timeout: %v", err)
	}

	holding, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- db.Migrate(ctx, func(m database.Migration) error {
			close(holding)
			<-release
			return m.Script(ctx, "CREATE TABLE first (x int);")
		})
	}()
	<-holding
	second := make(chan error, 1)
	go func() {
		second <- db.Migrate(ctx, func(m database.Migration) error { return m.Script(ctx, "CREATE TABLE second (x int);") })
	}()
	waitedLong := func() bool {
		rows, err := db.Query(ctx, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.classid = 1701733488 AND l.objid = 1869180532 AND l.objsubid = 1
			AND NOT l.granted AND now() - a.query_start > $1::interval`, []any{(2 * timeout).String()})
		if err != nil {
			t.Log(err)
			return false
		}
		defer rows.Close()
		if !rows.Next() {
			return false
		}
		vals, err := rows.Values()
		return err == nil && vals[0] == int64(1)
	}
	if !poll.Until(10*time.Second, waitedLong) {
		select {
		case err := <-second:
			t.Fatalf("the second migration did not wait for the lock: %v", err)
		default:
			t.Fatal("the second migration is not seen waiting for the migration lock in pg_locks")
		}
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the first migration: %v", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("the second migration, after waiting longer than the statement timeout: %v", err)
	}
}

// TestPostgresStatementAfterSchemaChange: a migration that adds a column
// to a table while the host serves (another host's, or `endpoints
// migrate`'s) does not fail the next "SELECT *" of each pooled connection
// whose cached statement read the old columns: it runs again, prepared
// anew; in a transaction, which PostgreSQL aborts, the error is busy and
// says to run it again.
func TestPostgresStatementAfterSchemaChange(t *testing.T) {
	ctx := t.Context()
	db, url := startPG(t, database.Options{MaxConns: 1})
	// The migrations are another host's (or endpoints migrate's): a
	// migration's own connection is closed after it, and the statements
	// that go stale are those the guests' connection prepared.
	other, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	migrate := func(script string) {
		t.Helper()
		if err := other.Migrate(ctx, func(m database.Migration) error { return m.Script(ctx, script) }); err != nil {
			t.Fatal(err)
		}
	}
	query := func(q database.Querier, sql string, args ...any) (string, error) {
		rows, err := q.Query(ctx, sql, args)
		if err != nil {
			return "", err
		}
		b, err := database.AppendQueryResult(nil, rows, 1<<10)
		return string(b), err
	}
	migrate("CREATE TABLE t (a bigint); INSERT INTO t VALUES (1);")
	for _, tt := range []struct{ name, sql, before, after string }{
		{"query", "SELECT * FROM t WHERE a = $1", `{"columns":["a"],"rows":[[1]]}`, `{"columns":["a","bq"],"rows":[[1,null]]}`},
		{"exec returning", "UPDATE t SET a = a WHERE a = $1 RETURNING *", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := func() (string, error) {
				if tt.before == "" {
					r, err := db.Exec(ctx, tt.sql, []any{int64(1)})
					return fmt.Sprint(r.RowsAffected), err
				}
				return query(db, tt.sql, int64(1))
			}
			want := tt.before
			if want == "" {
				want = "1"
			}
			if got, err := run(); err != nil || got != want {
				t.Fatalf("before the migration: %s, %v; want %s", got, err, want)
			}
			migrate("ALTER TABLE t ADD COLUMN b" + tt.name[:1] + " int;")
			if tt.after != "" {
				want = tt.after
			}
			if got, err := run(); err != nil || got != want {
				t.Errorf("after the migration: %s, %v; want %s", got, err, want)
			}
		})
	}

	if _, err := query(db, "SELECT * FROM t"); err != nil {
		t.Fatal(err)
	}
	migrate("ALTER TABLE t ADD COLUMN c int;")
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	_, err = query(tx, "SELECT * FROM t")
	if database.CodeOf(err) != database.CodeBusy || !strings.Contains(err.Error(), "a migration ran") || !strings.Contains(err.Error(), "run the transaction again") {
		t.Errorf("in a transaction: %v; want busy, saying to run the transaction again", err)
	}
}

// TestPostgresPoolExhausted: when every connection of the pool is held
// (maxConns 1, a transaction open), a statement waits for one until a
// little before its call's deadline (database.WaitContext), then fails
// unavailable while the call can still answer (503, as the SQLite
// driver's pool), saying the pool was full and which setting raises it;
// a statement the deadline stops while it runs is not that. Once the
// transaction ends, its connection serves the next statement.
func TestPostgresPoolExhausted(t *testing.T) {
	ctx := t.Context()
	db, _ := startPG(t, database.Options{Name: "reports", MaxConns: 1})
	short := func(d time.Duration) context.Context {
		c, cancel := context.WithTimeout(ctx, d)
		t.Cleanup(cancel)
		return c
	}
	if _, err := db.Exec(short(100*time.Millisecond), "SELECT pg_sleep(2)", nil); database.CodeOf(err) != database.CodeOther || strings.Contains(err.Error(), "pool") {
		t.Errorf("a statement stopped while it runs: %v; want other, not the pool", err)
	}
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "no connection of the pool came free in time: its maxConns (1) were all in use by other statements and transactions; raise databases.reports.maxConns"
	for name, run := range map[string]func(context.Context) error{
		"query": func(c context.Context) error { _, err := db.Query(c, "SELECT 1", nil); return err },
		"exec":  func(c context.Context) error { _, err := db.Exec(c, "SELECT 1", nil); return err },
		"begin": func(c context.Context) error { _, err := db.Begin(c, database.TxOptions{}); return err },
	} {
		call := short(2 * time.Second)
		err := run(call)
		if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with the pool full: %v; want unavailable: %s", name, err, want)
		}
		if call.Err() != nil {
			t.Errorf("%s with the pool full failed only once its call had ended: %v", name, call.Err())
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(short(2*time.Second), "SELECT 1", nil)
	if err != nil {
		t.Fatalf("after the transaction ended: %v", err)
	}
	rows.Close()
	if _, err := db.Exec(short(2*time.Second), "SELECT 1", nil); err != nil {
		t.Fatalf("after the rows were closed: %v", err)
	}
}

// TestPostgresServerSilent: a server that accepts connections and never
// answers (a host that hangs, a proxy whose backend is gone) fails a
// statement unavailable while its call can still answer, rather than at
// the call's deadline.
func TestPostgresServerSilent(t *testing.T) {
	l := postgres.SilentServer(t)
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: "postgres://u:secret@" + l.Addr().String() + "/app?sslmode=disable&connect_timeout=60", MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	call, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err = db.Query(call, "SELECT 1", nil)
	if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), "no connection to the server was made in time") || strings.Contains(err.Error(), "secret") {
		t.Errorf("a statement on a silent server: %v; want unavailable, no connection made in time, no password", err)
	}
	if call.Err() != nil {
		t.Errorf("the statement failed only once its call had ended: %v", call.Err())
	}
}

// TestPostgresServerNotPostgres: a url whose port is another service's
// (an HTTP server answers the startup message with "HTTP/1.1 400", which
// pgx reads as a message of a huge length) fails saying the server does
// not speak PostgreSQL and to check the url's host and port, code other
// (a mistake of the settings, which waiting does not mend). It said
// "a row of the result is larger than limits.sqlResultBytes", and a start
// failed with that.
func TestPostgresServerNotPostgres(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"))
			c.Close()
		}
	}()
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: "postgres://u:secret@" + l.Addr().String() + "/app?sslmode=disable", MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Query(t.Context(), "SELECT 1", nil)
	if code := database.CodeOf(err); code != database.CodeOther {
		t.Errorf("a statement on an HTTP server: code %q (%v); want other", code, err)
	}
	for _, want := range []string{"does not speak PostgreSQL", l.Addr().String(), "check the host and port"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a statement on an HTTP server: %v; want it to say %q", err, want)
		}
	}
	if err != nil && (strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "sqlResultBytes")) {
		t.Errorf("a statement on an HTTP server: %v; want neither the password nor the result bound", err)
	}
}

// TestPostgresRefusedConnectionSaysWhatToFix: a server that refuses the
// url's role or database says which part of the url to correct (code
// other: a start fails with it rather than waiting), not PostgreSQL's
// message alone.
func TestPostgresRefusedConnectionSaysWhatToFix(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	tests := []struct{ name, url, want string }{
		{"no such database", strings.Replace(url, "/postgres?", "/nosuchdb?", 1), "create the database, or correct its name in the database's url"},
		{"no such role", strings.Replace(url, "postgres://postgres@", "postgres://nobody@", 1), "check the user and password of the database's url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: tt.url, MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			_, err = db.Query(t.Context(), "SELECT 1", nil)
			if database.CodeOf(err) != database.CodeOther || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("a statement: %v (code %q); want code other, saying %q", err, database.CodeOf(err), tt.want)
			}
		})
	}
}

// TestPostgresTempObjectsOtherSpellings: the other ways PostgreSQL's
// grammar has of making a temporary table end with their statement too:
// SELECT ... INTO LOCAL TEMP (or GLOBAL), the temporary schema quoted
// ("pg_temp".t) or its name apart from the dot (pg_temp . t), and the
// statements EXPLAIN ANALYZE runs. Each left the table on the pooled
// connection, where the next call's CREATE TEMP TABLE of its name failed
// as already there.
func TestPostgresTempObjectsOtherSpellings(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	ctx := t.Context()
	for _, sql := range []string{
		"SELECT 1 AS v INTO LOCAL TEMP staging",
		"SELECT 1 AS v INTO GLOBAL TEMPORARY TABLE staging",
		`CREATE TABLE "pg_temp".staging (v int)`,
		"CREATE TABLE pg_temp . staging (v int)",
		"EXPLAIN ANALYZE CREATE TEMP TABLE staging AS SELECT 1 AS v",
		"EXPLAIN (ANALYZE) SELECT 1 AS v INTO TEMP staging",
	} {
		t.Run(sql, func(t *testing.T) {
			if _, err := db.Exec(ctx, sql, nil); err != nil {
				t.Fatal(err)
			}
			// This one ends its connection, whatever it finds there.
			if _, err := db.Exec(ctx, "CREATE TEMP TABLE staging (v int)", nil); err != nil {
				t.Errorf("a temporary table of the name after %s: %v", sql, err)
			}
		})
	}
}

// TestPostgresSessionSettingOtherSpellings: a setting changed for the
// session by the function's name quoted, or by an UPDATE of pg_settings
// (which PostgreSQL takes as SET), ends with its statement as
// set_config's does: statement_timeout, the host's bound on every guest's
// statement, stayed changed on the pooled connection.
func TestPostgresSessionSettingOtherSpellings(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	one := func(sql string) string {
		t.Helper()
		return resultOrError(t, db, sql)
	}
	const host = `{"columns":["statement_timeout"],"rows":[["30s"]]}`
	for _, sql := range []string{
		`SELECT "set_config"('statement_timeout', '4', false)`,
		`SELECT pg_catalog."set_config"('statement_timeout', '5', false)`,
		"UPDATE pg_settings SET setting = '6' WHERE name = 'statement_timeout'",
	} {
		one(sql)
		if got := one("SHOW statement_timeout"); got != host {
			t.Errorf("after %s: %s, want the host's %s", sql, got, host)
		}
	}
}

// TestPostgresHeldCursorEndsWithTheStatement: a cursor declared WITH
// HOLD lives in its session past its transaction, on the pooled
// connection, where the next call's cursor of its name failed as already
// there (and the held rows took the server's memory). It ends with the
// statement, or the transaction, that declared it.
func TestPostgresHeldCursorEndsWithTheStatement(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	ctx := t.Context()
	for i := range 2 {
		if _, err := db.Exec(ctx, "DECLARE c CURSOR WITH HOLD FOR SELECT 1", nil); err != nil {
			t.Fatalf("declare %d: %v", i+1, err)
		}
	}
	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "DECLARE c CURSOR WITH HOLD FOR SELECT 1", nil); err != nil {
		t.Fatalf("declare in a transaction: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "DECLARE c CURSOR WITH HOLD FOR SELECT 1", nil); err != nil {
		t.Fatalf("declare after the transaction: %v", err)
	}
}

// TestPostgresServerStatementTimeoutIsTimeout: a statement the server's
// statement_timeout stopped (SQLSTATE 57014) fails with code timeout, as
// one past db_timeout does, whichever set the bound: the host
// (databases.NAME.statementTimeout) or the guest's own transaction
// (set_config(..., true)). The message names the setting. A statement
// stopped at its context's end, or cancelled by another session
// (pg_cancel_backend, 57014 too), stays other: no statement timeout
// stopped it.
func TestPostgresServerStatementTimeoutIsTimeout(t *testing.T) {
	db, url := startPG(t, database.Options{Name: "main", MaxConns: 2, StatementTimeout: 200 * time.Millisecond})
	ctx := t.Context()
	_, err := db.Exec(ctx, "SELECT pg_sleep(10)", nil)
	if database.CodeOf(err) != database.CodeTimeout || !strings.Contains(err.Error(), "databases.main.statementTimeout") {
		t.Errorf("past the host's statement_timeout: %v; want code timeout naming databases.main.statementTimeout", err)
	}
	if e := database.AsError(err); e.SQLState != "57014" {
		t.Errorf("SQLSTATE %q, want 57014", e.SQLState)
	}

	tx, err := db.Begin(ctx, database.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT set_config('statement_timeout', '50', true)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_sleep(10)", nil); database.CodeOf(err) != database.CodeTimeout {
		t.Errorf("past the transaction's own statement_timeout: %v; want code timeout", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := db.Exec(short, "SELECT pg_sleep(10)", nil); database.CodeOf(err) != database.CodeOther {
		t.Errorf("stopped at its context's deadline: %v; want code other (the call's end, not a statement timeout)", err)
	}

	// Another session cancels the statement once it is seen running,
	// on a pool whose statement timeout does not come first.
	db, err = database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 2, StatementTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec(ctx, "SELECT pg_sleep(10) AS cancelled_elsewhere", nil)
		done <- err
	}()
	cancelled := poll.Until(5*time.Second, func() bool {
		got, err := result(t, db, "SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE '%AS cancelled_elsewhere' AND pid <> pg_backend_pid() AND pg_cancel_backend(pid)")
		return err == nil && got == `{"columns":["n"],"rows":[[1]]}`
	})
	if !cancelled {
		t.Fatal("the statement to cancel was not seen running")
	}
	if err := <-done; database.CodeOf(err) != database.CodeOther {
		t.Errorf("cancelled by another session: %v; want code other", err)
	}
}

// TestPostgresDeniedStatementOtherSpellings: a statement PostgreSQL reads
// as SET or BEGIN is refused however it is spelled before its keyword: a
// line comment the server ends at a carriage return, and empty
// statements (";SET ..."), which the server's parser drops, hid the
// keyword from the check, and the SET ran: the host's statement_timeout,
// the bound on every guest's statement, stayed changed on the pooled
// connection (a SET ROLE or search_path as much).
func TestPostgresDeniedStatementOtherSpellings(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	const host = `{"columns":["statement_timeout"],"rows":[["30s"]]}`
	for _, sql := range []string{
		"-- a comment\rSET statement_timeout = 1",
		";SET statement_timeout = 2",
		" ; ;\n SET statement_timeout = 3;",
	} {
		_, err := db.Exec(t.Context(), sql, nil)
		if database.CodeOf(err) != database.CodeDenied || !strings.Contains(err.Error(), "SET is not allowed") {
			t.Errorf("%q: %v, want SET denied", sql, err)
		}
		if got := resultOrError(t, db, "SHOW statement_timeout"); got != host {
			t.Errorf("after %q: %s, want the host's %s", sql, got, host)
		}
	}
}

// TestPostgresSessionStateBehindQuotes: a statement that changes its
// session is found however its strings and names are written: an
// escape string (E'it\'s'), a dollar-quoted string holding a quote, a line
// comment ended by a carriage return, or a name quoted with Unicode
// escapes hid set_config and pg_advisory_lock from the check, and the
// host's statement_timeout stayed changed on the pooled connection, the
// lock held by it for good.
func TestPostgresSessionStateBehindQuotes(t *testing.T) {
	db, url := startPG(t, database.Options{MaxConns: 1})
	other, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	const host = `{"columns":["statement_timeout"],"rows":[["30s"]]}`
	for _, sql := range []string{
		`SELECT E'\'', set_config('statement_timeout', '1', false), 'x'`,
		`SELECT $$'$$, set_config('statement_timeout', '2', false), $$'$$`,
		"SELECT 1 AS a, -- x\r set_config('statement_timeout', '3', false)",
		`SELECT U&"set\005Fconfig"('statement_timeout', '4', false)`,
		`SELECT set_config('statement_timeout', substr(E'\'5', 2), false) AS a, '), true)' AS b`,
		`SELECT set_config('statement_timeout', substr($$'6$$, 2), false) AS a, '), true)' AS b`,
	} {
		if got := resultOrError(t, db, sql); !strings.Contains(got, "ms") {
			t.Fatalf("%q: %s", sql, got)
		}
		if got := resultOrError(t, db, "SHOW statement_timeout"); got != host {
			t.Errorf("after %q: %s, want the host's %s", sql, got, host)
		}
	}
	free := func() bool {
		return resultOrError(t, other, "SELECT pg_try_advisory_lock(77) AS free, pg_advisory_unlock_all() AS u") == `{"columns":["free","u"],"rows":[[true,""]]}`
	}
	for _, sql := range []string{
		`SELECT E'\'', pg_advisory_lock(77), 'x'`,
		`SELECT $t$'$t$, pg_advisory_lock(77), $t$'$t$`,
	} {
		if _, err := db.Exec(t.Context(), sql, nil); err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		// The server frees a closed connection's locks as its backend
		// exits, a moment after the close.
		if !poll.Until(5*time.Second, free) {
			t.Errorf("after %q: the lock is held, want it free", sql)
		}
	}
}

// TestPostgresRandomSeedEndsWithTheStatement: setseed fixes the numbers
// random() gives for the rest of its session: on the pooled connection,
// every later call's random() repeated the sequence the guest chose.
func TestPostgresRandomSeedEndsWithTheStatement(t *testing.T) {
	db, _ := startPG(t, database.Options{MaxConns: 1})
	one := func(sql string) string {
		t.Helper()
		return resultOrError(t, db, sql)
	}
	one("SELECT setseed(0.5)")
	first := one("SELECT random() AS r")
	one("SELECT setseed(0.5)")
	if again := one("SELECT random() AS r"); again == first {
		t.Errorf("random() after setseed in another statement gave %s twice: the seed outlived its statement", again)
	}
}

// TestPostgresSessionStateInSQLText: built-in functions that run a query
// given as text (query_to_xml and its kin, ts_stat, ts_rewrite) ran
// set_config or pg_advisory_lock written in a string, which the check
// reads as a string and passes over: the host's statement_timeout stayed
// changed on the pooled connection, the lock held by it for good. So did
// a connection dblink_connect keeps in the session, which the next call
// on the pooled connection could use.
func TestPostgresSessionStateInSQLText(t *testing.T) {
	db, url := startPG(t, database.Options{MaxConns: 1})
	other, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	const host = `{"columns":["statement_timeout"],"rows":[["30s"]]}`
	for _, sql := range []string{
		`SELECT query_to_xml('SELECT set_config(''statement_timeout'', ''1'', false)', true, false, '') IS NOT NULL AS x`,
		`SELECT query_to_xml_and_xmlschema('SELECT set_config(''statement_timeout'', ''3'', false)', true, false, '') IS NOT NULL AS x`,
		`SELECT count(*) AS n FROM ts_stat('SELECT to_tsvector(set_config(''statement_timeout'', ''4'', false))')`,
		`SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, set_config(''statement_timeout'', ''5'', false)::tsquery') IS NOT NULL AS x`,
		`SELECT "query_to_xml"('SELECT set_config(''statement_timeout'', ''6'', false)', true, false, '') IS NOT NULL AS x`,
	} {
		if got := resultOrError(t, db, sql); strings.Contains(got, "rror") {
			t.Fatalf("%q: %s", sql, got)
		}
		if got := resultOrError(t, db, "SHOW statement_timeout"); got != host {
			t.Errorf("after %q: %s, want the host's %s", sql, got, host)
		}
	}
	free := func() bool {
		return resultOrError(t, other, "SELECT pg_try_advisory_lock(78) AS free, pg_advisory_unlock_all() AS u") == `{"columns":["free","u"],"rows":[[true,""]]}`
	}
	sql := `SELECT query_to_xml('SELECT pg_advisory_lock(78)', true, false, '') IS NOT NULL AS x`
	if _, err := db.Exec(t.Context(), sql, nil); err != nil {
		t.Fatalf("%q: %v", sql, err)
	}
	// The server frees a closed connection's locks as its backend exits,
	// a moment after the close.
	if !poll.Until(5*time.Second, free) {
		t.Errorf("after %q: the lock is held, want it free", sql)
	}
	if _, err := other.Exec(t.Context(), "CREATE EXTENSION dblink", nil); err != nil {
		t.Skipf("no dblink extension: %v", err)
	}
	sql = fmt.Sprintf(`SELECT dblink_connect('kept', %s) AS c`, pgQuote(url))
	if got := resultOrError(t, db, sql); !strings.Contains(got, "OK") {
		t.Fatalf("%q: %s", sql, got)
	}
	if got := resultOrError(t, db, "SELECT dblink_get_connections() AS c"); got != `{"columns":["c"],"rows":[[null]]}` {
		t.Errorf("after dblink_connect: %s, want no connection kept", got)
	}
}

// pgQuote is s as a PostgreSQL string literal.
func pgQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
