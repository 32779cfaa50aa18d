package ratelimit_test

import (
	"net/http"
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
