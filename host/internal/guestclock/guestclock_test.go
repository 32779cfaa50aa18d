package guestclock

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	now := time.Now()
	hour := time.Hour
	for _, tc := range []struct {
		name string
		// start starts the clock under test.
		start func(c *Clock)
		// active, when not zero, is noted after the start.
		active          time.Time
		stop            bool
		deadline, until time.Time
		timeout, idle   time.Duration
		expired, idled  bool
	}{
		{name: "running", start: func(c *Clock) { c.Start(now, hour, 0) },
			deadline: now.Add(hour), until: now.Add(hour), timeout: hour},
		{name: "past its end", start: func(c *Clock) { c.Start(now.Add(-2*hour), hour, 0) },
			deadline: now.Add(-hour), until: now.Add(-hour), timeout: hour, expired: true},
		{name: "stopped", start: func(c *Clock) { c.Start(now, hour, 0) }, stop: true,
			deadline: now.Add(hour), until: now.Add(hour), timeout: hour, expired: true},
		{name: "an idle timeout sets the deadline at the start", start: func(c *Clock) { c.Start(now, 2*hour, hour) },
			deadline: now.Add(hour), until: now.Add(2 * hour), timeout: 2 * hour, idle: hour},
		{name: "activity moves the deadline", start: func(c *Clock) { c.Start(now, 3*hour, hour) }, active: now.Add(30 * time.Minute),
			deadline: now.Add(90 * time.Minute), until: now.Add(3 * hour), timeout: 3 * hour, idle: hour},
		{name: "never past the end", start: func(c *Clock) { c.Start(now, 2*hour, hour) }, active: now.Add(90 * time.Minute),
			deadline: now.Add(2 * hour), until: now.Add(2 * hour), timeout: 2 * hour, idle: hour},
		{name: "activity without an idle timeout moves nothing", start: func(c *Clock) { c.Start(now, hour, 0) }, active: now.Add(30 * time.Minute),
			deadline: now.Add(hour), until: now.Add(hour), timeout: hour},
		{name: "idled", start: func(c *Clock) { c.Start(now.Add(-2*hour), 3*hour, hour) },
			deadline: now.Add(-hour), until: now.Add(hour), timeout: 3 * hour, idle: hour, expired: true, idled: true},
		{name: "past its end with an idle timeout is not idled", start: func(c *Clock) { c.Start(now.Add(-3*hour), 2*hour, 2*hour) },
			deadline: now.Add(-hour), until: now.Add(-hour), timeout: 2 * hour, idle: 2 * hour, expired: true},
		{name: "a stopped call within its idle timeout is not idled", start: func(c *Clock) { c.Start(now, 2*hour, hour) }, stop: true,
			deadline: now.Add(hour), until: now.Add(2 * hour), timeout: 2 * hour, idle: hour, expired: true},
		{name: "a restart clears the stop", start: func(c *Clock) { c.Start(now, hour, 0); c.Stop(); c.Start(now, hour, 0) },
			deadline: now.Add(hour), until: now.Add(hour), timeout: hour},
		{name: "following takes the deadline, not the idle timeout nor the stop", start: func(c *Clock) {
			var o Clock
			o.Start(now, 3*hour, hour)
			o.Active(now.Add(30 * time.Minute))
			o.Stop()
			c.Start(now, hour, hour)
			c.Stop()
			c.Follow(&o)
		}, active: now.Add(time.Hour),
			deadline: now.Add(90 * time.Minute), until: now.Add(3 * hour), timeout: 3 * hour},
		{name: "bound to a deadline", start: func(c *Clock) { c.Start(now, hour, hour); c.Stop(); c.Bound(now.Add(2 * hour)) },
			active: now.Add(time.Minute), deadline: now.Add(2 * hour), until: now.Add(2 * hour)},
		{name: "a wait for the module's code moves the deadline and the end", start: func(c *Clock) { c.Start(now.Add(-90*time.Minute), hour, 0); c.WaitedForCode(time.Hour) },
			deadline: now.Add(30 * time.Minute), until: now.Add(30 * time.Minute), timeout: hour},
		{name: "waits for code give back at most the timeout in all", start: func(c *Clock) {
			c.Start(now.Add(-150*time.Minute), hour, 0)
			c.WaitedForCode(40 * time.Minute)
			c.WaitedForCode(40 * time.Minute)
			c.WaitedForCode(40 * time.Minute)
		}, deadline: now.Add(-30 * time.Minute), until: now.Add(-30 * time.Minute), timeout: hour, expired: true},
		{name: "a following clock gives back no more than its owner's", start: func(c *Clock) {
			var o Clock
			o.Start(now.Add(-150*time.Minute), hour, 0)
			o.WaitedForCode(40 * time.Minute)
			c.Follow(&o)
			c.WaitedForCode(40 * time.Minute)
		}, deadline: now.Add(-30 * time.Minute), until: now.Add(-30 * time.Minute), timeout: hour, expired: true},
		{name: "a wait for an instance uses the deadline up", start: func(c *Clock) { c.Start(now.Add(-90*time.Minute), hour, 0); c.WaitedForInstance(time.Hour) },
			deadline: now.Add(-30 * time.Minute), until: now.Add(-30 * time.Minute), timeout: hour, expired: true},
		{name: "a restart forgets the waits", start: func(c *Clock) { c.Start(now, hour, 0); c.WaitedForCode(hour); c.Start(now, hour, 0) },
			deadline: now.Add(hour), until: now.Add(hour), timeout: hour},
		{name: "a wait for code moves no bound deadline", start: func(c *Clock) { c.Bound(now.Add(hour)); c.WaitedForCode(hour) },
			deadline: now.Add(hour), until: now.Add(hour)},
		{name: "bound to a deadline that passed", start: func(c *Clock) { c.Bound(now.Add(-time.Second)) },
			deadline: now.Add(-time.Second), until: now.Add(-time.Second), expired: true},
		{name: "started at a time without a monotonic reading", start: func(c *Clock) { c.Start(now.Round(0).Add(-2*hour), hour, 0) },
			deadline: now.Add(-hour), until: now.Add(-hour), timeout: hour, expired: true},
		{name: "bound to a wall-clock deadline to come", start: func(c *Clock) { c.Bound(time.Unix(0, now.Add(hour).UnixNano())) },
			deadline: now.Add(hour), until: now.Add(hour)},
		{name: "the zero clock has expired", start: func(*Clock) {}, expired: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Clock
			tc.start(&c)
			if !tc.active.IsZero() {
				c.Active(tc.active)
			}
			if tc.stop {
				c.Stop()
			}
			if got := c.Deadline(); !got.Equal(tc.deadline) {
				t.Errorf("Deadline() = %v, want %v", got, tc.deadline)
			}
			if got := c.Until(); !got.Equal(tc.until) {
				t.Errorf("Until() = %v, want %v", got, tc.until)
			}
			if c.Timeout() != tc.timeout || c.Idle() != tc.idle {
				t.Errorf("Timeout(), Idle() = %v, %v, want %v, %v", c.Timeout(), c.Idle(), tc.timeout, tc.idle)
			}
			if got := c.Expired(); got != tc.expired {
				t.Errorf("Expired() = %v, want %v", got, tc.expired)
			}
			if got := c.Idled(); got != tc.idled {
				t.Errorf("Idled() = %v, want %v", got, tc.idled)
			}
		})
	}
}

