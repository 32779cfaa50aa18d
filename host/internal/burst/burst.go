// Package burst coalesces a burst of changes (an editor's save, a build
// writing several modules) into one action, as `endpoints dev` reloads the
// app once per burst (host.Watch): a [Timer] fires once no change came
// for a quiet time, and at the latest a longest wait after the burst's
// first change, so that a stream of changes still acts now and then.
package burst

import "time"

// Timer fires once per burst of Touch calls. It is not safe for
// concurrent use: one goroutine touches it and receives from C.
type Timer struct {
	quiet, longest time.Duration
	timer          *time.Timer
	began          time.Time // the pending burst's first change; zero when none
}

// New returns a Timer with no burst pending, which fires quiet after a
// burst's last change, or longest after its first if that comes sooner.
func New(quiet, longest time.Duration) *Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Timer{quiet: quiet, longest: longest, timer: t}
}

// Touch notes a change made at now: it begins a burst, or extends the
// pending one.
func (b *Timer) Touch(now time.Time) {
	if b.began.IsZero() {
		b.began = now
	}
	b.timer.Reset(wait(b.began, now, b.quiet, b.longest))
}

// wait is how long after now a burst that began at began fires.
func wait(began, now time.Time, quiet, longest time.Duration) time.Duration {
	return min(quiet, longest-now.Sub(began))
}

// C receives when the pending burst is over; the receiver then calls
// Fired.
func (b *Timer) C() <-chan time.Time { return b.timer.C }

// Fired ends the burst C said is over: the next Touch begins another.
func (b *Timer) Fired() { b.began = time.Time{} }

// Stop stops the timer; a pending burst never fires.
func (b *Timer) Stop() { b.timer.Stop() }
