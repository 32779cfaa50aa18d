package postgres

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
)

// TestConnectTimeoutByDefault: a server that accepts the connection and
// never answers (a proxy without its backend) fails a statement whose
// context has no deadline, the first load's migrations and `endpoints
// migrate`, as unavailable within the default connect timeout, and the
// url's connect_timeout still says otherwise. Without it they waited for
// ever: a start that spec §15 says serves hung before listening.
func TestConnectTimeoutByDefault(t *testing.T) {
	l := SilentServer(t)
	defer func(d time.Duration) { defaultConnectTimeout = d }(defaultConnectTimeout)
	defaultConnectTimeout = 200 * time.Millisecond
	open := func(t *testing.T, query string) database.DB {
		db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{URL: "postgres://u:secret@" + l.Addr().String() + "/app?sslmode=disable" + query, MaxConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	t.Run("no connect_timeout: the default", func(t *testing.T) {
		db := open(t, "")
		failed := make(chan error, 1)
		go func() {
			_, err := db.Query(context.Background(), "SELECT 1", nil) // no deadline
			failed <- err
		}()
		// The test's own bound, far past the connect timeout.
		bound, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		select {
		case err := <-failed:
			if database.CodeOf(err) != database.CodeUnavailable || !strings.Contains(err.Error(), "within the connect timeout") || strings.Contains(err.Error(), "secret") {
				t.Errorf("a statement on a silent server: %v; want unavailable, saying the connect timeout passed, no password", err)
			}
		case <-bound.Done():
			db.Close()
			t.Errorf("a statement without a deadline on a silent server still waits after 30 s")
		}
	})
	t.Run("connect_timeout in the url", func(t *testing.T) {
		call, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := open(t, "&connect_timeout=60").Query(call, "SELECT 1", nil)
		if err == nil || strings.Contains(err.Error(), "connect timeout") {
			t.Errorf("a statement with connect_timeout=60 and a call of a second: %v; want the call's deadline to end it, not the default connect timeout", err)
		}
	})
	// A service of pg_service.conf the url names sets connect_timeout
	// as well: the default overrode it, the url not saying
	// connect_timeout itself.
	t.Run("connect_timeout in the service file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "pg_service.conf")
		if err := os.WriteFile(file, []byte("[app]\nconnect_timeout=60\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PGSERVICEFILE", file)
		call, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := open(t, "&service=app").Query(call, "SELECT 1", nil)
		if err == nil || strings.Contains(err.Error(), "connect timeout") {
			t.Errorf("a statement with the service's connect_timeout=60 and a call of a second: %v; want the call's deadline to end it, not the default connect timeout", err)
		}
	})
}
