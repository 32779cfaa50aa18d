package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

func TestAuthFailures(t *testing.T) {
	tests := []struct {
		name, file string
		want       config.AuthFailures // with defaults
		wantErr    string
	}{
		{"absent: the defaults", `{}`, config.AuthFailures{PerAddress: 10, PerUser: 50, Window: config.Duration(time.Minute)}, ""},
		{"set", `{"authFailures": {"perAddress": 3, "perUser": 20, "window": "10m"}}`, config.AuthFailures{PerAddress: 3, PerUser: 20, Window: config.Duration(10 * time.Minute)}, ""},
		{"partly set", `{"authFailures": {"perUser": 100}}`, config.AuthFailures{PerAddress: 10, PerUser: 100, Window: config.Duration(time.Minute)}, ""},
		{"a negative budget", `{"authFailures": {"perAddress": -1}}`, config.AuthFailures{}, "endpoints.json: /authFailures/perAddress: must be positive, got -1"},
		{"a negative user budget", `{"authFailures": {"perUser": -5}}`, config.AuthFailures{}, "endpoints.json: /authFailures/perUser: must be positive, got -5"},
		{"a window that is no duration", `{"authFailures": {"window": "soon"}}`, config.AuthFailures{}, `"soon" is not a positive duration`},
		{"an unknown member", `{"authFailures": {"perIP": 3}}`, config.AuthFailures{}, "perIP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse(config.File, []byte(tt.file))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want it to contain %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.AuthFailures.WithDefaults(); got != tt.want {
				t.Errorf("AuthFailures = %+v, want %+v", got, tt.want)
			}
		})
	}
}
