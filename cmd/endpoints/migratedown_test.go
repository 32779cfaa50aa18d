package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateDatabaseDown: migrate of an app whose PostgreSQL server is
// not running says which database could not be reached (its name, its
// driver, where it is, never the password) and what to check: that the
// server runs, and the url or the variable that overrides it.
func TestMigrateDatabaseDown(t *testing.T) {
	// A port nothing listens on: one the system gave, then closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	app := t.TempDir()
	config := `{"databases": {"orders": {"driver": "postgres", "url": "postgres://app:s3cret@` + addr + `/shop?connect_timeout=5"}}}`
	if err := os.WriteFile(filepath.Join(app, "endpoints.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	mig := filepath.Join(app, "server", "migrations")
	if err := os.MkdirAll(mig, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mig, "001-orders.orders.sql"), []byte("CREATE TABLE orders (id INTEGER);"), 0o644); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(addr)
	code, out, errOut := runCLI("migrate", app)
	if code != exitError {
		t.Fatalf("migrate = %d, want %d\n%s\n%s", code, exitError, out, errOut)
	}
	for _, want := range []string{
		`database "orders" (postgres host=` + host + ` port=` + port + ` dbname=shop user=app) could not be reached`,
		"is the PostgreSQL server running",
		"ENDPOINTS_DATABASES_ORDERS_URL",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("migrate's error does not say %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "s3cret") {
		t.Errorf("migrate's error shows the password:\n%s", errOut)
	}
}
