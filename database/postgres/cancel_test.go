package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// backendPID is the pid of the backend that runs q's statements now (a
// pool of one: its only connection's).
func backendPID(t *testing.T, q database.Querier) int64 {
	t.Helper()
	return scalar(t, q, "SELECT pg_backend_pid()")
}

// scalar runs sql, which selects one integer, on q with the test's
// context.
func scalar(t *testing.T, q database.Querier, sql string, args ...any) int64 {
	t.Helper()
	r, err := q.Query(t.Context(), sql, args)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatalf("%s: no row: %v", sql, r.Err())
	}
	v, err := r.Values()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	n, ok := v[0].(int64)
	if !ok {
		t.Fatalf("%s: %T %v, want an integer", sql, v[0], v[0])
	}
	return n
}

// pause sets settlePause for the test.
func pause(t *testing.T, d time.Duration) {
	old := settlePause
	settlePause = d
	t.Cleanup(func() { settlePause = old })
}

// returns runs fn and fails the test when it does not return within 20
// seconds: fn waited out a settlePause of minutes it should not have.
func returns(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not return: it waited for the cancel request to settle (settlePause)", what)
	}
}

// cancelSent cancels ctx (cancel) and waits until the cancel request of
// the statement whose rows r are is out.
func cancelSent(t *testing.T, r database.Rows, cancel context.CancelFunc) {
	t.Helper()
	rs := r.(*rows)
	conn := rs.r.Conn().PgConn()
	h := handlerOf(conn)
	if h == nil {
		t.Fatal("the connection has no cancelHandler")
	}
	cancel()
	if !poll.Until(10*time.Second, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.cancelling
	}) {
		t.Fatal("the context's end sent no cancel request")
	}
}

