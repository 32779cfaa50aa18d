package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

func TestServerRefusalPause(t *testing.T) {
	tests := []struct {
		name, file string
		overrides  []config.Override
		want       time.Duration // in effect
		wantErr    string
	}{
		{"absent: the default", `{}`, nil, config.DefaultRefusalPause, ""},
		{"a duration", `{"server": {"refusalPause": "250ms"}}`, nil, 250 * time.Millisecond, ""},
		{"0 turns it off", `{"server": {"refusalPause": "0"}}`, nil, 0, ""},
		{"0s turns it off", `{"server": {"refusalPause": "0s"}}`, nil, 0, ""},
		{"off from the environment", `{}`, []config.Override{{Pointer: "/server/refusalPause", Value: "0", Source: "ENDPOINTS_SERVER_REFUSAL_PAUSE"}}, 0, ""},
		{"negative", `{"server": {"refusalPause": "-1s"}}`, nil, 0, `endpoints.json: /server/refusalPause: "-1s" is not a duration such as "100ms", or "0" to turn the pause off`},
		{"no unit", `{"server": {"refusalPause": "100"}}`, nil, 0, `/server/refusalPause: "100" is not a duration`},
		{"not text", `{"server": {"refusalPause": 0.1}}`, nil, 0, "/server/refusalPause"},
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
			if got := cfg.Server.RefusalPauseDuration(); got != tt.want {
				t.Errorf("RefusalPauseDuration = %s, want %s", got, tt.want)
			}
			if got := cfg.Server.WithDefaults().RefusalPauseDuration(); got != tt.want {
				t.Errorf("with defaults, RefusalPauseDuration = %s, want %s", got, tt.want)
			}
		})
	}
}
