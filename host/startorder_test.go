package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestRefusedStartMigratesNothing: a start that its settings refuse (a
// variable without a value, a CA file that is missing) applies
// no migration. It applied them first, so a deploy missing a secret
// changed the database's schema and then did not start.
func TestRefusedStartMigratesNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, cfg, wantErr string
	}{
		{"a variable without a value", `{"variables": {"token": {"env": "QUOTE_TOKEN", "secret": true}}}`,
			"/variables/token: has no value"},
		{"an outbound CA file that is missing", `{"outbound": {"allowedHosts": ["https://api.example.com"], "caFile": "certs/ca.pem"}}`,
			"certs/ca.pem"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := dbApp(t, tt.cfg).file("server/migrations/001-users.sql", []byte("CREATE TABLE users (id INTEGER PRIMARY KEY);\n"))
			db := ownDatabase(t)
			noEnv := func(string) (string, bool) { return "", false }
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger(),
				LookupEnv: noEnv, ConfigOverrides: []config.Override{db}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("host.New error = %v, want one containing %q", err, tt.wantErr)
			}
			// A host on the same database that applies nothing itself
			// reads what the refused start left.
			srv, _ := a.file("endpoints.json", []byte("{}")).serve(host.Options{SkipMigrations: true, ConfigOverrides: []config.Override{db}})
			want := `{"columns":["n"],"rows":[[0]]}` + "\n"
			if res := dbDo(t, srv, "main", "q", "SELECT count(*) AS n FROM sqlite_master WHERE name IN ('users', 'endpoints_migrations')", ""); res.body != want {
				t.Errorf("after the refused start, the tables users and endpoints_migrations: %s, want none", res.body)
			}
		})
	}
}
