package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/conformance"
)

// onPostgres are the overrides that put the users example's database on
// the PostgreSQL server at url, as ENDPOINTS_DATABASES_MAIN_DRIVER and
// ENDPOINTS_DATABASES_MAIN_URL do in production.
func onPostgres(url string) []config.Override {
	return []config.Override{
		{Pointer: "/databases/main/driver", Value: "postgres", Source: "ENDPOINTS_DATABASES_MAIN_DRIVER"},
		{Pointer: "/databases/main/url", Value: url, Source: "ENDPOINTS_DATABASES_MAIN_URL"},
	}
}

// TestUsersExampleSurvivesRestart: users and orders live in the
// database, so a host started again on it serves what the first created.
func TestUsersExampleSurvivesRestart(t *testing.T) {
	t.Parallel()
	db := ownDatabase(t)
	a := &app{t: t, dir: builtExample(t, "users")}
	w := writer(t)
	h, _ := a.host(host.Options{Mode: host.Development, ConfigOverrides: []config.Override{db}})
	srv := httptest.NewServer(h)
	created := do(t, srv, "POST", "/api/users", `{"name":"Barbara Liskov","email":"barbara@example.com"}`, append([]string{"Content-Type", "application/json"}, w...)...)
	order := do(t, srv, "POST", "/api/orders", `{"userId":4,"items":[{"sku":"BOOK-42","quantity":1}]}`, append([]string{"Content-Type", "application/json", "Idempotency-Key", "restart-1"}, w...)...)
	srv.Close()
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if created.status != 201 || order.status != 201 {
		t.Fatalf("before the restart: create %d %s, order %d %s", created.status, created.body, order.status, order.body)
	}

	h2, _ := a.host(host.Options{Mode: host.Development, ConfigOverrides: []config.Override{db}})
	srv2 := httptest.NewServer(h2)
	defer srv2.Close()
	if got := do(t, srv2, "GET", "/api/users/4", ""); got.status != 200 || got.body != created.body {
		t.Errorf("after the restart: GET /api/users/4 = %d %s, want 200 %s", got.status, got.body, created.body)
	}
	next := do(t, srv2, "POST", "/api/orders", `{"userId":1,"items":[{"sku":"PEN-7","quantity":1}]}`, append([]string{"Content-Type", "application/json", "Idempotency-Key", "restart-2"}, w...)...)
	if next.status != 201 || !strings.Contains(next.body, `"id":2,`) {
		t.Errorf("the first order after the restart: %d %s, want order 2", next.status, next.body)
	}
}

// TestUsersExamplePostgres runs the users example on PostgreSQL: the
// conformance suite passes on it, two hosts sharing it give concurrent
// creates distinct ids, and while the server is down every route that
// reads the database answers its declared 503 with Retry-After (the
// host's: the Go SDK sets none) and /readyz is not ready,
// then all serve again once it is back.
func TestUsersExamplePostgres(t *testing.T) {
	t.Parallel()
	url, stop, restart := databasetest.StartPostgres(t)
	a := &app{t: t, dir: builtExample(t, "users")}
	var hosts []*host.Host
	var srvs []*httptest.Server
	var logs []*logBuffer
	for range 2 {
		h, l := a.host(host.Options{Mode: host.Development, ConfigOverrides: onPostgres(url)})
		srv := httptest.NewServer(h)
		defer srv.Close()
		hosts, srvs, logs = append(hosts, h), append(srvs, srv), append(logs, l)
	}

	t.Run("conformance", func(t *testing.T) {
		for _, r := range conformance.Run(t.Context(), srvs[0].Client(), srvs[0].URL, conformance.Users) {
			if r.Err != nil {
				t.Errorf("%s: %v", r.Case.Name, r.Err)
			}
		}
	})

	w := writer(t)
	t.Run("two hosts create concurrently", func(t *testing.T) {
		const creates = 10
		var wg sync.WaitGroup
		var mu sync.Mutex
		ids := map[int]bool{}
		start := make(chan struct{})
		for i := range creates {
			wg.Go(func() {
				<-start
				res := do(t, srvs[i%2], "POST", "/api/users", fmt.Sprintf(`{"name":"User %d","email":"u%d@example.com"}`, i, i), append([]string{"Content-Type", "application/json"}, w...)...)
				var u struct{ ID int }
				err := json.Unmarshal([]byte(res.body), &u)
				mu.Lock()
				defer mu.Unlock()
				if res.status != 201 || err != nil || ids[u.ID] {
					t.Errorf("create %d: %d %s", i, res.status, res.body)
				}
				ids[u.ID] = true
			})
		}
		close(start)
		wg.Wait()
		for id := 4; id < 4+creates; id++ {
			if !ids[id] {
				t.Errorf("no create got id %d; ids = %v", id, ids)
			}
		}
	})

	t.Run("down, then back", func(t *testing.T) {
		stop()
		const wantError = `{"statusCode":503,"statusMessage":"Service Unavailable"}`
		for _, tt := range []struct{ method, path, body string }{
			{"GET", "/api/users/1", ""},
			{"GET", "/api/users/search?q=a", ""},
			{"POST", "/api/users", `{"name":"Ada","email":"ada2@example.com"}`},
			{"PATCH", "/api/users/1", `{"name":"Ada"}`},
			{"GET", "/api/users/export", ""},
			{"GET", "/api/users/1/avatar", ""},
		} {
			res := do(t, srvs[0], tt.method, tt.path, tt.body, append([]string{"Content-Type", "application/json"}, w...)...)
			if res.status != 503 || !jsonEqual(t, res.body, wantError) {
				t.Errorf("%s %s with the database down: got %d %s, want 503 %s", tt.method, tt.path, res.status, res.body, wantError)
			}
			// The SDK's 503 says nothing of when to retry; the host adds it.
			if s, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || s < 1 {
				t.Errorf("%s %s with the database down: Retry-After %q, want seconds", tt.method, tt.path, res.header.Get("Retry-After"))
			}
		}
		if got := readyErrors(hosts[0], context.Background()); len(got) != 1 || !strings.HasPrefix(got[0], "databases: ") {
			t.Errorf("ready with the database down: %q, want the databases check failing", got)
		}
		restart()
		// The host that saw the outage dropped its connections: its next
		// statement connects anew.
		if res := do(t, srvs[0], "GET", "/api/users/2", ""); res.status != 200 {
			t.Errorf("GET /api/users/2 with the database back: %d %s", res.status, res.body)
		}
		if got := readyErrors(hosts[0], context.Background()); got != nil {
			t.Errorf("ready with the database back: %q", got)
		}
	})
	for i, l := range logs {
		if strings.Contains(l.String(), "answer breaks the contract") {
			t.Errorf("an answer of host %d broke its contract:\n%s", i, l)
		}
	}
}
