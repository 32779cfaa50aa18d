package breaker

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
)

// policy is the default policy, as the host makes it from the limits'
// defaults.
var policy = Policy{Threshold: config.DefaultBreakerTrappedCalls, FirstPause: config.DefaultBreakerPause,
	MaxPause: config.DefaultBreakerMaxPause, MaxClients: config.DefaultBreakerClients}

// step is one call in a breaker test: at (since the test's start), the
// call of client ("a" when empty) asks Allow, and when let through ends
// with out.
type step struct {
	at     time.Duration
	client string
	out    Outcome
	// want: what Allow answers (ok, probe, and wait when refused), and
	// what Done changes.
	ok, probe bool
	wait      time.Duration
	change    Change
	pause     time.Duration
}

func TestBreaker(t *testing.T) {
	var opened []step
	for range policy.Threshold - 1 {
		opened = append(opened, step{out: Trapped, ok: true})
	}
	opened = append(opened, step{out: Trapped, ok: true, change: Opened, pause: policy.FirstPause})
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
			{out: Trapped, ok: true, change: Opened, pause: policy.FirstPause},
		}},
		{"opened, it refuses calls until the pause ends", append(append([]step{}, opened...),
			step{at: 0, ok: false, wait: policy.FirstPause},
			step{at: policy.FirstPause - time.Millisecond, ok: false, wait: time.Millisecond},
		)},
		{"a probe that serves closes it", append(append([]step{}, opened...),
			step{at: policy.FirstPause, out: Served, ok: true, probe: true, change: Closed},
			step{at: policy.FirstPause, out: Trapped, ok: true},
		)},
		{"a probe that traps doubles the pause, up to policy.MaxPause", append(append([]step{}, opened...),
			step{at: policy.FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 2 * policy.FirstPause},
			step{at: 2 * policy.FirstPause, ok: false, wait: policy.FirstPause},
			step{at: 3 * policy.FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 4 * policy.FirstPause},
			step{at: 7 * policy.FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 8 * policy.FirstPause},
			step{at: 15 * policy.FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 16 * policy.FirstPause},
			step{at: 31 * policy.FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: policy.MaxPause},
			step{at: 31*policy.FirstPause + policy.MaxPause, out: Trapped, ok: true, probe: true, change: Opened, pause: policy.MaxPause},
		)},
		{"a probe that did not run lets the next call probe", append(append([]step{}, opened...),
			step{at: policy.FirstPause, out: Unknown, ok: true, probe: true},
			step{at: policy.FirstPause, out: Served, ok: true, probe: true, change: Closed},
		)},
		{"a client refused refuses no other client", append(append([]step{}, opened...),
			step{client: "b", out: Served, ok: true},
			step{at: policy.FirstPause - time.Millisecond, client: "b", out: Served, ok: true},
			step{at: policy.FirstPause - time.Millisecond, ok: false, wait: time.Millisecond},
			step{at: policy.FirstPause, out: Trapped, ok: true, probe: true, change: Opened, pause: 2 * policy.FirstPause},
			step{at: policy.FirstPause, client: "b", out: Served, ok: true},
			step{at: policy.FirstPause, client: "c", out: Trapped, ok: true},
		)},
		{"another client's call that serves resets nobody's count", []step{
			{out: Trapped, ok: true}, {out: Trapped, ok: true}, {out: Trapped, ok: true}, {out: Trapped, ok: true},
			{client: "b", out: Served, ok: true},
			{client: "b", out: Trapped, ok: true},
			{out: Trapped, ok: true, change: Opened, pause: policy.FirstPause},
			{client: "b", out: Served, ok: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Breaker
			start := time.Now()
			for i, s := range tt.steps {
				now := start.Add(s.at)
				client := s.client
				if client == "" {
					client = "a"
				}
				wait, probe, ok := b.Allow(now, client, policy)
				if ok != s.ok || probe != s.probe || wait != s.wait {
					t.Fatalf("step %d: Allow = wait %v, probe %v, ok %v; want %v, %v, %v", i, wait, probe, ok, s.wait, s.probe, s.ok)
				}
				if !ok {
					continue
				}
				r := b.Done(now, client, s.out, probe, policy)
				if r.Change != s.change || r.Pause != s.pause {
					t.Fatalf("step %d: Done = %v, pause %v; want %v, %v", i, r.Change, r.Pause, s.change, s.pause)
				}
			}
		})
	}
}

