package burst

import (
	"testing"
	"time"
)

func TestWait(t *testing.T) {
	const quiet, longest = 10 * time.Millisecond, 100 * time.Millisecond
	began := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		since time.Duration // from the burst's first change to now
		want  time.Duration
	}{
		{"the first change waits the quiet time", 0, quiet},
		{"a later change waits the quiet time again", 50 * time.Millisecond, quiet},
		{"near the longest wait, what is left of it", 95 * time.Millisecond, 5 * time.Millisecond},
		{"past the longest wait, at once", 120 * time.Millisecond, -20 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wait(began, began.Add(tc.since), quiet, longest); got != tc.want {
				t.Errorf("wait after %v = %v, want %v", tc.since, got, tc.want)
			}
		})
	}
}

// TestTimerBurstAfterFired: changes of one burst fire; after Fired, a
// change begins a burst of its own, timed from it.
func TestTimerBurstAfterFired(t *testing.T) {
	b := New(time.Millisecond, time.Hour)
	defer b.Stop()
	start := time.Now()
	b.Touch(start)
	b.Touch(start)
	<-b.C()
	b.Fired()
	later := start.Add(2 * time.Hour) // past the first burst's longest wait
	b.Touch(later)
	if b.began != later {
		t.Fatalf("after Fired, a change began a burst at %v, want %v", b.began, later)
	}
	<-b.C()
}
