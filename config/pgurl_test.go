package config_test

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/config"
)

// TestPostgresURLsTheDriverAccepts: every url and key=value settings the
// PostgreSQL driver (pgx, which parses a url as libpq does) accepts loads,
// and a url it refuses is refused at load, naming the setting and never
// its value. url.Parse's rules refused passwords holding ^ { } [ ] | # ?
// or a quote, a host list whose first host has a port and the last none,
// several IPv6 hosts and a socket directory given as the host; a key=value
// password holding "://" was taken for a url's scheme and shown in the
// error.
func TestPostgresURLsTheDriverAccepts(t *testing.T) {
	accepted := []string{
		"postgres://app:pa#ss@db:5432/app",
		"postgres://app:pa^ss@db/app",
		"postgres://app:p{a}ss@db/app",
		"postgres://app:p[a]ss@db/app",
		"postgres://app:p|ss@db/app",
		`postgres://app:p"ss@db/app`,
		"postgres://app:pa?ss@db/app",
		"postgres://app:pa:ss@db/app",
		"postgres://app@db1:5432,db2/app",
		"postgres://app@db1,db2:5433/app?target_session_attrs=read-write",
		"postgres://app@[::1]:5432,[::2]:5432/app",
		"postgres://app@[::1],[::2]/app",
		"postgres://app@[fe80::1%25eth0]:5432/app",
		"postgres:///app?host=/var/run/postgresql",
		"postgres://%2Fvar%2Frun%2Fpostgresql/app",
		"postgresql://app:p%40ss@db/app?sslmode=verify-full&connect_timeout=5",
		"postgres://app@db/app?sslmode=bogus&sslmode=require",
		"postgres://app@db/app?sslmode=bogus&ssl=true",
		"host=db dbname=app password=ab://cd",
		"host = db dbname=app",
	}
	for _, url := range accepted {
		t.Run(url, func(t *testing.T) {
			if _, err := pgconn.ParseConfig(url); err != nil {
				t.Fatalf("the driver refuses it, the test is wrong: %v", err)
			}
			if _, err := config.Parse(config.File, []byte(`{"databases": {"main": {"driver": "postgres", "url": `+jsonString(url)+`}}}`)); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	refused := []struct{ url, want string }{
		{"postgres://app:pa%ss@db/app", "/databases/main/url: is not a valid url"},
		{"postgres://app:secret@db:notaport/app", "/databases/main/url: is not a valid url"},
		{"postgres://app:secret@db1:5432,db2:99999/app", "/databases/main/url: is not a valid url"},
		{"postgres://app:secret@[::1/app", "/databases/main/url: is not a valid url"},
		{"postgres://app:secret@db/app%zz", "/databases/main/url: is not a valid url"},
		{"postgres://app:secret@db/app?sslmode=require&sslmode=bogus", `/databases/main/url: sslmode "bogus" is not one of`},
		{"jdbc:postgresql://db/app", `/databases/main/url: a postgres url starts with postgres:// or postgresql:// (or is key=value settings, host=db dbname=app), got one of scheme "jdbc:postgresql"`},
	}
	for _, tt := range refused {
		t.Run(tt.url, func(t *testing.T) {
			if _, err := pgconn.ParseConfig(tt.url); err == nil {
				t.Fatal("the driver accepts it, the test is wrong")
			}
			_, err := config.Parse(config.File, []byte(`{"databases": {"main": {"driver": "postgres", "url": `+jsonString(tt.url)+`}}}`))
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "secret") {
				t.Errorf("error = %v; want one that says %q, without the password", err, tt.want)
			}
		})
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
