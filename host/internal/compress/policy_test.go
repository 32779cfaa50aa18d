package compress_test

import (
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/compress"
)

func TestNegotiate(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   string
	}{
		{"none", nil, ""},
		{"empty", []string{""}, ""},
		{"a browser's", []string{"gzip, deflate, br, zstd"}, compress.Gzip},
		{"zstd preferred", []string{"zstd, gzip;q=0.9"}, compress.Zstd},
		{"zstd only", []string{"zstd"}, compress.Zstd},
		{"gzip only", []string{"gzip"}, compress.Gzip},
		{"x-gzip is gzip", []string{"x-gzip"}, compress.Gzip},
		{"case and spaces", []string{" GZip ; Q=0.8 "}, compress.Gzip},
		{"gzip wins a tie", []string{"zstd, gzip"}, compress.Gzip},
		{"the higher q wins", []string{"zstd;q=0.5, gzip"}, compress.Gzip},
		{"gzip refused", []string{"gzip;q=0"}, ""},
		{"gzip refused, identity asked", []string{"gzip;q=0, identity"}, ""},
		{"identity preferred", []string{"gzip;q=0.5, identity;q=1"}, ""},
		{"a coding ties identity", []string{"gzip, identity"}, compress.Gzip},
		{"identity refused, gzip accepted", []string{"identity;q=0, gzip"}, compress.Gzip},
		{"a star", []string{"*"}, compress.Gzip},
		{"gzip refused, the star stands for zstd", []string{"gzip;q=0, *"}, compress.Zstd},
		{"a star refused", []string{"*;q=0"}, ""},
		{"a star refused but gzip listed", []string{"gzip, *;q=0"}, compress.Gzip},
		{"zstd refused, the star stands for gzip", []string{"zstd;q=0, *"}, compress.Gzip},
		{"a malformed q refuses", []string{"gzip;q=lots"}, ""},
		{"a q above 1 refuses", []string{"gzip;q=2"}, ""},
		{"other codings only", []string{"br, deflate"}, ""},
		{"two fields", []string{"br", "gzip;q=0.3"}, compress.Gzip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compress.Negotiate(tt.values); got != tt.want {
				t.Errorf("Negotiate(%q) = %q, want %q", tt.values, got, tt.want)
			}
		})
	}
}

func TestCompressible(t *testing.T) {
	tests := []struct {
		contentType string
		want        bool
	}{
		{"application/json", true},
		{"application/json; charset=utf-8", true},
		{"Application/JSON", true},
		{"application/problem+json", true},
		{"application/vnd.api+json", true},
		{"text/plain; charset=utf-8", true},
		{"text/event-stream", true}, // never held: a stream has no Content-Length
		{"text/csv", true},
		{"image/svg+xml", true},
		{"application/xml", true},
		{"application/yaml", true},
		{"application/javascript", true},
		{"application/wasm", true},
		{"application/x-ndjson", true},
		{"image/png", false},
		{"image/jpeg", false},
		{"video/mp4", false},
		{"audio/ogg", false},
		{"application/zip", false},
		{"application/gzip", false},
		{"application/zstd", false},
		{"application/pdf", false},
		{"font/woff2", false},
		{"application/octet-stream", false},
		{"", false},
		{"json", false},
	}
	for _, tt := range tests {
		t.Run(tt.contentType, func(t *testing.T) {
			if got := compress.Compressible(tt.contentType); got != tt.want {
				t.Errorf("Compressible(%q) = %v, want %v", tt.contentType, got, tt.want)
			}
		})
	}
}

func TestParseLevel(t *testing.T) {
	for name, want := range map[string]compress.Level{"fastest": compress.Fastest, "default": compress.Default, "best": compress.Best} {
		if got, err := compress.ParseLevel(name); err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := compress.ParseLevel("max"); err == nil {
		t.Error(`ParseLevel("max") succeeded, want an error naming the levels`)
	}
}
