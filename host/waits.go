package host

import "time"

// WaitedForCode gives back to the call the time it waited for the host
// to load its module's code (engine.Waiter; docs/spec.md §13): the host's
// wait, not the handler's, uses up none of its deadline. A middleware
// call's wait is its request's too, whose clock it follows.
func (c *call) WaitedForCode(d time.Duration) {
	c.clock.WaitedForCode(d)
	if r := c.requestCall(); r != c {
		r.clock.WaitedForCode(d)
	}
}

// WaitedForInstance notes the time the call waited for a free instance
// (engine.Waiter), which uses up its deadline, for the failure's reason;
// a middleware call's is its request's too.
func (c *call) WaitedForInstance(d time.Duration) {
	c.clock.WaitedForInstance(d)
	if r := c.requestCall(); r != c {
		r.clock.WaitedForInstance(d)
	}
}
