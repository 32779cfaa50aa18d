package breaker

import (
	"testing"
	"time"
)

// BenchmarkBreakerServed is a call that serves: on a route none of whose
// clients' last call trapped (an atomic load), and on one that keeps the
// state of another client (the lock and a map lookup; the host also works
// out the client's key then, BenchmarkClientKey in host/internal/edge).
func BenchmarkBreakerServed(b *testing.B) {
	for _, tt := range []struct {
		name    string
		tracked bool
	}{{"untracked", false}, {"tracked", true}} {
		b.Run(tt.name, func(b *testing.B) {
			var br Breaker
			now := time.Now()
			if tt.tracked {
				br.Done(now, "ip:192.0.2.1", Trapped, false, policy)
			}
			b.ReportAllocs()
			for b.Loop() {
				if br.Tracking() {
					_, probe, _ := br.Allow(now, "ip:198.51.100.7", policy)
					br.Done(now, "ip:198.51.100.7", Served, probe, policy)
				}
			}
		})
	}
}
