package host_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// TestDatabasePoolFullAnswersInTime: with every connection of the pool
// held (maxConns 1, a call holding a transaction until its deadline, 4 s
// away; it runs a statement, by which PostgreSQL sees it), a call that needs one (its deadline 2 s away, after a reload)
// gets "unavailable", naming databases.main.maxConns, before its own deadline, so the
// guest answers it itself (503 in an SDK) instead of being stopped at the
// deadline with a 500.
func TestDatabasePoolFullAnswersInTime(t *testing.T) {
	t.Parallel()
	url, _, _ := databasetest.StartPostgres(t)
	cfg := func(timeout string) string {
		return `{"limits": {"timeout": "` + timeout + `"}, "databases": {"main": {"driver": "postgres", "url": "` + url + `", "maxConns": 1}}}`
	}
	a := dbApp(t, cfg("4s"))
	h, logs := a.host(host.Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	holder := make(chan response, 1)
	go func() { holder <- dbDo(t, srv, "main", "bel", "SELECT 1", "") }()

	watch, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	holding := func() bool {
		rows, err := watch.Query(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'", nil)
		if err != nil {
			return false
		}
		defer rows.Close()
		if !rows.Next() {
			return false
		}
		vals, err := rows.Values()
		return err == nil && vals[0] == int64(1)
	}
	if !poll.Until(10*time.Second, holding) {
		t.Fatalf("the first call holds no transaction\n%s", logs)
	}
	a.file("endpoints.json", []byte(cfg("2s")))
	if report := h.Reload(context.Background()); len(report.Problems) != 0 {
		t.Fatalf("reload: %v", report.Problems)
	}
	res := dbDo(t, srv, "main", "q", "SELECT 1", "")
	if res.status != 200 || !strings.Contains(res.body, `"code":"unavailable"`) || !strings.Contains(res.body, "maxConns (1)") || !strings.Contains(res.body, "raise databases.main.maxConns") {
		t.Errorf("a call with the pool full: %d %s; want the guest to get unavailable, naming maxConns, in time to answer\n%s", res.status, res.body, logs)
	}
	if r := <-holder; r.status != 500 {
		t.Errorf("the call looping until its deadline: %d, want 500", r.status)
	}
	// A full pool is not the database down: no "database unavailable"
	// line (a burst of requests would log it down and up in turn), but
	// a line saying the pool is full.
	if strings.Contains(logs.String(), "database unavailable") || !strings.Contains(logs.String(), "database pool full") {
		t.Errorf("the log of a full pool: want a pool-full line and no unavailable one:\n%s", logs)
	}
}
