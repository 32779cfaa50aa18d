package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
)

// ignoreTimeout is the PgBouncer setting README.md ("Data") asks for.
const ignoreTimeout = "ignore_startup_parameters = statement_timeout"

// TestPostgresBehindPgBouncer runs migrations, statements and
// transactions, several at a time, through PgBouncer in each pool mode
// with the settings a deployment may have, and checks that they work, or
// fail saying what to set rather than as a server that is down.
func TestPostgresBehindPgBouncer(t *testing.T) {
	pg, _, _ := databasetest.StartPostgres(t)
	admin, err := database.Open(t.Context(), database.DriverPostgres, database.Options{Name: "admin", URL: pg, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var n atomic.Int32
	for _, c := range []struct {
		name, mode, urlTail string
		extra               []string
		// wantErr is a part of every error's message; "" wants none.
		wantErr string
	}{
		{name: "the pooler's defaults refuse statement_timeout", mode: "transaction", wantErr: "sends statement_timeout (databases.main.statementTimeout) with each connection; add statement_timeout to the pooler's ignore_startup_parameters"},
		{name: "session mode", mode: "session", extra: []string{ignoreTimeout}},
		{name: "transaction mode, prepared statements", mode: "transaction", extra: []string{ignoreTimeout}, wantErr: "add default_query_exec_mode=exec to the database's url"},
		{name: "transaction mode, exec", mode: "transaction", urlTail: "&default_query_exec_mode=exec", extra: []string{ignoreTimeout}},
		{name: "transaction mode, cache_describe", mode: "transaction", urlTail: "&default_query_exec_mode=cache_describe", extra: []string{ignoreTimeout}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A database of the case's own on the one server.
			name := fmt.Sprintf("bouncer%d", n.Add(1))
			if _, err := admin.Exec(t.Context(), "CREATE DATABASE "+name, nil); err != nil {
				t.Fatal(err)
			}
			url := strings.Replace(databasetest.StartPgBouncer(t, pg, c.mode, c.extra...), "/postgres?", "/"+name+"?", 1)
			db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{Name: "main", URL: url + c.urlTail, MaxConns: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var mu sync.Mutex
			var errs []error
			note := func(err error) {
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
			note(db.Migrate(t.Context(), func(m database.Migration) error {
				return m.Script(t.Context(), `CREATE TABLE t (id int PRIMARY KEY, v text)`)
			}))
			var wg sync.WaitGroup
			const workers, rounds = 6, 20
			for g := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range rounds {
						sqls := []string{"SELECT $1::int AS n", "SELECT $1::int + 1 AS n", "SELECT count(*) + $1 AS n FROM t"}
						_, err := result(t, db, sqls[(g+i)%len(sqls)], i)
						note(err)
						tx, err := db.Begin(t.Context(), database.TxOptions{})
						if err != nil {
							note(err)
							continue
						}
						if _, err := tx.Exec(t.Context(), "INSERT INTO t VALUES ($1, $2)", []any{g*rounds + i, "x"}); err != nil {
							note(err)
							tx.Rollback(t.Context())
							continue
						}
						note(tx.Commit(t.Context()))
					}
				}()
			}
			wg.Wait()
			if c.wantErr == "" {
				for _, err := range errs {
					t.Errorf("error: %v", err)
				}
				if got, want := resultOrError(t, db, "SELECT count(*) AS n FROM t"), fmt.Sprintf(`{"columns":["n"],"rows":[[%d]]}`, workers*rounds); got != want {
					t.Errorf("rows written: %s, want %s", got, want)
				}
				// The call's deadline stops a statement through the
				// pooler (its cancel request passed on: the one bound
				// left when the pooler ignores statement_timeout), and
				// the pooler serves on (PgBouncer before 1.20.1 exited
				// on a cancel request its client closed first).
				short, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
				defer cancel()
				rows, err := db.Query(short, "SELECT pg_sleep(30)", nil)
				if err == nil {
					_, err = database.AppendQueryResult(nil, rows, 1<<20)
				}
				if err == nil {
					t.Error("a statement past the call's deadline did not fail")
				}
				for i := range 3 {
					if got, want := resultOrError(t, db, "SELECT $1::int AS n", i), fmt.Sprintf(`{"columns":["n"],"rows":[[%d]]}`, i); got != want {
						t.Errorf("a statement after: %s, want %s", got, want)
					}
				}
				return
			}
			if len(errs) == 0 {
				t.Fatalf("no error; want errors saying %q", c.wantErr)
			}
			seen := map[string]bool{}
			for _, err := range errs {
				var e *database.Error
				switch {
				case !errors.As(err, &e):
					t.Errorf("error %v is no *database.Error", err)
				case e.Code == database.CodeTransaction, strings.Contains(e.Message, "current transaction is aborted"):
					// What follows a failed statement of a transaction.
				case e.Code != database.CodeOther || !strings.Contains(e.Message, c.wantErr):
					if !seen[err.Error()] {
						t.Errorf("error %v; want code other saying %q", err, c.wantErr)
					}
					seen[err.Error()] = true
				}
			}
		})
	}
}

// TestPostgresSimpleProtocolRefused: the simple protocol would run
// several statements in one and interpolate the parameters.
func TestPostgresSimpleProtocolRefused(t *testing.T) {
	_, err := database.Open(t.Context(), database.DriverPostgres, database.Options{Name: "main", URL: "postgres://app@127.0.0.1:1/app?default_query_exec_mode=simple_protocol", MaxConns: 1})
	if err == nil || !strings.Contains(err.Error(), "use default_query_exec_mode=exec instead") {
		t.Fatalf("open: %v; want the url refused, saying to use exec", err)
	}
}

// TestPostgresExecModeParameterCount: in exec mode the server counts the
// parameters (pgx does not describe the statement first), and its
// refusal, a protocol violation (08P01), is the statement's mistake, not
// the server gone.
func TestPostgresExecModeParameterCount(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{Name: "main", URL: url + "&default_query_exec_mode=exec", MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = result(t, db, "SELECT $1::int AS n", 1, 2)
	if code := database.CodeOf(err); code != database.CodeSyntax || !strings.Contains(err.Error(), "the parameters do not match the statement's") {
		t.Fatalf("two parameters for one: %v (code %s); want code syntax", err, code)
	}
	if got, want := resultOrError(t, db, "SELECT $1::int AS n", 7), `{"columns":["n"],"rows":[[7]]}`; got != want {
		t.Fatalf("the statement after: %s, want %s", got, want)
	}
}

// TestPostgresExecModeResults: default_query_exec_mode=exec, which
// README.md ("Data") gives for a pooler in transaction mode, reads the
// common types as the default mode does; a composite is PostgreSQL's
// text of it there, where the default mode gives its JSON.
func TestPostgresExecModeResults(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	open := func(url string) database.DB {
		db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{Name: "main", URL: url, MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	cached, exec := open(url), open(url+"&default_query_exec_mode=exec")
	for _, q := range []string{
		`SELECT 1::int2 a, 2::int4 b, 3::int8 c, 1.5::float4 d, 2.25::float8 e, 12.50::numeric f, true g, 'x'::text h, '\x0001'::bytea i, NULL::int j`,
		`SELECT '2026-01-02T03:04:05Z'::timestamptz a, '2026-01-02 03:04:05'::timestamp b, '2026-01-02'::date c, '03:04:05'::time d, '1 day 2 hours'::interval e, 'infinity'::timestamptz f`,
		`SELECT '{"a": 1.10}'::jsonb a, '{"a": 1.10}'::json b, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid c, ARRAY[1,2] d, ARRAY['a','b'] e, ARRAY[[1,2],[3,4]] f, ARRAY[true,null] g, '{}'::int[] h`,
		`SELECT '10.0.0.1'::inet a, '<a/>'::xml b, 'NaN'::float8 c, 'Infinity'::numeric d, 123456789012345678901234567890::numeric e, 'a'::char(3) f, 'c'::name g, '$1.50'::money h, B'101' i`,
	} {
		if x, y := resultOrError(t, cached, q), resultOrError(t, exec, q); x != y {
			t.Errorf("%s\n cache_statement: %s\n exec:            %s", q, x, y)
		}
	}
	if got, want := resultOrError(t, exec, "SELECT ROW(1, 'x') AS r"), `{"columns":["r"],"rows":[["(1,x)"]]}`; got != want {
		t.Errorf("a composite in exec mode: %s, want %s", got, want)
	}
}
