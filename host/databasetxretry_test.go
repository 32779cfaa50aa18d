package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// TestDatabaseTxRetries drives the Go SDK's Database.TxWith through the
// host on a real PostgreSQL: two requests at once increment a counter
// with a read-modify-write in a SERIALIZABLE transaction, both having read
// the same value (the guest of guest-sdk/go/testdata/txretry waits, after
// its read, for an advisory lock the test holds until both wait for it).
// PostgreSQL cannot serialize the second writer: without retries it
// answers 503 and the count goes up by one; with TxOptions.Retries it
// runs again on the value the first committed, both answer 200, and the
// count is exact.
func TestDatabaseTxRetries(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a Go guest; skipped in -short mode")
	}
	wasm := filepath.Join(t.TempDir(), "counter.get.wasm")
	if err := guestbuild.Go(context.Background(), "../guest-sdk/go/testdata/txretry", wasm); err != nil {
		t.Fatal(err)
	}
	url, _, _ := databasetest.StartPostgres(t)
	ctx := t.Context()
	db, err := database.Open(ctx, database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sql := range []string{"CREATE TABLE counters (id int PRIMARY KEY, n bigint NOT NULL)", "INSERT INTO counters VALUES (1, 0)"} {
		if _, err := db.Exec(ctx, sql, nil); err != nil {
			t.Fatal(err)
		}
	}
	srv, logs := newApp(t).copyModule("server/api/counter.get.wasm", wasm).
		file("endpoints.json", []byte(`{"databases": {"main": {"driver": "postgres", "url": "`+url+`"}, "sync": {"driver": "postgres", "url": "`+url+`"}}}`)).
		serve(host.Options{Mode: host.Development})
	count := func() string {
		t.Helper()
		n, err := queryResult(ctx, db, "SELECT n FROM counters WHERE id = 1")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	type answer struct {
		status int
		body   string
	}
	// race sends two requests with retries at once, once both have read
	// the counter, and returns their answers.
	race := func(retries string) []answer {
		t.Helper()
		tx, err := db.Begin(ctx, database.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1)", nil); err != nil {
			t.Fatal(err)
		}
		answers := make([]answer, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := srv.Client().Get(srv.URL + "/api/counter?retries=" + retries)
				if err != nil {
					errs[i] = err
					return
				}
				defer res.Body.Close()
				b, err := io.ReadAll(res.Body)
				answers[i], errs[i] = answer{res.StatusCode, string(b)}, err
			}()
		}
		waiting := func() bool {
			n, err := queryResult(ctx, tx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
			return err == nil && n == "2"
		}
		if !poll.Until(10*time.Second, waiting) {
			t.Fatalf("the two requests do not both wait for the lock; log:\n%s", logs)
		}
		tx.Rollback(ctx) // releases the lock
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(answers, func(a, b answer) int { return a.status - b.status })
		return answers
	}

	got := race("0")
	if got[0].status != 200 || got[1].status != 503 {
		t.Errorf("without retries: answers %v, want one 200 and one 503; log:\n%s", got, logs)
	}
	if n := count(); n != "1" {
		t.Errorf("without retries: the count is %s, want 1 (the second writer failed)", n)
	}

	got = race("3")
	if got[0].status != 200 || got[1].status != 200 {
		t.Errorf("with retries: answers %v, want both 200; log:\n%s", got, logs)
	}
	bodies := []string{got[0].body, got[1].body}
	slices.Sort(bodies)
	if want := []string{`{"n":2,"attempts":1}`, `{"n":3,"attempts":2}`}; !slices.Equal(bodies, want) {
		t.Errorf("with retries: bodies %q, want %q", bodies, want)
	}
	if n := count(); n != "3" {
		t.Errorf("with retries: the count is %s, want 3", n)
	}
}

// queryResult is the one value of the one row sql selects, as JSON.
func queryResult(ctx context.Context, q database.Querier, sql string) (string, error) {
	rows, err := q.Query(ctx, sql, nil)
	if err != nil {
		return "", err
	}
	b, err := database.AppendQueryResult(nil, rows, 1<<10)
	if err != nil {
		return "", err
	}
	var r struct{ Rows [][]json.RawMessage }
	if err := json.Unmarshal(b, &r); err != nil {
		return "", err
	}
	if len(r.Rows) != 1 || len(r.Rows[0]) != 1 {
		return "", fmt.Errorf("%s: got %s, want one value", sql, b)
	}
	return string(r.Rows[0][0]), nil
}
