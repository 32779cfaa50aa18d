package host_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// TestShutdownCancelsAStatementInFlight: when Shutdown's context ends, a
// guest waiting on a database statement (a lock, a slow query) has that
// statement cancelled, as an outbound request is, instead of left to run
// until the call's deadline: the request is answered 503 and what the
// statement would have written is not committed. The statement ran on
// after the host had stopped the call and cut the client off, so an
// INSERT still committed (and an Idempotency-Key, freed by the stopped
// call, let a retry write it twice), and the process outlived its drain.
func TestShutdownCancelsAStatementInFlight(t *testing.T) {
	t.Parallel()
	url, _, _ := databasetest.StartPostgres(t)
	a := dbApp(t, `{"limits": {"timeout": "10m"}}`).file("server/migrations/001-t.sql", []byte("CREATE TABLE t (id int)"))
	h, logs := a.host(host.Options{ConfigOverrides: []config.Override{
		{Pointer: "/databases/main/driver", Value: "postgres", Source: "test"},
		{Pointer: "/databases/main/url", Value: url, Source: "test"},
	}})
	srv := serveHost(t, h)
	const slow = "INSERT INTO t SELECT 1 FROM pg_sleep(5)"
	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("GET", srv.URL+"/db", nil)
		req.Header.Set("x-db", "main")
		req.Header.Set("x-ops", "e")
		req.Header.Set("x-sql", slow)
		res, err := srv.Client().Do(req)
		if err != nil {
			answered <- 0
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: url, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(sql string) int64 {
		rows, err := db.Query(t.Context(), sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		defer rows.Close()
		if !rows.Next() {
			t.Fatalf("%s: no row: %v", sql, rows.Err())
		}
		v, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		return v[0].(int64)
	}
	const running = "SELECT count(*) FROM pg_stat_activity WHERE query = '" + slow + "' AND state = 'active'"
	if !poll.Until(30*time.Second, func() bool { return count(running) == 1 }) {
		t.Fatalf("the statement did not start:\n%s", logs)
	}
	stopNow, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Shutdown(stopNow); err == nil {
		t.Errorf("Shutdown with a request in flight and its context ended = nil, want its context's error")
	}
	if status := <-answered; status != 503 {
		t.Errorf("the request whose statement was cancelled got %d, want 503\n%s", status, logs)
	}
	if n := count("SELECT count(*) FROM t"); n != 0 {
		t.Errorf("the table has %d rows once the host has stopped: the statement it stopped the call of ran on and committed", n)
	}
	if n := count(running); n != 0 {
		t.Errorf("the statement still runs once the host has stopped")
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Errorf("the log does not say the host stopped the call:\n%s", logs)
	}
}

// TestShutdownReleasesTheKeysOfStoppedRequests: a request whose guest the
// host stops at Shutdown's timeout frees its Idempotency-Key before the
// host closes its store, so that the client's retry on another host runs
// at once. The store was closed under the stopped requests, whose release
// failed ("redis: client is closed"): the retry got 409 until the key's
// lease ended.
func TestShutdownReleasesTheKeysOfStoppedRequests(t *testing.T) {
	t.Parallel()
	url, _, _ := storagetest.StartRedis(t)
	a := newApp(t).wat("server/api/orders.post.wasm", countingHandler(2_000_000_000, 201, false))
	opts := host.Options{ConfigOverrides: []config.Override{
		{Pointer: "/storage/driver", Value: "redis", Source: "test"},
		{Pointer: "/storage/url", Value: url, Source: "test"},
		{Pointer: "/storage/namespace", Value: "shop", Source: "test"},
		{Pointer: "/limits/timeout", Value: "10m", Source: "test"},
	}}
	first, logs := a.host(opts)
	srv := serveHost(t, first)
	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", srv.URL+"/api/orders", strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-1")
		res, err := srv.Client().Do(req)
		if err != nil {
			answered <- 0
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	reader := redisStore(t, url)
	if !waitFor(t, 30*time.Second, func() bool {
		v, _, err := reader.Get(context.Background(), "shop", "runs")
		return err == nil && string(v) == "1"
	}) {
		t.Fatalf("the guest did not start:\n%s", logs)
	}
	stopNow, cancel := context.WithCancel(context.Background())
	cancel()
	first.Shutdown(stopNow)
	if status := <-answered; status != 503 {
		t.Errorf("the stopped request got %d, want 503\n%s", status, logs)
	}
	if strings.Contains(logs.String(), "releasing an idempotency key failed") {
		t.Errorf("the key of the stopped request was not released:\n%s", logs)
	}
	second, _ := newApp(t).wat("server/api/orders.post.wasm", countingHandler(0, 201, false)).serve(opts)
	if res := do(t, second, "POST", "/api/orders", `{}`, "Content-Type", "application/json", "Idempotency-Key", "order-1"); res.status != 201 {
		t.Errorf("the retry on another host got %d %s, want 201: the key is still held", res.status, res.body)
	}
}
