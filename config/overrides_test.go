package config_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

func TestSettings(t *testing.T) {
	got := map[string]config.Setting{}
	for _, s := range config.Settings() {
		got[s.Env] = s
	}
	for env, want := range map[string]config.Setting{
		"ENDPOINTS_STORAGE_URL":             {Pointer: "/storage/url", Name: "storage.url", Text: true},
		"ENDPOINTS_LIMITS_MEMORY_BYTES":     {Pointer: "/limits/memoryBytes", Name: "limits.memoryBytes", Size: true},
		"ENDPOINTS_LIMITS_TIMEOUT":          {Pointer: "/limits/timeout", Name: "limits.timeout", Text: true},
		"ENDPOINTS_OPEN_API_TITLE":          {Pointer: "/openApi/title", Name: "openApi.title", Text: true},
		"ENDPOINTS_OPEN_API_DOCS_PATH":      {Pointer: "/openApi/docs/path", Name: "openApi.docs.path", Text: true},
		"ENDPOINTS_SERVER_IDLE_TIMEOUT":     {Pointer: "/server/idleTimeout", Name: "server.idleTimeout", Text: true},
		"ENDPOINTS_RESPONSE_VALIDATION":     {Pointer: "/responseValidation", Name: "responseValidation", Text: true},
		"ENDPOINTS_SECURITY":                {Pointer: "/security", Name: "security"},
		"ENDPOINTS_CORS":                    {Pointer: "/cors", Name: "cors"},
		"ENDPOINTS_IDEMPOTENCY_REPLAY":      {Pointer: "/idempotency/replay", Name: "idempotency.replay", Text: true},
		"ENDPOINTS_STORAGE_MAX_BYTES":       {Pointer: "/storage/maxBytes", Name: "storage.maxBytes", Size: true},
		"ENDPOINTS_STORAGE_KV_BYTES":        {Pointer: "/storage/kvBytes", Name: "storage.kvBytes", Size: true},
		"ENDPOINTS_LIMITS_JSON_DEPTH":       {Pointer: "/limits/jsonDepth", Name: "limits.jsonDepth"},
		"ENDPOINTS_SERVER_MAX_HEADER_BYTES": {Pointer: "/server/maxHeaderBytes", Name: "server.maxHeaderBytes", Size: true},
	} {
		want.Env = env
		want.Default = got[env].Default // TestSettingsDefaultsAreTheConstants checks those
		if got[env] != want {
			t.Errorf("%s: %+v, want %+v", env, got[env], want)
		}
	}
}

func TestOverridesFromEnv(t *testing.T) {
	o, warnings := config.OverridesFromEnv([]string{"HOME=/root", "ENDPOINTS_STORAGE_URL=redis://cache:6379/0", "ENDPOINTS_LIMITS_TIMEOUT=2s", "ENDPOINTS_OWN=x"}, "ENDPOINTS_OWN")
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	want := []config.Override{
		{Pointer: "/limits/timeout", Value: "2s", Source: "ENDPOINTS_LIMITS_TIMEOUT"},
		{Pointer: "/storage/url", Value: "redis://cache:6379/0", Source: "ENDPOINTS_STORAGE_URL"},
	}
	if len(o) != 2 || o[0] != want[0] || o[1] != want[1] {
		t.Errorf("OverridesFromEnv = %+v, want %+v", o, want)
	}
	// A misspelt variable is ignored with a warning that lists the right
	// names, rather than refusing to start.
	if o, w := config.OverridesFromEnv([]string{"ENDPOINTS_STORAGE_ULR=x", "ENDPOINTS_LIMITS_TIMEOUT=2s"}); len(o) != 1 || len(w) != 1 || !strings.Contains(w[0], "ENDPOINTS_STORAGE_ULR names no setting") || !strings.Contains(w[0], "did you mean ENDPOINTS_STORAGE_URL?") {
		t.Errorf("a misspelt variable: overrides %+v, warnings %q", o, w)
	}
	if o, err := config.ParseOverride("limits.bodyBytes=1024"); err != nil || o.Pointer != "/limits/bodyBytes" || o.Value != "1024" || o.Source != "--set limits.bodyBytes" {
		t.Errorf("ParseOverride = %+v, %v", o, err)
	}
	for _, bad := range []string{"limits.bodyBytes", "=1", "limits.bodyByte=1"} {
		if _, err := config.ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) passed", bad)
		}
	}
	// A misspelt setting's value may be a password: the error names the
	// setting, never the value.
	if _, err := config.ParseOverride("storage.ulr=redis://:s3cret@cache:6379/0"); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "--set storage.ulr: ") {
		t.Errorf("a misspelt setting: %v, want an error naming it without its value", err)
	}
}

