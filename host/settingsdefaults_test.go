package host

import (
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

// TestMergeResolvesStorageAndOutbound: the options the host runs with
// carry config's defaults for storage and outbound, filled after the
// embedder's Options are merged over endpoints.json, so a maxBytes set
// on one side still splits into the budgets the other side leaves out.
func TestMergeResolvesStorageAndOutbound(t *testing.T) {
	tests := []struct {
		name        string
		opts        Options
		file        *config.App
		wantStorage config.Storage
		wantPerHost int
	}{
		{"nothing set: every default", Options{}, &config.App{},
			config.Storage{}.WithDefaults(), config.DefaultOutboundMaxConcurrentPerHost},
		{"no file at all", Options{}, nil,
			config.Storage{}.WithDefaults(), config.DefaultOutboundMaxConcurrentPerHost},
		{"Options' maxBytes splits, the file's kvBytes stays", Options{Storage: config.Storage{MaxBytes: 16 << 20}},
			&config.App{Storage: config.Storage{KVBytes: 1 << 20}, Outbound: config.Outbound{MaxConcurrentPerHost: 8}},
			config.Storage{Driver: config.DriverMemory, MaxBytes: 16 << 20, KVBytes: 1 << 20, IdempotencyBytes: 6 << 20, RateLimitBytes: 2 << 20, IdempotencyClientBytes: 6 << 20 / 16}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.opts.merge(tt.file)
			if got.Storage != tt.wantStorage {
				t.Errorf("Storage = %+v, want %+v", got.Storage, tt.wantStorage)
			}
			if got.Outbound.MaxConcurrentPerHost != tt.wantPerHost {
				t.Errorf("Outbound.MaxConcurrentPerHost = %d, want %d", got.Outbound.MaxConcurrentPerHost, tt.wantPerHost)
			}
		})
	}
}
