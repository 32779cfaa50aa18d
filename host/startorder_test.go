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

// TestRefusedReloadMigratesNothing: a reload that refuses the new
// endpoints.json (a variable without a value, or a file that does not
// parse) applies no migration, while the previous version keeps serving
// with its settings: it applied them before resolving the settings, so a
// deploy missing a secret changed the schema under the version that
// stayed. The reload that fixes endpoints.json applies them.
func TestRefusedReloadMigratesNothing(t *testing.T) {
	t.Parallel()
	const cfg = `{"variables": {"token": {"env": "QUOTE_TOKEN", "secret": true}}}`
	for _, tt := range []struct {
		name, wantProblem string
		refuse, fix       func(a *app, e *env)
	}{
		{"a variable without a value", "/variables/token: has no value",
			func(_ *app, e *env) { e.set("QUOTE_TOKEN", "") },
			func(_ *app, e *env) { e.set("QUOTE_TOKEN", "t0ken") }},
		{"an endpoints.json that does not parse", config.File,
			func(a *app, _ *env) { a.file("endpoints.json", []byte(`{"variables": `)) },
			func(a *app, _ *env) { a.file("endpoints.json", []byte(cfg)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := &env{m: map[string]string{"QUOTE_TOKEN": "t0ken"}}
			a := dbApp(t, cfg).file("server/migrations/001-users.sql", []byte("CREATE TABLE users (id INTEGER PRIMARY KEY);\n"))
			h, logs := a.host(host.Options{Mode: host.Production, LookupEnv: e.lookup, ConfigOverrides: []config.Override{ownDatabase(t)}})
			srv := newServer(t, h)
			orders := func() string {
				return dbDo(t, srv, "main", "q", "SELECT count(*) AS n FROM sqlite_master WHERE name = 'orders'", "").body
			}
			const none, one = `{"columns":["n"],"rows":[[0]]}` + "\n", `{"columns":["n"],"rows":[[1]]}` + "\n"

			tt.refuse(a, e)
			a.file("server/migrations/002-orders.sql", []byte("CREATE TABLE orders (id INTEGER PRIMARY KEY);\n"))
			report := h.Reload(context.Background())
			if len(report.Problems) != 1 || !strings.Contains(report.Problems[0].Error(), tt.wantProblem) {
				t.Errorf("the refused reload's problems: %v, want one naming %q", report.Problems, tt.wantProblem)
			}
			if got := orders(); got != none {
				t.Errorf("after the refused reload, the table orders: %s, want none (the migration not applied)\n%s", got, logs)
			}

			tt.fix(a, e)
			if report := h.Reload(context.Background()); len(report.Problems) != 0 {
				t.Errorf("the reload that fixes endpoints.json: problems %v", report.Problems)
			}
			if got := orders(); got != one {
				t.Errorf("after the fixed reload, the table orders: %s, want it made\n%s", got, logs)
			}
		})
	}
}

// TestRefusedReloadWarnsOfWaitingMigrations: a reload that refuses the
// new endpoints.json warns that it applies no migration only when one
// waits for it, and names the files that wait; with every migration
// applied it has nothing to say (the refusal is its problem already).
func TestRefusedReloadWarnsOfWaitingMigrations(t *testing.T) {
	t.Parallel()
	const refusal = "applies no migration"
	for _, tt := range []struct {
		name     string
		added    bool
		wantWarn bool
	}{
		{"a new migration waits", true, true},
		{"every migration applied", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := dbApp(t, `{}`).file("server/migrations/001-users.sql", []byte("CREATE TABLE users (id INTEGER PRIMARY KEY);\n"))
			h, logs := a.host(host.Options{Mode: host.Development, ConfigOverrides: []config.Override{ownDatabase(t)}})
			t.Cleanup(func() { h.Close(context.Background()) })
			a.file("endpoints.json", []byte(`{"variables": `))
			if tt.added {
				a.file("server/migrations/002-orders.sql", []byte("CREATE TABLE orders (id INTEGER PRIMARY KEY);\n"))
			}
			if report := h.Reload(context.Background()); len(report.Problems) != 1 {
				t.Fatalf("the refused reload's problems: %v, want one", report.Problems)
			}
			// Reload, unlike Watch with an onReload, logs its problem.
			if !strings.Contains(logs.String(), "not reloaded; the previous version keeps serving") {
				t.Errorf("the log does not report the refused reload:\n%s", logs)
			}
			warned := strings.Contains(logs.String(), refusal)
			if warned != tt.wantWarn {
				t.Errorf("warned %q: %v, want %v\n%s", refusal, warned, tt.wantWarn, logs)
			}
			if tt.wantWarn && !strings.Contains(logs.String(), "server/migrations/002-orders.sql") {
				t.Errorf("the warning does not name the migration that waits:\n%s", logs)
			}
		})
	}
}
