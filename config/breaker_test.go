package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

// TestBreakerLimits: the breaker's settings of a bundle's routes are read
// from endpoints.json and the environment, take their defaults when
// absent, are listed with them, and a bad one names the setting (and the
// variable that set it).
func TestBreakerLimits(t *testing.T) {
	cfg, err := config.Parse(config.File, []byte(`{"limits": {"breakerTrappedCalls": 2, "breakerPause": "3s", "breakerMaxPause": "1m", "breakerClients": 64}}`))
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Limits; l.BreakerTrappedCalls != 2 || time.Duration(l.BreakerPause) != 3*time.Second || time.Duration(l.BreakerMaxPause) != time.Minute || l.BreakerClients != 64 {
		t.Errorf("limits = %+v, want the breaker's 2, 3s, 1m, 64", l)
	}
	env, warnings := config.OverridesFromEnv([]string{"ENDPOINTS_LIMITS_BREAKER_TRAPPED_CALLS=3", "ENDPOINTS_LIMITS_BREAKER_PAUSE=2s"})
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	cfg, err = config.Parse(config.File, nil, env...)
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Limits.WithDefaults(); l.BreakerTrappedCalls != 3 || time.Duration(l.BreakerPause) != 2*time.Second ||
		time.Duration(l.BreakerMaxPause) != config.DefaultBreakerMaxPause || l.BreakerClients != config.DefaultBreakerClients {
		t.Errorf("limits from the environment, with defaults = %+v", l)
	}
	if l := (config.Limits{BreakerPause: config.Duration(time.Minute)}).WithDefaults(); time.Duration(l.BreakerMaxPause) != time.Minute {
		t.Errorf("breakerPause 1m alone: breakerMaxPause %v, want 1m", time.Duration(l.BreakerMaxPause))
	}
	defaults := map[string]string{"limits.breakerTrappedCalls": "5", "limits.breakerPause": "1s", "limits.breakerMaxPause": "30s", "limits.breakerClients": "1024"}
	for _, s := range config.Settings() {
		if want, ok := defaults[s.Name]; ok {
			if s.Default != want {
				t.Errorf("setting %s: default %q, want %q", s.Name, s.Default, want)
			}
			delete(defaults, s.Name)
		}
	}
	if len(defaults) > 0 {
		t.Errorf("settings not listed: %v", defaults)
	}

	for _, tt := range []struct{ json, want string }{
		{`{"limits": {"breakerTrappedCalls": -1}}`, "/limits/breakerTrappedCalls: must be positive, got -1"},
		// 0 reads as "off", but there is no off: it silently meant the
		// default.
		{`{"limits": {"breakerTrappedCalls": 0}}`, "/limits/breakerTrappedCalls: must be at least 1, got 0, which does not turn the breaker off (nothing does); leave it out for the default, 5 trapped calls in a row"},
		{`{"limits": {"breakerClients": 0}}`, "/limits/breakerClients: must be between 1 and 1048576, got 0, which does not turn the breaker off (nothing does); leave it out for the default, 1024 clients"},
		{`{"limits": {"breakerMaxPause": "0s"}}`, `/limits/breakerMaxPause: "0s" is not a positive duration`},
		{`{"limits": {"breakerTrappedCalls": "five"}}`, "/limits/breakerTrappedCalls: want a whole number"},
		{`{"limits": {"breakerPause": "0s"}}`, `/limits/breakerPause: "0s" is not a positive duration`},
		{`{"limits": {"breakerPause": "25h"}}`, "/limits/breakerPause: must be at most 24h0m0s, got 25h0m0s"},
		{`{"limits": {"breakerMaxPause": "48h"}}`, "/limits/breakerMaxPause: must be at most 24h0m0s, got 48h0m0s"},
		{`{"limits": {"breakerPause": "10s", "breakerMaxPause": "5s"}}`, "/limits/breakerMaxPause: must be at least limits.breakerPause (10s), got 5s"},
		{`{"limits": {"breakerMaxPause": "500ms"}}`, "/limits/breakerMaxPause: must be at least limits.breakerPause (1s), got 500ms"},
		{`{"limits": {"breakerClients": -1}}`, "/limits/breakerClients: must be between 1 and 1048576"},
		{`{"limits": {"breakerClients": 2000000}}`, "/limits/breakerClients: must be between 1 and 1048576 (each client kept costs about 200 bytes a route), got 2000000"},
	} {
		if _, err := config.Parse(config.File, []byte(tt.json)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.json, err, tt.want)
		}
	}
	env, _ = config.OverridesFromEnv([]string{"ENDPOINTS_LIMITS_BREAKER_TRAPPED_CALLS=0"})
	if _, err := config.Parse(config.File, []byte(`{"limits": {"breakerTrappedCalls": 3}}`), env...); err == nil ||
		!strings.Contains(err.Error(), "/limits/breakerTrappedCalls: must be at least 1, got 0") || !strings.Contains(err.Error(), "(/limits/breakerTrappedCalls set by ENDPOINTS_LIMITS_BREAKER_TRAPPED_CALLS)") {
		t.Errorf("breakerTrappedCalls 0 from the environment: %v, want it refused, naming the variable", err)
	}
	if _, err := config.Parse(config.File, []byte(`{"limits": {"breakerTrappedCalls": null, "breakerClients": null}}`)); err != nil {
		t.Errorf("the breaker's counts given as null (absent): %v", err)
	}
	env, _ = config.OverridesFromEnv([]string{"ENDPOINTS_LIMITS_BREAKER_CLIENTS=-5"})
	if _, err := config.Parse(config.File, nil, env...); err == nil || !strings.Contains(err.Error(), "(/limits/breakerClients set by ENDPOINTS_LIMITS_BREAKER_CLIENTS)") {
		t.Errorf("a bad breakerClients from the environment: %v, want it to name the variable", err)
	}
}
