package breaker

import (
	"sync"
	"testing"
	"time"
)

// step is one call in a breaker test: at (since the test's start), the
// call asks Allow, and when let through ends with out.
type step struct {
	at  time.Duration
	out Outcome
	// want: what Allow answers (ok, probe, and wait when refused), and
	// what Done changes.
	ok, probe bool
	wait      time.Duration
	change    Change
	pause     time.Duration
}

func TestBreaker(t *testing.T) {
	var opened []step
	for range Threshold - 1 {
		opened = append(opened, step{out: Trapped, ok: true})
	}
	opened = append(opened, step{out: Trapped, ok: true, change: Opened, pause: FirstPause})
	tests := []struct {
		name  string
		steps []step
	}{
		{"a route that traps now and then is never refused", []step{
			{out: Trapped, ok: true}, {out: Trapped, ok: true}, {out: Trapped, ok: true}, {out: Trapped, ok: true},
			{out: Served, ok: true},
			{out: Trapped, ok: true}, {out: Trapped, ok: true}, {out: Trapped, ok: true}, {out: Trapped, ok: true},
			{out: Served, ok: true},
		}},
		{"calls that did not run count neither way", []step{
			{out: Trapped, ok: true}, {out: Trapped, ok: true}, {out: Unknown, ok: true}, {out: Trapped, ok: true}, {out: Trapped, ok: true},
			{out: Unknown, ok: true},
			{out: Trapped, ok: true, change: Opened, pause: FirstPause},
		}},
		{"opened, it refuses calls until the pause ends", append(append([]step{}, opened...),
			step{at: 0, ok: false, wait: FirstPause},
			step{at: FirstPause - time.Millisecond, ok: false, wait: time.Millisecond},
		)},
		{"a probe that serves closes it", append(append([]step{}, opened...),
			step{at: FirstPause, out: Served, ok: true, probe: true, change: Closed},
			step{at: FirstPause, out: Trapped, ok: true},
		)},
		{"a probe that traps doubles the pause, up to MaxPause", append(append([]step{}, opened...),
			step{at: FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 2 * FirstPause},
			step{at: 2 * FirstPause, ok: false, wait: FirstPause},
			step{at: 3 * FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 4 * FirstPause},
			step{at: 7 * FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 8 * FirstPause},
			step{at: 15 * FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 16 * FirstPause},
			step{at: 31 * FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: MaxPause},
			step{at: 31*FirstPause + MaxPause, out: Trapped, ok: true, probe: true, change: Opened, pause: MaxPause},
		)},
		{"a probe that did not run lets the next call probe", append(append([]step{}, opened...),
			step{at: FirstPause, out: Unknown, ok: true, probe: true},
			step{at: FirstPause, out: Served, ok: true, probe: true, change: Closed},
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Breaker
			start := time.Now()
			for i, s := range tt.steps {
				now := start.Add(s.at)
				wait, probe, ok := b.Allow(now)
				if ok != s.ok || probe != s.probe || wait != s.wait {
					t.Fatalf("step %d: Allow = wait %v, probe %v, ok %v; want %v, %v, %v", i, wait, probe, ok, s.wait, s.probe, s.ok)
				}
				if !ok {
					continue
				}
				change, pause, _ := b.Done(now, s.out, probe)
				if change != s.change || pause != s.pause {
					t.Fatalf("step %d: Done = %v, pause %v; want %v, %v", i, change, pause, s.change, s.pause)
				}
			}
		})
	}
}

// TestBreakerOneProbeAtATime: while a probe runs, the other calls are
// refused for FirstPause; a call let through before the breaker opened
// that ends meanwhile, trapped, changes nothing.
func TestBreakerOneProbeAtATime(t *testing.T) {
	var b Breaker
	now := time.Now()
	_, _, _ = b.Allow(now) // a call let through before the breaker opens
	for range Threshold {
		b.Allow(now)
		b.Done(now, Trapped, false)
	}
	now = now.Add(FirstPause)
	if _, probe, ok := b.Allow(now); !ok || !probe {
		t.Fatalf("the first call after the pause: probe %v, ok %v; want a probe", probe, ok)
	}
	if wait, _, ok := b.Allow(now); ok || wait != FirstPause {
		t.Errorf("a call while the probe runs: wait %v, ok %v; want refused for %v", wait, ok, FirstPause)
	}
	if change, _, _ := b.Done(now, Trapped, false); change != Unchanged {
		t.Errorf("the earlier call, trapped while the probe runs: %v, want Unchanged", change)
	}
	if change, _, _ := b.Done(now, Served, true); change != Closed {
		t.Errorf("the probe, served: %v, want Closed", change)
	}
}

// TestBreakerHammer: calls released at once from many goroutines, each
// trapping, open the breaker once, and a call that serves then closes it
// (run with -race).
func TestBreakerHammer(t *testing.T) {
	var b Breaker
	now := time.Now()
	var opened sync.WaitGroup
	var mu sync.Mutex
	opens := 0
	start := make(chan struct{})
	for range 4 * Threshold {
		opened.Add(1)
		go func() {
			defer opened.Done()
			<-start
			if _, probe, ok := b.Allow(now); ok {
				if change, _, _ := b.Done(now, Trapped, probe); change == Opened {
					mu.Lock()
					opens++
					mu.Unlock()
				}
			}
		}()
	}
	close(start)
	opened.Wait()
	if opens != 1 {
		t.Fatalf("the breaker opened %d times, want once", opens)
	}
	if _, _, ok := b.Allow(now); ok {
		t.Fatal("a call right after the breaker opened was let through")
	}
	if change, _, _ := b.Done(now, Served, false); change != Closed {
		t.Errorf("a call that served: %v, want Closed", change)
	}
	if _, _, ok := b.Allow(now); !ok {
		t.Error("a call after the breaker closed was refused")
	}
}