// TestBreakerOneProbeAtATime: while a client's probe runs, its other
// calls are refused for policy.FirstPause; a call let through before its breaker
// opened that ends meanwhile, trapped, changes nothing.
func TestBreakerOneProbeAtATime(t *testing.T) {
	var b Breaker
	now := time.Now()
	_, _, _ = b.Allow(now, "a", policy) // a call let through before the breaker opens
	for range policy.Threshold {
		b.Allow(now, "a", policy)
		b.Done(now, "a", Trapped, false, policy)
	}
	now = now.Add(policy.FirstPause)
	if _, probe, ok := b.Allow(now, "a", policy); !ok || !probe {
		t.Fatalf("the first call after the pause: probe %v, ok %v; want a probe", probe, ok)
	}
	if wait, _, ok := b.Allow(now, "a", policy); ok || wait != policy.FirstPause {
		t.Errorf("a call while the probe runs: wait %v, ok %v; want refused for %v", wait, ok, policy.FirstPause)
	}
	if _, probe, ok := b.Allow(now, "b", policy); !ok || probe {
		t.Errorf("another client's call while the probe runs: probe %v, ok %v; want let through, no probe", probe, ok)
	}
	if r := b.Done(now, "a", Trapped, false, policy); r.Change != Unchanged {
		t.Errorf("the earlier call, trapped while the probe runs: %v, want Unchanged", r.Change)
	}
	if r := b.Done(now, "a", Served, true, policy); r.Change != Closed || r.Refused != 0 {
		t.Errorf("the probe, served: %v, %d refused; want Closed, 0", r.Change, r.Refused)
	}
}

// TestBreakerPolicy: the policy a call gives is the one applied: its
// threshold, pauses and bound on clients, and a policy changed between
// calls (a reload) applies from the next call.
func TestBreakerPolicy(t *testing.T) {
	p := Policy{Threshold: 2, FirstPause: 3 * time.Second, MaxPause: 5 * time.Second, MaxClients: 2}
	var b Breaker
	now := time.Now()
	trap := func(key string, p Policy) Report {
		t.Helper()
		_, probe, ok := b.Allow(now, key, p)
		if !ok {
			t.Fatalf("%s refused", key)
		}
		return b.Done(now, key, Trapped, probe, p)
	}
	if r := trap("a", p); r.Change != Unchanged {
		t.Fatalf("a's first trap: %v, want Unchanged", r.Change)
	}
	if r := trap("a", p); r.Change != Opened || r.Pause != 3*time.Second {
		t.Fatalf("a's second trap: %v for %v, want Opened for 3s", r.Change, r.Pause)
	}
	now = now.Add(3 * time.Second)
	if r := trap("a", p); r.Change != Opened || r.Pause != 5*time.Second {
		t.Fatalf("a's probe, trapped: %v for %v, want Opened for 5s (MaxPause)", r.Change, r.Pause)
	}
	trap("b", p)
	trap("c", p)
	if n := len(b.clients); n != 2 {
		t.Errorf("%d states kept, want MaxClients 2", n)
	}
	if _, _, ok := b.Allow(now, "a", p); !ok {
		t.Error("a, the least recent of 3 clients with MaxClients 2, is still refused")
	}
	p.MaxClients = 1
	trap("d", p)
	if n := len(b.clients); n != 1 {
		t.Errorf("%d states kept after MaxClients was lowered to 1, want 1", n)
	}
}

