package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestHandler(t *testing.T) {
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/api/users/2", 200, `{"id":2,"name":"User 2","email":"user2@example.com"}`},
		{"/api/users/0", 400, `{"error":"id must be an integer >= 1"}`},
		{"/api/users/x", 400, `{"error":"id must be an integer >= 1"}`},
	} {
		h, err := newHandler(0)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.status || rec.Body.String() != tc.body {
			t.Errorf("GET %s = %d %s, want %d %s", tc.path, rec.Code, rec.Body, tc.status, tc.body)
		}
	}
}

func TestWorkIsDone(t *testing.T) {
	h, err := newHandler(50 * time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	before := spins.Load()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/users/2", nil))
	if spins.Load() == before {
		t.Error("a request with -work 50µs did no work")
	}
}

// BenchmarkBusy shows that -work adds the CPU time it names: ns/op is
// about the work asked for.
func BenchmarkBusy(b *testing.B) {
	for b.Loop() {
		if busy(10*time.Microsecond) == 0 {
			b.Fatal("busy(10µs) did not spin")
		}
	}
}
