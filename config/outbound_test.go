package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

func TestOutboundAllowedHostsFromEnvAreCommaSeparated(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"comma-separated", "https://api.example.com, http://127.0.0.1:8089,"},
		{"a JSON array", `["https://api.example.com","http://127.0.0.1:8089"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, warnings := config.OverridesFromEnv([]string{"ENDPOINTS_OUTBOUND_ALLOWED_HOSTS=" + tc.value})
			if len(warnings) > 0 {
				t.Fatal(warnings)
			}
			app, err := config.Parse(config.File, []byte(`{"outbound": {"allowedHosts": ["https://old.example"]}}`), o...)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"https://api.example.com", "http://127.0.0.1:8089"}
			if !slices.Equal(app.Outbound.AllowedHosts, want) {
				t.Errorf("allowedHosts = %q, want %q", app.Outbound.AllowedHosts, want)
			}
		})
	}
	// Another list setting takes the same form.
	o := []config.Override{{Pointer: "/trustedProxies", Value: "10.0.0.0/8,192.168.1.1", Source: "ENDPOINTS_TRUSTED_PROXIES"}}
	app, err := config.Parse(config.File, nil, o...)
	if err != nil || !slices.Equal(app.TrustedProxies, []string{"10.0.0.0/8", "192.168.1.1"}) {
		t.Errorf("trustedProxies = %q, %v", app.TrustedProxies, err)
	}
}

func TestOutboundSettingsAreCheckedAtLoad(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"no scheme", `{"outbound": {"allowedHosts": ["https://ok.example", "api.example.com"]}}`,
			`endpoints.json: /outbound/allowedHosts/1: "api.example.com": want scheme://host[:port]`},
		{"a path", `{"outbound": {"allowedHosts": ["https://api.example.com/v1"]}}`, "/outbound/allowedHosts/0"},
		{"a decimal address", `{"outbound": {"allowedHosts": ["http://2130706433"]}}`, "dotted-decimal"},
		{"a negative bound", `{"outbound": {"maxConcurrentPerHost": -1}}`, "/outbound/maxConcurrentPerHost: must be positive"},
		{"negative outboundBytes", `{"limits": {"outboundBytes": -1}}`, "/limits/outboundBytes: must be positive"},
		{"negative outboundRequests", `{"limits": {"outboundRequests": -1}}`, "/limits/outboundRequests: must be positive"},
		{"negative outboundHeaderBytes", `{"limits": {"outboundHeaderBytes": -1}}`, "/limits/outboundHeaderBytes: must be positive"},
		{"an unknown key", `{"outbound": {"allowHosts": []}}`, "allowed here: allowedHosts, caFile, maxConcurrentPerHost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse(config.File, []byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	o := []config.Override{{Pointer: "/outbound/allowedHosts", Value: "ftp://x", Source: "ENDPOINTS_OUTBOUND_ALLOWED_HOSTS"}}
	if _, err := config.Parse(config.File, nil, o...); err == nil || !strings.Contains(err.Error(), "set by ENDPOINTS_OUTBOUND_ALLOWED_HOSTS") {
		t.Errorf("a bad entry from the environment: %v, want it to name the variable", err)
	}
}
