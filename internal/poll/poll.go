// Package poll waits for a condition a test can only observe by looking
// (a log line, an answer served, a file gone, a key expired), checking it
// at once and then on a ticker, never sleeping a fixed time: the duration
// only bounds a wait that should end much sooner.
package poll

import "time"

// Interval is how often Until and UntilNil check again.
const Interval = 5 * time.Millisecond

// Until checks cond until it holds or d has passed, and reports whether it
// held.
func Until(d time.Duration, cond func() bool) bool {
	return UntilNil(d, func() error {
		if cond() {
			return nil
		}
		return errFalse
	}) == nil
}

// UntilNil calls try until it returns nil or d has passed, and returns its
// last error.
func UntilNil(d time.Duration, try func() error) error {
	err := try()
	if err == nil {
		return nil
	}
	tick := time.NewTicker(Interval)
	defer tick.Stop()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		select {
		case <-tick.C:
			if err = try(); err == nil {
				return nil
			}
		case <-deadline.C:
			return try()
		}
	}
}

type falseError struct{}

func (falseError) Error() string { return "the condition does not hold" }

var errFalse error = falseError{}
