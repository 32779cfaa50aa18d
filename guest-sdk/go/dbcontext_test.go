package endpoints_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/endpointstest"
)

// endlessQuery would run for hours on SQLite: a recursive CTE counting to
// a trillion.
const endlessQuery = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000000) SELECT count(*) FROM c"

// TestContextBoundsAStatement: a context's deadline stops a statement in
// the database (a *DBError of code timeout, found as
// context.DeadlineExceeded and ErrStatementTimeout), and the statements
// after it run without a bound; a context already done fails at once
// with its error, running nothing.
var boundInMessage = regexp.MustCompile(`its timeout of (\d+)ms`)

func TestContextBoundsAStatement(t *testing.T) {
	db := setupDB(t)
	expired := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	stopped := func(t *testing.T, err error) {
		t.Helper()
		var de *endpoints.DBError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, endpoints.ErrStatementTimeout) || !errors.As(err, &de) {
			t.Fatalf("got %v, want a statement timeout found as context.DeadlineExceeded", err)
		}
		// The bound is what was left of the context's 100 ms when the
		// statement started: a loaded machine may have used some of it.
		m := boundInMessage.FindStringSubmatch(de.Message)
		if m == nil {
			t.Fatalf("message %q names no timeout of N ms", de.Message)
		}
		if ms, _ := strconv.Atoi(m[1]); ms < 1 || ms > 100 {
			t.Errorf("message %q: the statement's bound is %d ms, want what was left of the context's 100 ms", de.Message, ms)
		}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	t.Run("QueryContext", func(t *testing.T) {
		_, err := db.QueryContext(expired(), endlessQuery)
		stopped(t, err)
	})
	t.Run("QueryRowContext", func(t *testing.T) {
		var n int64
		stopped(t, db.QueryRowContext(expired(), endlessQuery).Scan(&n))
	})
	t.Run("ExecContext", func(t *testing.T) {
		_, err := db.ExecContext(expired(), "INSERT INTO users (name) "+strings.Replace(endlessQuery, "count(*)", "'x'", 1))
		stopped(t, err)
	})
	t.Run("in a transaction", func(t *testing.T) {
		err := db.TxContext(context.Background(), func(tx *endpoints.Tx) error {
			_, err := tx.QueryContext(expired(), endlessQuery)
			return err
		})
		stopped(t, err)
	})
	t.Run("a statement after one has no bound", func(t *testing.T) {
		if _, err := db.QueryContext(expired(), endlessQuery); err == nil {
			t.Fatal("the endless query ended")
		}
		// Without the bound lifted, this one would fail at 100 ms too;
		// it runs a million rows instead.
		var n int64
		err := db.QueryRow("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000) SELECT count(*) FROM c").Scan(&n)
		if err != nil || n != 1000000 {
			t.Errorf("got %d, %v; want 1000000", n, err)
		}
	})
	t.Run("a done context runs nothing", func(t *testing.T) {
		var n int64
		if _, err := db.QueryContext(canceled, "SELECT 1"); err != context.Canceled {
			t.Errorf("QueryContext: %v, want context.Canceled", err)
		}
		if err := db.QueryRowContext(canceled, "SELECT 1").Scan(&n); err != context.Canceled {
			t.Errorf("QueryRowContext: %v, want context.Canceled", err)
		}
		if _, err := db.ExecContext(canceled, "INSERT INTO users (name) VALUES ('never')"); err != context.Canceled {
			t.Errorf("ExecContext: %v, want context.Canceled", err)
		}
		ran := false
		if err := db.TxContext(canceled, func(*endpoints.Tx) error { ran = true; return nil }); err != context.Canceled || ran {
			t.Errorf("TxContext: %v, ran %v; want context.Canceled without running", err, ran)
		}
		if err := db.QueryRow("SELECT count(*) FROM users WHERE name = 'never'").Scan(&n); err != nil || n != 0 {
			t.Errorf("the insert of a done context ran: %d, %v", n, err)
		}
	})
	t.Run("a context without a deadline bounds nothing", func(t *testing.T) {
		var n int64
		if err := db.QueryRowContext(context.Background(), "SELECT 7").Scan(&n); err != nil || n != 7 {
			t.Errorf("got %d, %v; want 7", n, err)
		}
	})
}

// ExampleDatabase_QueryContext bounds a slow report by its own 100 ms,
// within the request's deadline, and answers from a fallback when the
// database stops it.
func ExampleDatabase_QueryContext() {
	defer exampleDatabase()() // natively, an SQLite file; in a module, the host's database
	db := endpoints.DB("main")

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var total int64
	err := db.QueryRowContext(ctx, endlessQuery).Scan(&total)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Println("the report took too long: answering from the cache")
	case err != nil:
		fmt.Println("failed:", err)
	default:
		fmt.Println("total:", total)
	}
	// Output: the report took too long: answering from the cache
}

// exampleDatabase gives endpoints.DB an empty "main" for an example, as
// endpointstest.Database does for a test, and returns what removes it.
func exampleDatabase() (cleanup func()) {
	tb := &exampleTB{}
	endpointstest.Database(tb, "")
	return func() {
		for i := len(tb.cleanups) - 1; i >= 0; i-- {
			tb.cleanups[i]()
		}
	}
}

// exampleTB is the part of testing.TB endpointstest.Database uses, for an
// example, which has no *testing.T.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (tb *exampleTB) Helper()                      {}
func (tb *exampleTB) Cleanup(f func())             { tb.cleanups = append(tb.cleanups, f) }
func (tb *exampleTB) Fatalf(f string, args ...any) { panic(fmt.Sprintf(f, args...)) }

func (tb *exampleTB) TempDir() string {
	dir, err := os.MkdirTemp("", "endpoints-example-")
	if err != nil {
		panic(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
