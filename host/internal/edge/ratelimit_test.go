package edge_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/storage"
)

// request is an edge.Request that records the store errors reported.
type request struct {
	context.Context
	principal *abi.Principal
	failed    []string
}

func (r *request) Principal() *abi.Principal              { return r.principal }
func (r *request) StoreSpan(string) func(error)           { return nil }
func (r *request) ObserveStoreError(op string, err error) { r.failed = append(r.failed, op) }
func (r *request) RequestID() string                      { return "req-1" }

// failingStore is a memory store whose rate limiter fails with err.
type failingStore struct {
	*storage.Memory
	err error
}

func (s failingStore) Take(context.Context, string, storage.Rate) (storage.Decision, error) {
	return storage.Decision{}, s.err
}

// noLimiter is a store that keeps no rate limits.
type noLimiter struct{ storage.Store }

// TestLimiterTake checks the answers a limiter asks for: none while a
// client has tokens, 429 past them (counted per client key), 503 when the
// store is unavailable or full, 500 when it fails otherwise or keeps no
// rate limits, and nothing for a route no policy limits.
func TestLimiterTake(t *testing.T) {
	mem := storage.NewMemory(storage.MemoryOptions{})
	defer mem.Close()
	policies, trusted, err := edge.NewRateLimits(&config.App{RateLimits: map[string]config.RateLimit{
		"few": {Routes: []string{"/api/few"}, Limit: 2, Window: config.Duration(time.Minute), Key: "subject"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := &abi.Principal{Scheme: "bearer", Subject: "alice"}, &abi.Principal{Scheme: "bearer", Subject: "bob"}
	tests := []struct {
		name       string
		store      storage.Store
		route      string
		principal  *abi.Principal
		wantStatus int // 0: the request goes on
		wantFailed bool
	}{
		{"first token", mem, "/api/few", alice, 0, false},
		{"second token", mem, "/api/few", alice, 0, false},
		{"past the limit", mem, "/api/few", alice, http.StatusTooManyRequests, false},
		{"another client has its own", mem, "/api/few", bob, 0, false},
		{"a route no policy limits", mem, "/api/many", alice, 0, false},
		{"store unavailable", failingStore{mem, storage.ErrUnavailable}, "/api/few", alice, http.StatusServiceUnavailable, true},
		{"store full", failingStore{mem, storage.ErrFull}, "/api/few", alice, http.StatusServiceUnavailable, true},
		{"store failed", failingStore{mem, errors.New("broken")}, "/api/few", alice, http.StatusInternalServerError, true},
		{"store keeps no limits", noLimiter{mem}, "/api/few", alice, http.StatusInternalServerError, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := edge.Limiter{Policies: policies, Trusted: trusted, Store: tt.store, Namespace: "app", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			req := &request{Context: context.Background(), principal: tt.principal}
			header := http.Header{}
			no := l.Take(httptest.NewRequest("GET", tt.route, nil), tt.route, req, header)
			switch {
			case tt.wantStatus == 0 && no != nil:
				t.Fatalf("refused with %+v, want the request to go on", *no)
			case tt.wantStatus != 0 && no == nil:
				t.Fatalf("the request goes on, want %d", tt.wantStatus)
			case no != nil && no.Status != tt.wantStatus:
				t.Errorf("status %d, want %d", no.Status, tt.wantStatus)
			}
			if got := len(req.failed) > 0; got != tt.wantFailed {
				t.Errorf("store errors reported %q, want some: %v", req.failed, tt.wantFailed)
			}
			if tt.store == storage.Store(mem) && tt.route == "/api/few" && header.Get("RateLimit-Policy") == "" {
				t.Error("no RateLimit-Policy header on a limited route")
			}
			if no != nil && no.Status == http.StatusServiceUnavailable && (no.RetryAfter == "" || !no.Discard) {
				t.Errorf("a 503 %+v, want Retry-After and the body discarded", *no)
			}
			if no != nil && no.Status == http.StatusTooManyRequests && !no.Discard {
				t.Errorf("a 429 %+v, want the body discarded", *no)
			}
		})
	}
}
