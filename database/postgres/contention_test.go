package postgres_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// asRole is url, a URL StartPostgres returned, with the user role.
func asRole(url, role string) string {
	return strings.Replace(url, "postgres://postgres@", "postgres://"+role+"@", 1)
}

// wantError checks err's code, kind and that its message holds part.
func wantError(t *testing.T, what string, err error, code database.Code, kind database.Kind, part string) {
	t.Helper()
	var e *database.Error
	if !errors.As(err, &e) || e.Code != code || e.Kind != kind || !strings.Contains(e.Message, part) {
		t.Errorf("%s: %v; want code %s (kind %q) saying %q", what, err, code, kind, part)
	}
}

// TestPostgresContention checks what a guest gets when a production
// server's settings and its other clients stop a statement: the conflicts
// a retry may resolve are busy (503 with Retry-After), a unique violation
// is a constraint of kind unique (the handler's 409), a server that takes
// no writes is unavailable, and a transaction the server ended says why.
func TestPostgresContention(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	ctx := t.Context()
	admin, err := database.Open(ctx, database.DriverPostgres, database.Options{Name: "main", URL: url, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.Migrate(ctx, func(m database.Migration) error {
		return m.Script(ctx, `CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0), (2, 0);
		ALTER DATABASE postgres SET deadlock_timeout = '100ms';
		CREATE ROLE readonly LOGIN; GRANT ALL ON t TO readonly; ALTER ROLE readonly SET default_transaction_read_only = on;
		CREATE ROLE strict LOGIN; GRANT ALL ON t TO strict; ALTER ROLE strict SET default_transaction_isolation = 'serializable';
		ALTER ROLE strict SET idle_in_transaction_session_timeout = '200ms'; ALTER ROLE strict SET lock_timeout = '100ms'`)
	}); err != nil {
		t.Fatal(err)
	}
	open := func(url string) database.DB {
		db, err := database.Open(ctx, database.DriverPostgres, database.Options{Name: "main", URL: url, MaxConns: 4, StatementTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db, strict, readonly := open(url), open(asRole(url, "strict")), open(asRole(url, "readonly"))
	begin := func(db database.DB) database.Tx {
		t.Helper()
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	exec := func(q database.Querier, sql string) error {
		_, err := q.Exec(ctx, sql, nil)
		return err
	}

	t.Run("deadlock", func(t *testing.T) {
		a, b := begin(db), begin(db)
		if err := errors.Join(exec(a, "UPDATE t SET v = 1 WHERE id = 1"), exec(b, "UPDATE t SET v = 1 WHERE id = 2")); err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 2)
		for _, c := range []struct {
			tx  database.Tx
			sql string
		}{{a, "UPDATE t SET v = 2 WHERE id = 2"}, {b, "UPDATE t SET v = 2 WHERE id = 1"}} {
			go func() {
				err := exec(c.tx, c.sql)
				c.tx.Rollback(ctx) // lets the other go on
				errs <- err
			}()
		}
		err := errors.Join(<-errs, <-errs)
		wantError(t, "one of the two", err, database.CodeBusy, "", "deadlock detected")
	})
	t.Run("row locked, NOWAIT", func(t *testing.T) {
		a := begin(db)
		defer a.Rollback(ctx)
		if err := exec(a, "UPDATE t SET v = 1 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		_, err := result(t, db, "SELECT v FROM t WHERE id = 1 FOR UPDATE NOWAIT")
		wantError(t, "NOWAIT", err, database.CodeBusy, "", "could not obtain lock")
	})
	t.Run("lock_timeout", func(t *testing.T) {
		a := begin(db)
		defer a.Rollback(ctx)
		if err := exec(a, "UPDATE t SET v = 1 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		wantError(t, "the update", exec(strict, "UPDATE t SET v = 5 WHERE id = 1"), database.CodeBusy, "", "lock timeout")
	})
	t.Run("serialization failure at commit", func(t *testing.T) {
		a, b := begin(strict), begin(strict)
		for _, s := range []struct {
			tx  database.Tx
			sql string
		}{{a, "SELECT sum(v) FROM t"}, {b, "SELECT sum(v) FROM t"}, {a, "UPDATE t SET v = v + 1 WHERE id = 1"}, {b, "UPDATE t SET v = v + 1 WHERE id = 2"}} {
			if err := exec(s.tx, s.sql); err != nil {
				t.Fatalf("%s: %v", s.sql, err)
			}
		}
		if err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		wantError(t, "the second commit", b.Commit(ctx), database.CodeBusy, "", "could not serialize")
	})
	t.Run("statement_timeout", func(t *testing.T) {
		// The message names the setting of this database: its name, not
		// a placeholder.
		quick, err := database.Open(ctx, database.DriverPostgres, database.Options{Name: "reports", URL: url, MaxConns: 1, StatementTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer quick.Close()
		_, err = result(t, quick, "SELECT pg_sleep(10)")
		wantError(t, "a long statement", err, database.CodeTimeout, "", "ran past the server's statement_timeout (databases.reports.statementTimeout,")
		in := begin(quick)
		defer in.Rollback(ctx)
		if err := exec(in, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		_, err = result(t, in, "SELECT pg_sleep(10)")
		wantError(t, "a long statement in a transaction", err, database.CodeTimeout, "", "ran past the server's statement_timeout (databases.reports.statementTimeout,")
	})
	t.Run("unique violation", func(t *testing.T) {
		wantError(t, "the insert", exec(db, "INSERT INTO t VALUES (1, 1)"), database.CodeConstraint, database.KindUnique, "duplicate key")
	})
	t.Run("read-only server", func(t *testing.T) {
		if got, want := resultOrError(t, readonly, "SELECT v FROM t WHERE id = 2"), `{"columns":["v"],"rows":[[0]]}`; got != want {
			t.Errorf("a read: %s, want %s", got, want)
		}
		wantError(t, "a write", exec(readonly, "UPDATE t SET v = 3"), database.CodeUnavailable, "", "target_session_attrs=read-write")
	})
	t.Run("idle in transaction", func(t *testing.T) {
		a := begin(strict)
		defer a.Rollback(ctx)
		rows, err := result(t, a, "SELECT pg_backend_pid() AS pid")
		if err != nil {
			t.Fatal(err)
		}
		pid := strings.TrimSuffix(strings.TrimPrefix(rows, `{"columns":["pid"],"rows":[[`), "]]}")
		// The server ends the transaction's session once it waited past
		// the role's idle_in_transaction_session_timeout.
		if !poll.Until(10*time.Second, func() bool {
			return resultOrError(t, admin, "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1", pid) == `{"columns":["n"],"rows":[[0]]}`
		}) {
			t.Fatalf("the session of pid %s was not ended", pid)
		}
		wantError(t, "the next statement", exec(a, "UPDATE t SET v = 1 WHERE id = 2"), database.CodeOther, "", "idle_in_transaction_session_timeout ended the transaction")
		if got, want := resultOrError(t, strict, "SELECT v FROM t WHERE id = 2"), `{"columns":["v"],"rows":[[0]]}`; got != want {
			t.Errorf("a statement after: %s, want %s", got, want)
		}
	})
}