func TestCancel(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1, StatementTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	// A statement the cancel request stopped (57014) answers as soon as
	// the request is done: it does not wait for it to settle, which pgx
	// does (100 ms late at every deadline), and its connection is pooled.
	t.Run("a stopped statement answers at once", func(t *testing.T) {
		// Long, so that a wait for it shows; short enough that the
		// pool, whose connection such a wait holds, serves again in a
		// while, and the test ends.
		pause(t, 2*time.Minute)
		for _, c := range []struct {
			name string
			run  func(ctx context.Context) error
		}{
			{name: "exec", run: func(ctx context.Context) error {
				_, err := db.Exec(ctx, "SELECT pg_sleep(30)", nil)
				return err
			}},
			{name: "query", run: func(ctx context.Context) error {
				r, err := db.Query(ctx, "SELECT pg_sleep(30)", nil)
				if err != nil {
					return err
				}
				for r.Next() {
				}
				return r.Close()
			}},
			{name: "a transaction's statement", run: func(ctx context.Context) error {
				tx, err := db.Begin(t.Context(), database.TxOptions{})
				if err != nil {
					return err
				}
				defer tx.Rollback(t.Context())
				if _, err := tx.Exec(t.Context(), "SELECT 1", nil); err != nil {
					return err
				}
				_, err = tx.Exec(ctx, "SELECT pg_sleep(30)", nil)
				return err
			}},
		} {
			ok := t.Run(c.name, func(t *testing.T) {
				pid, waits := backendPID(t, db), settleWaits.Load()
				ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
				defer cancel()
				var err error
				returns(t, "a statement stopped at its deadline", func() { err = c.run(ctx) })
				if err == nil {
					t.Fatal("pg_sleep(30) past its deadline returned no error")
				}
				if got := backendPID(t, db); got != pid {
					t.Errorf("the connection was replaced (backend %d, then %d); want it pooled", pid, got)
				}
				if n := settleWaits.Load() - waits; n != 0 {
					t.Errorf("%d waits for a cancel request to settle; want none", n)
				}
			})
			if !ok {
				break
			}
		}
	})

	// A cancel request that stopped nothing (the server had sent the whole
	// result and was idle) may still reach the backend: its connection is
	// closed rather than pooled, and that costs the caller no wait.
	t.Run("a connection the cancel may still reach is closed", func(t *testing.T) {
		pause(t, time.Hour)
		pid, waits := backendPID(t, db), settleWaits.Load()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		r, err := db.Query(ctx, "SELECT 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		cancelSent(t, r, cancel)
		returns(t, "closing the rows", func() { r.Close() })
		if got := backendPID(t, db); got == pid {
			t.Errorf("the connection (backend %d) was pooled; want it closed", pid)
		}
		if n := settleWaits.Load() - waits; n != 0 {
			t.Errorf("%d waits for a cancel request to settle; want none", n)
		}
	})

	// In a transaction the connection cannot change: its next statement
	// waits for the request to settle, then runs, as does its commit.
	t.Run("a transaction's next statement waits for the request", func(t *testing.T) {
		pause(t, 20*time.Millisecond)
		pid, waits := backendPID(t, db), settleWaits.Load()
		tx, err := db.Begin(t.Context(), database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(t.Context())
		if got := backendPID(t, tx); got != pid {
			t.Fatalf("the transaction runs on backend %d, want %d", got, pid)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		r, err := tx.Query(ctx, "SELECT 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		cancelSent(t, r, cancel)
		r.Close()
		if got := scalar(t, tx, "SELECT 2"); got != 2 {
			t.Errorf("the next statement gave %d, want 2", got)
		}
		if n := settleWaits.Load() - waits; n != 1 {
			t.Errorf("%d waits for the cancel request to settle; want 1", n)
		}
		if err := tx.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := backendPID(t, db); got != pid {
			t.Errorf("the connection was replaced (backend %d, then %d); want it pooled once settled", pid, got)
		}
	})

	// Statements stopped at deadlines that fall before, within and after
	// their end, each followed at once by another on the same connection
	// (a pool of one; in a transaction, on the transaction's), which no
	// stray cancel request may stop.
	t.Run("the next statement is never stopped", func(t *testing.T) {
		const rounds = 300
		stopped := 0
		for i := range rounds {
			ctx, cancel := context.WithTimeout(t.Context(), time.Duration(1+i%8)*time.Millisecond)
			var q database.Querier = db
			var tx database.Tx
			if i%2 == 1 {
				var err error
				if tx, err = db.Begin(t.Context(), database.TxOptions{}); err != nil {
					t.Fatal(err)
				}
				scalar(t, tx, "SELECT 1")
				q = tx
			}
			_, err := q.Exec(ctx, "SELECT pg_sleep(0.004)", nil)
			cancel()
			if err != nil {
				stopped++
				if tx != nil {
					// PostgreSQL aborted the transaction.
					tx.Rollback(t.Context())
					q = db
				}
			}
			if got := scalar(t, q, "SELECT $1::int", i); got != int64(i) {
				t.Fatalf("round %d: the statement after gave %d", i, got)
			}
			if q == tx {
				if err := tx.Commit(t.Context()); err != nil {
					t.Fatalf("round %d: commit: %v", i, err)
				}
			}
		}
		if stopped == 0 || stopped == rounds {
			t.Errorf("%d of %d statements stopped; want some stopped and some not, so that the deadlines fell on both sides of their end", stopped, rounds)
		}
	})
}

// TestNoteError checks which errors say that a cancel request acted, and
// which close the connection.
func TestNoteError(t *testing.T) {
	for _, c := range []struct {
		name, code, message, severity string
		cancelling, stopped, keep     bool
	}{
		{name: "the cancel request's", code: "57014", message: "canceling statement due to user request", severity: "ERROR", cancelling: true, stopped: true, keep: true},
		{name: "before any request", code: "57014", message: "canceling statement due to user request", severity: "ERROR", keep: true},
		{name: "statement_timeout's", code: "57014", message: "canceling statement due to statement timeout", severity: "ERROR", cancelling: true, keep: true},
		{name: "another error", code: "22012", message: "division by zero", severity: "ERROR", cancelling: true, keep: true},
		{name: "fatal", code: "57P01", message: "terminating connection due to administrator command", severity: "FATAL", cancelling: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pe := &pgconn.PgError{Severity: c.severity, Code: c.code, Message: c.message}
			h := &cancelHandler{cancelling: c.cancelling}
			h.note(pe)
			if h.stopped != c.stopped {
				t.Errorf("stopped %v, want %v", h.stopped, c.stopped)
			}
			if keep := noteError(&pgconn.PgConn{}, pe); keep != c.keep {
				t.Errorf("noteError kept the connection: %v, want %v", keep, c.keep)
			}
		})
	}
}