func TestWithin(t *testing.T) {
	const d = time.Hour
	for _, tc := range []struct {
		name  string
		start func(c *Clock, now time.Time)
		// end says Within must be the call's end; otherwise now plus d.
		end bool
	}{
		{name: "a call that ends within d of its start: its end", start: func(c *Clock, now time.Time) { c.Start(now, d/2, 0) }, end: true},
		{name: "a call that ends d after its start: its end", start: func(c *Clock, now time.Time) { c.Start(now, d, 0) }, end: true},
		{name: "a long call started now: now plus d", start: func(c *Clock, now time.Time) { c.Start(now, 3*d, 0) }},
		{name: "a long call started long ago, ending soon: its end", start: func(c *Clock, now time.Time) { c.Start(now.Add(-5*d/2), 3*d, 0) }, end: true},
		{name: "a follower of a long call: now plus d", start: func(c *Clock, now time.Time) {
			var o Clock
			o.Start(now, 3*d, 0)
			c.Follow(&o)
		}},
		{name: "bound to a deadline far off: now plus d", start: func(c *Clock, now time.Time) { c.Bound(now.Add(3 * d)) }},
		{name: "bound to a deadline within d: the deadline", start: func(c *Clock, now time.Time) { c.Bound(now.Add(d / 2)) }, end: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Clock
			before := time.Now()
			tc.start(&c, before)
			got := c.Within(d)
			after := time.Now()
			if tc.end {
				if !got.Equal(c.Until()) {
					t.Errorf("Within(%v) = %v, want the call's end %v", d, got, c.Until())
				}
				return
			}
			if got.Before(before.Add(d)) || got.After(after.Add(d)) {
				t.Errorf("Within(%v) = %v, want now plus %v (between %v and %v)", d, got, d, before.Add(d), after.Add(d))
			}
		})
	}
}

// TestClockWaits: the waits a call noted are told for its failure's
// reason, each summed, and a new start forgets them.
func TestClockWaits(t *testing.T) {
	var c Clock
	c.Start(time.Now(), time.Second, 0)
	c.WaitedForCode(300 * time.Millisecond)
	c.WaitedForCode(200 * time.Millisecond)
	c.WaitedForInstance(time.Second)
	if c.CodeWait() != 500*time.Millisecond || c.InstanceWait() != time.Second {
		t.Errorf("CodeWait, InstanceWait = %s, %s; want 500ms, 1s", c.CodeWait(), c.InstanceWait())
	}
	var o Clock
	o.Follow(&c)
	if o.CodeWait() != 0 || o.InstanceWait() != 0 {
		t.Errorf("a following clock: CodeWait, InstanceWait = %s, %s; want none of its own", o.CodeWait(), o.InstanceWait())
	}
	c.Start(time.Now(), time.Second, 0)
	if c.CodeWait() != 0 || c.InstanceWait() != 0 {
		t.Errorf("after a restart: CodeWait, InstanceWait = %s, %s; want 0", c.CodeWait(), c.InstanceWait())
	}
}
