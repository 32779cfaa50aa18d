package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

func TestAppNamespace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	for _, tt := range []struct {
		name, namespace, want, wantErr string
	}{
		{"the directory's name by default", "", "shop", ""},
		{"the configured one", "orders", "orders", ""},
		{"separators are fine", "a:b/c", "a:b/c", ""},
		{"a NUL byte is the host's", "shop\x00host", "", "/storage/namespace: the namespace \"shop\\x00host\" holds a NUL byte"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Storage{Namespace: tt.namespace}.AppNamespace(dir)
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("AppNamespace = %q, %v; want an error containing %q", got, err, tt.wantErr)
			case tt.wantErr == "" && (err != nil || got != tt.want):
				t.Errorf("AppNamespace = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