// TestBreakerHammer: calls of client a released at once from many
// goroutines, each trapping, open a's breaker once, while b's calls
// beside them are all let through; a call of a that serves then closes
// it (run with -race).
func TestBreakerHammer(t *testing.T) {
	var b Breaker
	now := time.Now()
	var done sync.WaitGroup
	var mu sync.Mutex
	opens, refusedB := 0, 0
	start := make(chan struct{})
	for range 4 * policy.Threshold {
		done.Add(2)
		go func() {
			defer done.Done()
			<-start
			if _, probe, ok := b.Allow(now, "a", policy); ok {
				if r := b.Done(now, "a", Trapped, probe, policy); r.Change == Opened {
					mu.Lock()
					opens++
					mu.Unlock()
				}
			}
		}()
		go func() {
			defer done.Done()
			<-start
			_, probe, ok := b.Allow(now, "b", policy)
			if ok {
				b.Done(now, "b", Served, probe, policy)
				return
			}
			mu.Lock()
			refusedB++
			mu.Unlock()
		}()
	}
	close(start)
	done.Wait()
	if opens != 1 || refusedB != 0 {
		t.Fatalf("a's breaker opened %d times, b was refused %d times; want once and never", opens, refusedB)
	}
	if _, _, ok := b.Allow(now, "a", policy); ok {
		t.Fatal("a call of a right after its breaker opened was let through")
	}
	if r := b.Done(now, "a", Served, false, policy); r.Change != Closed {
		t.Errorf("a call of a that served: %v, want Closed", r.Change)
	}
	if _, _, ok := b.Allow(now, "a", policy); !ok {
		t.Error("a call of a after its breaker closed was refused")
	}
	if b.Tracking() {
		t.Error("the breaker keeps a state once every client served")
	}
}

// TestBreakerBoundsItsClients: a flood of clients that each trap keeps at
// most policy.MaxClients states, the least recent dropped: a refused client
// that comes back after policy.MaxClients others trapped starts closed, and one
// whose calls kept coming is still refused.
func TestBreakerBoundsItsClients(t *testing.T) {
	var b Breaker
	now := time.Now()
	open := func(key string) {
		for range policy.Threshold {
			b.Allow(now, key, policy)
			b.Done(now, key, Trapped, false, policy)
		}
	}
	open("old")
	open("recent")
	for i := range 10 * policy.MaxClients {
		key := fmt.Sprintf("flood-%d", i)
		b.Allow(now, key, policy)
		b.Done(now, key, Trapped, false, policy)
		if i%(policy.MaxClients/2) == 0 {
			if _, _, ok := b.Allow(now, "recent", policy); ok {
				t.Fatalf("after %d flood clients, the recent refused client was let through", i)
			}
		}
		if n := len(b.clients); n > policy.MaxClients || int(b.tracked.Load()) != n {
			t.Fatalf("after %d flood clients: %d states kept (tracked says %d), want at most %d", i+1, n, b.tracked.Load(), policy.MaxClients)
		}
	}
	if _, _, ok := b.Allow(now, "old", policy); !ok {
		t.Error("the oldest refused client, dropped, is still refused")
	}
	if _, _, ok := b.Allow(now, "recent", policy); ok {
		t.Error("the recent refused client was let through")
	}
	if r := b.Done(now, "x", Served, false, policy); r.Refused != 1 {
		t.Errorf("Refused = %d, want 1 (recent; old was dropped)", r.Refused)
	}
	n := 0
	for c := b.newest; c != nil; c = c.older {
		n++
	}
	if n != len(b.clients) {
		t.Errorf("the recency list holds %d clients, the map %d", n, len(b.clients))
	}
}

// TestBreakerLogsOncePerInterval: the first client's breaker that opens
// asks for a log line; others opened within LogEvery do not, and the next
// line counts them.
func TestBreakerLogsOncePerInterval(t *testing.T) {
	var b Breaker
	start := time.Now()
	open := func(at time.Duration, key string) Report {
		var r Report
		for range policy.Threshold {
			b.Allow(start.Add(at), key, policy)
			r = b.Done(start.Add(at), key, Trapped, false, policy)
		}
		return r
	}
	tests := []struct {
		at     time.Duration
		client string
		log    bool
		opens  int
	}{
		{0, "a", true, 1},
		{time.Second, "b", false, 0},
		{LogEvery - time.Millisecond, "c", false, 0},
		{LogEvery, "d", true, 3},
		{LogEvery + time.Second, "e", false, 0},
	}
	for i, tt := range tests {
		r := open(tt.at, tt.client)
		if r.Change != Opened || r.Log != tt.log || r.Opens != tt.opens || r.Refused != i+1 {
			t.Errorf("client %s opened at %v: %v, log %v, opens %d, refused %d; want Opened, %v, %d, %d", tt.client, tt.at, r.Change, r.Log, r.Opens, r.Refused, tt.log, tt.opens, i+1)
		}
	}
}
