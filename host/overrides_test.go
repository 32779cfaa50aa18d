package host_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

func TestConfigSettings(t *testing.T) {
	got := map[string]host.ConfigSetting{}
	for _, s := range host.ConfigSettings() {
		got[s.Env] = s
	}
	for env, want := range map[string]host.ConfigSetting{
		"ENDPOINTS_STORAGE_URL":             {Pointer: "/storage/url", Text: true},
		"ENDPOINTS_LIMITS_MEMORY_BYTES":     {Pointer: "/limits/memoryBytes"},
		"ENDPOINTS_LIMITS_TIMEOUT":          {Pointer: "/limits/timeout", Text: true},
		"ENDPOINTS_OPEN_API_TITLE":          {Pointer: "/openApi/title", Text: true},
		"ENDPOINTS_OPEN_API_DOCS_PATH":      {Pointer: "/openApi/docs/path", Text: true},
		"ENDPOINTS_SERVER_IDLE_TIMEOUT":     {Pointer: "/server/idleTimeout", Text: true},
		"ENDPOINTS_RESPONSE_VALIDATION":     {Pointer: "/responseValidation", Text: true},
		"ENDPOINTS_SECURITY":                {Pointer: "/security"},
		"ENDPOINTS_CORS":                    {Pointer: "/cors"},
		"ENDPOINTS_IDEMPOTENCY_REPLAY":      {Pointer: "/idempotency/replay", Text: true},
		"ENDPOINTS_STORAGE_MAX_BYTES":       {Pointer: "/storage/maxBytes"},
		"ENDPOINTS_LIMITS_JSON_DEPTH":       {Pointer: "/limits/jsonDepth"},
		"ENDPOINTS_SERVER_MAX_HEADER_BYTES": {Pointer: "/server/maxHeaderBytes"},
	} {
		want.Env = env
		if got[env] != want {
			t.Errorf("%s: %+v, want %+v", env, got[env], want)
		}
	}
}

func TestOverridesFromEnv(t *testing.T) {
	o, err := host.OverridesFromEnv([]string{"HOME=/root", "ENDPOINTS_STORAGE_URL=redis://cache:6379/0", "ENDPOINTS_LIMITS_TIMEOUT=2s", "ENDPOINTS_OWN=x"}, "ENDPOINTS_OWN")
	if err != nil {
		t.Fatal(err)
	}
	want := []host.ConfigOverride{
		{Pointer: "/limits/timeout", Value: "2s", Source: "ENDPOINTS_LIMITS_TIMEOUT"},
		{Pointer: "/storage/url", Value: "redis://cache:6379/0", Source: "ENDPOINTS_STORAGE_URL"},
	}
	if len(o) != 2 || o[0] != want[0] || o[1] != want[1] {
		t.Errorf("OverridesFromEnv = %+v, want %+v", o, want)
	}
	if _, err := host.OverridesFromEnv([]string{"ENDPOINTS_STORAGE_ULR=x"}); err == nil || !strings.Contains(err.Error(), "ENDPOINTS_STORAGE_ULR names no setting") || !strings.Contains(err.Error(), "ENDPOINTS_STORAGE_URL") {
		t.Errorf("a misspelt variable: %v", err)
	}
	if o, err := host.ParseOverride("limits.bodyBytes=1024"); err != nil || o.Pointer != "/limits/bodyBytes" || o.Value != "1024" || o.Source != "--set limits.bodyBytes" {
		t.Errorf("ParseOverride = %+v, %v", o, err)
	}
	for _, bad := range []string{"limits.bodyBytes", "=1", "limits.bodyByte=1"} {
		if _, err := host.ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) passed", bad)
		}
	}
}

// TestConfigOverrides: overrides apply over endpoints.json (or without
// one), at start and at reloads, and an error in an overridden value names
// the override.
func TestConfigOverrides(t *testing.T) {
	a := newApp(t).wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
	set := func(s ...string) []host.ConfigOverride {
		var out []host.ConfigOverride
		for _, arg := range s {
			o, err := host.ParseOverride(arg)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	// No endpoints.json at all.
	h, _ := a.host(host.Options{Mode: host.Development, ConfigOverrides: set("limits.bodyBytes=1024", "openApi.title=From the environment", "idempotency.replay=1h")})
	cfg := h.AppConfig()
	if cfg.Limits.BodyBytes != 1024 || cfg.OpenAPI.Title != "From the environment" || time.Duration(cfg.Idempotency.Replay) != time.Hour {
		t.Errorf("effective configuration %+v", cfg)
	}
	if rec := get(h, "/_endpoints/schema"); !strings.Contains(rec.Body.String(), `"title": "From the environment"`) {
		t.Errorf("the document's title: %s", rec.Body)
	}
	// Over endpoints.json, whose openApi shorthand the override expands;
	// a reload of a changed file keeps the override.
	a.file("endpoints.json", []byte(`{"openApi": true, "limits": {"bodyBytes": 10, "timeout": "1s"}}`))
	h, _ = a.host(host.Options{Mode: host.Development, ConfigOverrides: set("limits.bodyBytes=2048", "openApi.version=9.9.9")})
	if cfg := h.AppConfig(); cfg.Limits.BodyBytes != 2048 || time.Duration(cfg.Limits.Timeout) != time.Second || cfg.OpenAPI.Version != "9.9.9" {
		t.Errorf("effective configuration %+v", cfg.Limits)
	}
	a.file("endpoints.json", []byte(`{"limits": {"bodyBytes": 10, "timeout": "3s"}}`))
	if r := h.Reload(t.Context()); len(r.Problems) > 0 {
		t.Fatal(r)
	}
	if cfg := h.AppConfig(); cfg.Limits.BodyBytes != 2048 || time.Duration(cfg.Limits.Timeout) != 3*time.Second {
		t.Errorf("after a reload: %+v", cfg.Limits)
	}
	for _, tt := range []struct{ arg, want string }{
		{"limits.memoryBytes=12", "/limits/memoryBytes: must be at least 131072 (two 64 KiB pages), got 12 (/limits/memoryBytes set by --set limits.memoryBytes)"},
		{"limits.bodyBytes=lots", `--set limits.bodyBytes: /limits/bodyBytes takes JSON (a number, true or false, an object), got "lots"`},
		{"limits.timeout=soon", "/limits/timeout"},
	} {
		_, err := host.New(t.Context(), a.dir, host.Options{ConfigOverrides: set(tt.arg), CacheDir: "off"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--set %s: %v, want %q", tt.arg, err, tt.want)
		}
	}
}
