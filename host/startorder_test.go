package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestRefusedStartMigratesNothing: a start that its settings refuse (a
// variable without a value, a CA file, a docs page's assets directory or
// a scheme's key set file that is missing, a scheme's secret unset)
// applies no migration, and fails before it loads a module: no Progress
// is reported, so serve prints no "loaded" or "ready" line before the
// error. It applied them first, so a deploy missing a secret changed the
// database's schema and then did not start; a key set file was read after
// the migrations, and a CA file after the route modules loaded.
func TestRefusedStartMigratesNothing(t *testing.T) {
	t.Parallel()
	guarded := watModule{contract: `{"security":[{"bearer":[]}]}`, handle: "(i32.const 0)"}
	for _, tt := range []struct {
		name, cfg string
		set       *config.Override // another setting, as ENDPOINTS_* sets it
		wantErr   []string
	}{
		{"a variable without a value", `{"variables": {"token": {"env": "QUOTE_TOKEN", "secret": true}}}`, nil,
			[]string{"/variables/token: has no value"}},
		{"an outbound CA file that is missing", `{"outbound": {"allowedHosts": ["https://api.example.com"], "caFile": "certs/ca.pem"}}`, nil,
			[]string{"endpoints.json: /outbound/caFile: ", "certs/ca.pem does not exist"}},
		{"a docs page's assets directory that is missing", `{"openApi": {"enabled": true, "docs": {"assets": "public/scalar"}}}`, nil,
			[]string{`endpoints.json: /openApi/docs/assets: "public/scalar": `, "public/scalar does not exist"}},
		{"a key set file that is missing", `{"security": {"bearer": {"jwt": {"jwks": "auth/jwks.json"}}}}`, nil,
			[]string{"endpoints.json: /security/bearer/jwt/jwks: auth/jwks.json does not exist"}},
		{"a key set file the deployment's security names that is missing", `{"security": {"bearer": {"jwt": {"secret": {"env": "QUOTE_TOKEN"}}}}}`,
			&config.Override{Pointer: "/security", Value: `{"bearer": {"jwt": {"jwks": "secrets/jwks.json"}}}`, Source: "ENDPOINTS_SECURITY"},
			[]string{"endpoints.json: /security/bearer/jwt/jwks: secrets/jwks.json does not exist", "(/security set by ENDPOINTS_SECURITY)"}},
		{"a scheme's secret whose variable is unset", `{}`,
			&config.Override{Pointer: "/security", Value: `{"bearer": {"jwt": {"secret": {"env": "ENDPOINTS_TEST_UNSET_JWT_SECRET"}}}}`, Source: "ENDPOINTS_SECURITY"},
			[]string{"endpoints.json: /security/bearer/jwt/secret: the environment variable ENDPOINTS_TEST_UNSET_JWT_SECRET is not set", "(/security set by ENDPOINTS_SECURITY)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := dbApp(t, tt.cfg).file("server/migrations/001-users.sql", []byte("CREATE TABLE users (id INTEGER PRIMARY KEY);\n")).
				wat("server/api/orders.get.wasm", guarded)
			db := ownDatabase(t)
			overrides := []config.Override{db}
			if tt.set != nil {
				overrides = append(overrides, *tt.set)
			}
			noEnv := func(string) (string, bool) { return "", false }
			var progress []host.Progress
			_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger(),
				LookupEnv: noEnv, ConfigOverrides: overrides, ServeWhileCompiling: true,
				Progress: func(p host.Progress) { progress = append(progress, p) }})
			for _, want := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("host.New error = %v, want one containing %q", err, want)
				}
			}
			if len(progress) > 0 {
				t.Errorf("the refused start reported %d module(s) loaded before failing (%s %s), which serve prints as it starts", len(progress), progress[0].Stage, progress[0].File)
			}
			// A host on the same database that applies nothing itself
			// reads what the refused start left.
			verified := `{"security": {"bearer": {"apiKey": {"keys": [{"sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}]}}}}`
			srv, _ := a.file("endpoints.json", []byte(verified)).serve(host.Options{SkipMigrations: true, ConfigOverrides: []config.Override{db}})
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