// TestParseOverrides: overrides apply over the file (or without one), the
// last one of a setting wins, and an error in an overridden setting names
// the override.
func TestParseOverrides(t *testing.T) {
	set := func(args ...string) []config.Override {
		var out []config.Override
		for _, arg := range args {
			o, err := config.ParseOverride(arg)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	t.Run("no file, no override: every default", func(t *testing.T) {
		cfg, err := config.Parse(config.File, nil)
		if err != nil || cfg.Limits != (config.Limits{}) {
			t.Errorf("Parse(nil) = %+v, %v; want the zero App", cfg, err)
		}
	})
	t.Run("no file", func(t *testing.T) {
		cfg, err := config.Parse(config.File, nil, set("limits.bodyBytes=1024", "openApi.title=T")...)
		if err != nil || cfg.Limits.BodyBytes != 1024 || cfg.OpenAPI.Title != "T" {
			t.Errorf("got %+v, %v; want bodyBytes 1024 and title T", cfg, err)
		}
	})
	t.Run("the last override wins over the file", func(t *testing.T) {
		cfg, err := config.Parse(config.File, []byte(`{"limits": {"bodyBytes": 10}}`), set("limits.bodyBytes=20", "limits.bodyBytes=30")...)
		if err != nil || cfg.Limits.BodyBytes != 30 {
			t.Errorf("got %+v, %v; want bodyBytes 30", cfg, err)
		}
	})
	t.Run("an error names the override", func(t *testing.T) {
		_, err := config.Parse(config.File, []byte(`{}`), set("limits.bodyBytes=-1")...)
		want := "endpoints.json: /limits/bodyBytes: must be positive, got -1 (/limits/bodyBytes set by --set limits.bodyBytes)"
		if err == nil || err.Error() != want {
			t.Errorf("error = %v, want %s", err, want)
		}
	})
}

func TestMapEntryOverrides(t *testing.T) {
	env := []string{
		"ENDPOINTS_DATABASES_MAIN_URL=postgres://app@db:5432/app",
		"ENDPOINTS_DATABASES_MAIN_DRIVER=postgres",
		"ENDPOINTS_DATABASES_USER_DATA_MAX_CONNS=3",
	}
	o, warnings := config.OverridesFromEnv(env)
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	set, err := config.ParseOverride("databases.reports.statementTimeout=5s")
	if err != nil {
		t.Fatal(err)
	}
	_, err = config.Parse(config.File, []byte(`{"databases": {"main": {"path": "data/app.db"}}}`), append(o, set)...)
	if err == nil || !strings.Contains(err.Error(), "/databases/main/path: a postgres database takes a url") {
		t.Fatalf("the file's path kept beside an overridden driver: %v", err)
	}
	app, err := config.Parse(config.File, nil, append(o, set)...)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]config.Database{
		"main":      {Driver: "postgres", URL: "postgres://app@db:5432/app"},
		"user_data": {MaxConns: 3},
		"reports":   {StatementTimeout: config.Duration(5e9)},
	} {
		if got := app.Databases[name]; got != want {
			t.Errorf("databases.%s = %+v, want %+v", name, got, want)
		}
	}
	for _, bad := range []string{"ENDPOINTS_DATABASES__URL=x", "ENDPOINTS_DATABASES_MAIN_PORT=1"} {
		if o, warnings := config.OverridesFromEnv([]string{bad}); len(o) > 0 || len(warnings) != 1 {
			t.Errorf("%s: overrides %+v, warnings %q; want one warning and no override", bad, o, warnings)
		}
	}
}

func TestDatabasesChecked(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"databases": {"Main": {}}}`, "/databases/Main: a database name is lower-case"},
		{`{"databases": {"main": {"driver": "mysql"}}}`, `/databases/main/driver: "mysql" is not`},
		// No url is libpq's environment (the driver checks it); a path
		// is still not a postgres database's.
		{`{"databases": {"main": {"driver": "postgres", "path": "main.db"}}}`, "/databases/main/path: a postgres database takes a url, not a path"},
		// Two databases without a url would both be the one database
		// libpq's environment names, sharing its migrations table.
		{`{"databases": {"audit": {"driver": "postgres"}, "main": {"driver": "postgres"}}}`, `/databases/main/url: database audit has no url either, and libpq's environment (PGHOST, PGDATABASE...) names one database: both would be that one, their migrations in one table; give this one its url (ENDPOINTS_DATABASES_MAIN_URL)`},
		{`{"databases": {"main": {"driver": "sqlite", "url": "postgres://x"}}}`, "/databases/main/url: an sqlite database takes a path"},
		{`{"databases": {"main": {"maxConns": -1}}}`, "/databases/main/maxConns: must be positive"},
		{`{"databases": {"main": {"url": "postgress://app:secret@db/app"}}}`, `/databases/main/url: a postgres url starts with postgres:// or postgresql:// (or is key=value settings, host=db dbname=app), got one of scheme "postgress"`},
		{`{"databases": {"main": {"url": "mysql://db/app"}}}`, `/databases/main/url: a postgres url starts with postgres://`},
		// "://" mistyped, or no scheme: neither a url nor key=value
		// settings, which the driver only refused when the database was
		// first used, naming no variable.
		{`{"databases": {"main": {"driver": "postgres", "url": "postgres//app:secret@db:5432/app"}}}`, `/databases/main/url: neither a postgres:// url nor key=value settings (host=db dbname=app)`},
		{`{"databases": {"main": {"driver": "postgres", "url": "app:secret@db:5432/app?sslmode=disable"}}}`, `/databases/main/url: neither a postgres:// url nor key=value settings`},
		// What the driver refused only at first use, as "endpoints.json:
		// /databases/main: url: cannot parse", naming no variable: a
		// password with a "%" that encodes nothing, a port that is no
		// number, an sslmode libpq does not have.
		{`{"databases": {"main": {"url": "postgres://app:pa%ss@db:5432/app"}}}`, `/databases/main/url: is not a valid url; want postgres://user:password@host:5432/database, with @ : / ? # % in the user or password percent-encoded (%40 for @)`},
		{`{"databases": {"main": {"url": "postgres://app:secret@db:notaport/app"}}}`, `/databases/main/url: is not a valid url`},
		{`{"databases": {"main": {"url": "postgres://app:secret@db:5432/app?sslmode=bogus"}}}`, `/databases/main/url: sslmode "bogus" is not one of disable, allow, prefer, require, verify-ca, verify-full`},
		{`{"limits": {"sqlResultBytes": -1}}`, "/limits/sqlResultBytes: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := config.Parse(config.File, []byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	for _, good := range []string{"postgresql://app@db/app", "host=db dbname=app", "host=db dbname=app password='a b=c'", " host=db", "postgres://app:p%40ss@db1:5432,db2:5432/app?sslmode=verify-full&target_session_attrs=read-write", "postgres://app@/app?host=/run/postgresql"} {
		if _, err := config.Parse(config.File, []byte(`{"databases": {"main": {"url": "`+good+`"}}}`)); err != nil {
			t.Errorf("url %q: %v", good, err)
		}
	}
	// A url from the environment is checked as one from the file, and
	// the error names the variable; the password is never shown.
	for _, bad := range []string{"postgress://app:secret@db/app", "postgres//app:secret@db/app", "postgres://app:secret@db:x/app", "postgres://app:secret@db/app?sslmode=no"} {
		o, _ := config.OverridesFromEnv([]string{"ENDPOINTS_DATABASES_MAIN_DRIVER=postgres", "ENDPOINTS_DATABASES_MAIN_URL=" + bad})
		_, err := config.Parse(config.File, nil, o...)
		if err == nil || !strings.Contains(err.Error(), "(/databases/main/url set by ENDPOINTS_DATABASES_MAIN_URL)") || strings.Contains(err.Error(), "secret") {
			t.Errorf("a bad url from the environment, %s: %v", bad, err)
		}
	}
	app, err := config.Parse(config.File, []byte(`{"databases": {"main": {"url": "postgres://app@db/app"}}}`))
	if err != nil || app.Databases["main"].DriverName() != config.DatabasePostgres {
		t.Errorf("a url without a driver: %+v, %v; want postgres", app, err)
	}
	// The postgres driver without a url: libpq's environment (PGHOST...)
	// gives the settings, which only the environment that serves has.
	o, _ := config.OverridesFromEnv([]string{"ENDPOINTS_DATABASES_MAIN_DRIVER=postgres"})
	app, err = config.Parse(config.File, nil, o...)
	if err != nil {
		t.Fatalf("the postgres driver without a url: %v; want postgres from libpq's environment", err)
	}
	if d := app.Databases["main"]; d.DriverName() != config.DatabasePostgres || d.URL != "" {
		t.Errorf("the postgres driver without a url: %+v; want postgres from libpq's environment", d)
	}
}

