package main

import (
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
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
		h, err := newHandler(0, nil)
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

// TestHandlerReadsDatabase: with -db the user is the database's row, and
// an id it does not hold is a 404.
func TestHandlerReadsDatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "main.db")
	db, err := sql.Open("sqlite3", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
		INSERT INTO users VALUES (2, 'Grace Hopper', 'grace@example.com')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	users, err := openUsers(file)
	if err != nil {
		t.Fatal(err)
	}
	defer users.Close()
	h, err := newHandler(0, users)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/api/users/2", 200, `{"id":2,"name":"Grace Hopper","email":"grace@example.com"}`},
		{"/api/users/3", 404, `{"error":"no user with this id"}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.status || rec.Body.String() != tc.body {
			t.Errorf("GET %s = %d %s, want %d %s", tc.path, rec.Code, rec.Body, tc.status, tc.body)
		}
	}
	if _, err := openUsers(filepath.Join(t.TempDir(), "none.db")); err == nil || !strings.Contains(err.Error(), "serve the example once") {
		t.Errorf("openUsers of a missing file: %v", err)
	}
}

func TestWorkIsDone(t *testing.T) {
	h, err := newHandler(50*time.Microsecond, nil)
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
