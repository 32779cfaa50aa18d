package postgres

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/database/databasetest"
)

// libpqVariables are the variables of libpq's environment the tests of a
// database without a url set, or clear (pgx reads an empty one as unset).
var libpqVariables = []string{"PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGPASSFILE", "PGSSLMODE", "PGSERVICE", "PGSERVICEFILE"}

// TestSettingsFromLibpqEnvironment: a database without a url takes its
// connection settings from libpq's environment (as pgx reads it), from
// its PG* variables or a pg_service.conf entry PGSERVICE names: it
// reaches the real server they name, and says where it is (host, port,
// database, user; never the password). When the environment names no
// server or no database, opening it fails saying what to set, rather
// than reaching libpq's defaults (a local socket, the user's database).
func TestSettingsFromLibpqEnvironment(t *testing.T) {
	url, _, _ := databasetest.StartPostgres(t)
	server, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(int(server.Port))
	where := fmt.Sprintf("postgres host=%s port=%s dbname=%s user=%s", server.Host, port, server.Database, server.User)
	service := filepath.Join(t.TempDir(), "pg_service.conf")
	if err := os.WriteFile(service, fmt.Appendf(nil, "[app]\nhost=%s\nport=%s\ndbname=%s\nuser=%s\nsslmode=disable\n", server.Host, port, server.Database, server.User), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		// fail is in the error of Open; empty when the database serves.
		fail string
	}{
		{name: "every setting from PG* variables", env: map[string]string{
			"PGHOST": server.Host, "PGPORT": port, "PGDATABASE": server.Database, "PGUSER": server.User,
			"PGPASSWORD": "s3cret", "PGSSLMODE": "disable"}},
		{name: "an entry of pg_service.conf", env: map[string]string{"PGSERVICEFILE": service, "PGSERVICE": "app"}},
		{name: "no server", env: map[string]string{"PGDATABASE": server.Database, "PGUSER": server.User},
			fail: "databases.main.url is empty, so libpq's environment gives the connection settings, and it names no server: set PGHOST (and PGPORT unless 5432), with PGUSER, PGPASSWORD (or PGPASSFILE) and PGSSLMODE as the server needs; or PGSERVICE, an entry of pg_service.conf; or databases.main.url, such as postgres://app@db:5432/app"},
		{name: "no database", env: map[string]string{"PGHOST": server.Host, "PGPORT": port},
			fail: "names no database: set PGDATABASE, with PGUSER"},
		{name: "neither", env: map[string]string{"PGUSER": server.User},
			fail: "names no server nor database: set PGHOST (and PGPORT unless 5432) and PGDATABASE, with PGUSER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range libpqVariables {
				t.Setenv(v, tt.env[v])
			}
			db, err := database.Open(t.Context(), database.DriverPostgres, database.Options{Name: "main", MaxConns: 1})
			if tt.fail != "" {
				if err == nil {
					db.Close()
					t.Fatalf("Open with %v = a database, want an error saying %q", tt.env, tt.fail)
				}
				if !strings.Contains(err.Error(), tt.fail) {
					t.Errorf("Open with %v: %v\nwant %q", tt.env, err, tt.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got := db.Location(); got != where {
				t.Errorf("Location = %q, want %q", got, where)
			}
			rows, err := db.Query(t.Context(), "SELECT current_database(), current_user, current_setting('port')", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			if !rows.Next() {
				t.Fatalf("no row: %v", rows.Err())
			}
			got, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			if want := []any{server.Database, server.User, port}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("connected to database, user, port %v; want %v", got, want)
			}
		})
	}
}
