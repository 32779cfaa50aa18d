package database

import (
	"context"
	"testing"
	"time"
)

// TestLockWaitEnd: a wait for SQLite's write lock ends at the busy
// timeout, or a margin before the deadline of the statement's context
// when that comes first: the call's margin (a tenth of the time left, 50
// ms to 1 s) before a call's deadline, a tenth alone before a
// statement's own timeout (CallDeadlineKey), unless the call's margin
// ends first.
func TestLockWaitEnd(t *testing.T) {
	const timeout = time.Minute // a migration's is longer still
	tests := []struct {
		name      string
		deadline  time.Duration // from now; 0 for none
		call      time.Duration // CallDeadlineKey's, from now; 0 for none
		wantEnd   time.Duration // from now
		wantEarly bool
		wantOwn   bool
	}{
		{name: "no deadline", wantEnd: timeout},
		{name: "a call's deadline past the timeout", deadline: 2 * time.Minute, wantEnd: timeout},
		{name: "a call's deadline: a tenth", deadline: 5 * time.Second, wantEnd: 4500 * time.Millisecond, wantEarly: true},
		{name: "a call's far deadline: a second", deadline: 20 * time.Second, wantEnd: 19 * time.Second, wantEarly: true},
		{name: "a call's near deadline: 50 ms", deadline: 300 * time.Millisecond, wantEnd: 250 * time.Millisecond, wantEarly: true},
		{name: "a call's deadline under 50 ms: none", deadline: 40 * time.Millisecond, wantEnd: -10 * time.Millisecond, wantEarly: true},
		{name: "a statement's timeout: a tenth", deadline: 40 * time.Millisecond, call: time.Hour, wantEnd: 36 * time.Millisecond, wantEarly: true, wantOwn: true},
		{name: "a statement's timeout: a second at most", deadline: 20 * time.Second, call: time.Hour, wantEnd: 19 * time.Second, wantEarly: true, wantOwn: true},
		{name: "a statement's timeout whose call's margin ends first", deadline: 90 * time.Millisecond, call: 100 * time.Millisecond, wantEnd: 50 * time.Millisecond, wantEarly: true},
		{name: "a call's deadline marked as its own", deadline: 300 * time.Millisecond, call: 300 * time.Millisecond, wantEnd: 250 * time.Millisecond, wantEarly: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Now()
			ctx := context.Background()
			if tt.deadline != 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(tt.deadline))
				defer cancel()
			}
			if tt.call != 0 {
				ctx = context.WithValue(ctx, CallDeadlineKey{}, now.Add(tt.call))
			}
			w := &lockWait{timeout: timeout}
			w.busy(ctx, 0)
			if got := w.end.Sub(now); got < tt.wantEnd-2*time.Millisecond || got > tt.wantEnd+2*time.Millisecond {
				t.Errorf("the wait ends in %s, want %s", got, tt.wantEnd)
			}
			if w.early != tt.wantEarly || w.own != tt.wantOwn {
				t.Errorf("early %v, own %v; want %v, %v", w.early, w.own, tt.wantEarly, tt.wantOwn)
			}
		})
	}
}