// TestOverridesFromEnvIgnoresKubernetesServiceLinks: a Service named
// "endpoints" makes Kubernetes inject these variables into every pod of its
// namespace; they are neither overrides nor warnings. Names that merely
// look alike are still reported.
func TestOverridesFromEnvIgnoresKubernetesServiceLinks(t *testing.T) {
	links := []string{
		"ENDPOINTS_SERVICE_HOST=10.96.0.12",
		"ENDPOINTS_SERVICE_PORT=80",
		"ENDPOINTS_SERVICE_PORT_HTTP=80",
		"ENDPOINTS_PORT=tcp://10.96.0.12:80",
		"ENDPOINTS_PORT_80_TCP=tcp://10.96.0.12:80",
		"ENDPOINTS_PORT_80_TCP_PROTO=tcp",
		"ENDPOINTS_PORT_80_TCP_PORT=80",
		"ENDPOINTS_PORT_80_TCP_ADDR=10.96.0.12",
		"ENDPOINTS_PORT_5353_UDP_ADDR=10.96.0.12",
	}
	o, w := config.OverridesFromEnv(links)
	if len(o) != 0 || len(w) != 0 {
		t.Errorf("service links gave overrides %+v and warnings %q, want none", o, w)
	}
	for _, name := range []string{"ENDPOINTS_PORT_HTTP", "ENDPOINTS_PORT_80", "ENDPOINTS_PORT_80_QUIC", "ENDPOINTS_SERVICE_PORT_", "ENDPOINTS_SERVICE_HOSTNAME"} {
		if config.KubernetesServiceLink(name) {
			t.Errorf("KubernetesServiceLink(%q) = true, want false", name)
		}
	}
	for _, s := range config.Settings() {
		if config.KubernetesServiceLink(s.Env) {
			t.Errorf("the setting %s has a variable Kubernetes may inject: %s", s.Name, s.Env)
		}
	}
}

