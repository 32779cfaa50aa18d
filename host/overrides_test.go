package host_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestConfigOverrides: overrides apply over endpoints.json (or without
// one), at start and at reloads, and an error in an overridden value names
// the override.
func TestConfigOverrides(t *testing.T) {
	a := newApp(t).wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
	set := func(s ...string) []config.Override {
		var out []config.Override
		for _, arg := range s {
			o, err := config.ParseOverride(arg)
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
		{"limits.bodyBytes=lots", `/limits/bodyBytes: "lots" is not a size`},
		{"limits.bodyBytes=lots", `(/limits/bodyBytes set by --set limits.bodyBytes)`},
		{"limits.instances=lots", `--set limits.instances: /limits/instances takes JSON (a number, true or false, an object), got "lots"`},
		{"limits.timeout=soon", "/limits/timeout"},
	} {
		_, err := host.New(t.Context(), a.dir, host.Options{ConfigOverrides: set(tt.arg), CacheDir: "off"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--set %s: %v, want %q", tt.arg, err, tt.want)
		}
	}
}
