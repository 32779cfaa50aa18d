package ratelimit_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/ratelimit"
	"github.com/wasmendpoints/endpoints/storage"
)

func TestSetHeaders(t *testing.T) {
	tests := []struct {
		name                        string
		rate                        storage.Rate
		d                           storage.Decision
		wantPolicy, wantLimit, want string
	}{
		{"allowed", storage.Rate{Limit: 10, Window: time.Minute}, storage.Decision{Allowed: true, Remaining: 7, Reset: 18 * time.Second},
			`"orders";q=10;w=60`, `"orders";r=7;t=18`, ""},
		{"refused, with a burst", storage.Rate{Limit: 10, Window: time.Minute, Burst: 3}, storage.Decision{RetryAfter: 5500 * time.Millisecond, Reset: 18 * time.Second},
			`"orders";q=3;w=60`, `"orders";r=0;t=18`, "6"},
		{"refused for less than a second", storage.Rate{Limit: 100, Window: time.Second}, storage.Decision{RetryAfter: 10 * time.Millisecond, Reset: time.Second},
			`"orders";q=100;w=1`, `"orders";r=0;t=1`, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			ratelimit.SetHeaders(h, "orders", tt.rate, tt.d)
			if h.Get("RateLimit-Policy") != tt.wantPolicy || h.Get("RateLimit") != tt.wantLimit || h.Get("Retry-After") != tt.want {
				t.Errorf("got %v\nwant RateLimit-Policy %s, RateLimit %s, Retry-After %q", h, tt.wantPolicy, tt.wantLimit, tt.want)
			}
		})
	}
}

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name, remote, xff, want string
	}{
		{"no proxy", "203.0.113.7:5000", "", "203.0.113.7"},
		{"an untrusted peer's X-Forwarded-For is ignored", "203.0.113.7:5000", "198.51.100.1", "203.0.113.7"},
		{"a trusted proxy: the right-most untrusted hop", "10.0.0.2:80", "6.6.6.6, 198.51.100.1, 10.0.0.9", "198.51.100.1"},
		{"a trusted proxy without the header", "10.0.0.2:80", "", "10.0.0.2"},
		{"garbage stops the walk", "10.0.0.2:80", "nope, 10.0.0.5", "10.0.0.5"},
		{"IPv4 in IPv6", "[::ffff:203.0.113.7]:1", "", "203.0.113.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if got := ratelimit.ClientIP(r, proxies); got != tt.want {
				t.Errorf("ClientIP = %s, want %s", got, tt.want)
			}
		})
	}
}
