package config_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

func TestCompression(t *testing.T) {
	tests := []struct {
		name, file string
		overrides  []config.Override
		want       config.Compression // with defaults
		wantErr    string
	}{
		{"absent: on, the defaults", `{}`, nil, config.Compression{MinBytes: 1024, Level: "fastest"}, ""},
		{"off", `{"server": {"compression": {"off": true}}}`, nil, config.Compression{Off: true, MinBytes: 1024, Level: "fastest"}, ""},
		{"a size with a unit and a level", `{"server": {"compression": {"minBytes": "4KiB", "level": "default"}}}`, nil, config.Compression{MinBytes: 4096, Level: "default"}, ""},
		{"best", `{"server": {"compression": {"level": "best"}}}`, nil, config.Compression{MinBytes: 1024, Level: "best"}, ""},
		{"off from the environment", `{}`, []config.Override{{Pointer: "/server/compression/off", Value: "true", Source: "ENDPOINTS_SERVER_COMPRESSION_OFF"}}, config.Compression{Off: true, MinBytes: 1024, Level: "fastest"}, ""},
		{"an unknown level", `{"server": {"compression": {"level": "max"}}}`, nil, config.Compression{}, `endpoints.json: /server/compression/level: "max" is not one of "fastest", "default", "best"`},
		{"a negative size", `{"server": {"compression": {"minBytes": -1}}}`, nil, config.Compression{}, "endpoints.json: /server/compression/minBytes: must be positive, got -1"},
		{"a decimal unit", `{"server": {"compression": {"minBytes": "1KB"}}}`, nil, config.Compression{}, `write "1KiB"`},
		{"off that is not a boolean", `{"server": {"compression": {"off": "yes"}}}`, nil, config.Compression{}, "/server/compression/off"},
		{"an unknown member", `{"server": {"compression": {"gzipLevel": 9}}}`, nil, config.Compression{}, `unknown key "gzipLevel"; allowed here: off, minBytes, level`},
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
			if got := cfg.Server.WithDefaults().Compression; got != tt.want {
				t.Errorf("Compression = %+v, want %+v", got, tt.want)
			}
		})
	}
}