// TestOverridesFromEnvSuggestsTheNearest: a misspelt variable is answered
// with the variable it most likely meant, a database's with the database's
// own name in it. A common prefix alone suggested ENDPOINTS_DATABASES for
// ENDPOINTS_DATABSES_MAIN_URL and ENDPOINTS_DATABASES_{NAME}_DRIVER for
// ENDPOINTS_DATABASES_MAIN_MAXCONNS.
func TestOverridesFromEnvSuggestsTheNearest(t *testing.T) {
	tests := []struct{ env, want string }{
		{"ENDPOINTS_STORAGE_ULR", "did you mean ENDPOINTS_STORAGE_URL?"},
		{"ENDPOINTS_LIMITS_BODYBYTES", "did you mean ENDPOINTS_LIMITS_BODY_BYTES?"},
		{"ENDPOINTS_DATABSES_MAIN_URL", "did you mean ENDPOINTS_DATABASES_MAIN_URL?"},
		{"ENDPOINTS_DATABASES_MAIN_MAXCONNS", "did you mean ENDPOINTS_DATABASES_MAIN_MAX_CONNS?"},
		{"ENDPOINTS_DATABASES_REPORTS_STATEMENT_TIMOUT", "did you mean ENDPOINTS_DATABASES_REPORTS_STATEMENT_TIMEOUT?"},
		{"ENDPOINTS_SERVER_SHUTDOWN_TIMEOUTT", "did you mean ENDPOINTS_SERVER_SHUTDOWN_TIMEOUT?"},
		{"ENDPOINTS_STORAGE_DRIVR", "did you mean ENDPOINTS_STORAGE_DRIVER?"},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			_, w := config.OverridesFromEnv([]string{tt.env + "=x"})
			if len(w) != 1 || !strings.Contains(w[0], tt.want) {
				t.Errorf("warnings = %q; want one that says %q", w, tt.want)
			}
		})
	}
}

// TestOverrideMakingAnEntry: an override whose entry name is misspelled
// makes a new entry, which then lacks a required member; the error names
// the override that made it, so the operator finds the typo, and an
// entry of the file the overrides did not touch is not blamed on them.
func TestOverrideMakingAnEntry(t *testing.T) {
	file := []byte(`{"rateLimits": {"orders": {"routes": ["/api/orders"], "limit": 20, "window": "1m"}}}`)
	for _, tt := range []struct {
		name string
		file []byte
		env  []string
		want string // "" when the error must name no override
	}{
		{"a misspelled rate limit", file, []string{"ENDPOINTS_RATE_LIMITS_ORDRS_LIMIT=5"},
			"(the entry /rateLimits/ordrs has /rateLimits/ordrs/limit set by ENDPOINTS_RATE_LIMITS_ORDRS_LIMIT: is its name the one you meant?)"},
		{"the file's own entry", []byte(`{"rateLimits": {"a": {"routes": ["/x"], "limit": 1}}}`), []string{"ENDPOINTS_RATE_LIMITS_B_LIMIT=5"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, _ := config.OverridesFromEnv(tt.env)
			_, err := config.Parse(config.File, tt.file, o...)
			switch {
			case err == nil:
				t.Fatal("no error")
			case tt.want == "" && strings.Contains(err.Error(), "set by"):
				t.Errorf("got %v, want no override named", err)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}
