package config_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

func TestServerPipelining(t *testing.T) {
	tests := []struct {
		name, file string
		overrides  []config.Override
		want       string // with defaults
		wantErr    string
	}{
		{"absent: close", `{}`, nil, "close", ""},
		{"close", `{"server": {"pipelining": "close"}}`, nil, "close", ""},
		{"serve", `{"server": {"pipelining": "serve"}}`, nil, "serve", ""},
		{"serve from the environment", `{}`, []config.Override{{Pointer: "/server/pipelining", Value: "serve", Source: "ENDPOINTS_SERVER_PIPELINING"}}, "serve", ""},
		{"an unknown value", `{"server": {"pipelining": "queue"}}`, nil, "", `endpoints.json: /server/pipelining: "queue" is not one of "close" (the default) and "serve"`},
		{"not text", `{"server": {"pipelining": false}}`, nil, "", "/server/pipelining"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse(config.File, []byte(tt.file), tt.overrides...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want it to contain %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Server.WithDefaults().Pipelining; got != tt.want {
				t.Errorf("Pipelining = %q, want %q", got, tt.want)
			}
		})
	}
}
