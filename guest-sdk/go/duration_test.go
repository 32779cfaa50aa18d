//go:build !wasip1

package endpoints

import (
	"testing"
	"time"
)

func TestShortDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{5 * time.Minute, "5m"},
		{time.Hour, "1h"},
		{2*time.Hour + 30*time.Minute, "2h30m"},
		{time.Hour + 30*time.Second, "1h0m30s"},
		{90 * time.Second, "1m30s"},
		{30 * time.Second, "30s"},
		{1500 * time.Millisecond, "1.5s"},
		{250 * time.Millisecond, "250ms"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			if got := shortDuration(tt.d); got != tt.want {
				t.Errorf("shortDuration(%v) = %q, want %q", tt.d, got, tt.want)
			}
			if back, err := time.ParseDuration(tt.want); err != nil || back != tt.d {
				t.Errorf("%q parses back to %v, %v", tt.want, back, err)
			}
		})
	}
}
