package postgres_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
)

// TestPostgresPasswordWithAHash: unlike Go's URL parser (which reads
// postgres://postgres:4321#zz@host as host "postgres", port 4321 and a
// fragment), pgx reads a url's user info as libpq does, up to the first
// '@' before any '/', so a '#' in the password needs no escape: the
// database connects to the url's host (the test server trusts local
// connections, so the password is not checked), and its location holds
// no part of the password. (Go's parser misread such Redis urls:
// storage/redis refuses them.)
func TestPostgresPasswordWithAHash(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	withHash := strings.Replace(url, "postgres://postgres@", "postgres://postgres:4321#zz@", 1)
	if withHash == url {
		t.Fatalf("the test server's url %q has no user info to add a password to", url)
	}
	db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: withHash, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(t.Context(), "SELECT 1", nil)
	if err != nil {
		t.Fatalf("a statement: %v", err)
	}
	rows.Close()
	if got := db.Location(); strings.Contains(got, "4321") || strings.Contains(got, "zz") || !strings.Contains(got, "host=127.0.0.1") {
		t.Errorf("Location = %q, want the server's host, and no part of the password", got)
	}
}
