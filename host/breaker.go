package host

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/breaker"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
)

// breakerAllows asks the breaker of the call's route (a bundle's route;
// other routes have none) whether its guest may run now. When it may not,
// it answers 503 with Retry-After (the pause's end, in whole seconds) and
// reports false. probe: the call probes an open breaker, and its outcome
// goes to breakerDone.
func (h requestSide) breakerAllows(w http.ResponseWriter, r *http.Request, c *call) (probe, ok bool) {
	b := c.route.Module.Breaker
	if b == nil {
		return false, true
	}
	wait, probe, ok := b.Allow(time.Now())
	if ok {
		return probe, true
	}
	h.discardBody(w, r, c)
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	var data any
	if h.opts.Mode == Development {
		data = guestfail.Data{Error: "the route's last calls all trapped: it is refused for a while so that its failures do not cost the bundle's other routes; the log says why they failed", Route: c.route.Name}
	}
	writeError(w, r, http.StatusServiceUnavailable, "", data)
	return false, false
}

// breakerDone gives the outcome of a call breakerAllows let through to
// its route's breaker, and logs and reports what changed.
func (h requestSide) breakerDone(c *call, out breaker.Outcome, probe bool) {
	b := c.route.Module.Breaker
	if b == nil {
		return
	}
	change, pause, trapped := b.Done(time.Now(), out, probe)
	switch change {
	case breaker.Opened:
		h.logger.Warn("route refused for a while: its last calls all trapped; its requests are answered 503 with Retry-After, then one probes whether it serves again, so that its failures do not cost the bundle's other routes their instances and cores; its \"guest failed\" lines say why",
			"route", c.route.Name, "trapped", trapped, "pause", pause)
	case breaker.Closed:
		h.logger.Info("route serves again: a call served after its calls had all trapped", "route", c.route.Name)
	default:
		return
	}
	if o := h.opts.Observer; o != nil && o.RouteBreaker != nil {
		o.RouteBreaker(BreakerEvent{Module: c.route.Module.File, Route: c.route.Pattern, Open: change == breaker.Opened, Pause: pause, Trapped: trapped})
	}
}

// breakerOutcome is what a guest call that ended with err counts as for
// its route's breaker: a trap (a deadline, os.Exit, a host limit passed)
// is Trapped, a call that returned Served (its result code too: a Go
// handler's panic the SDK recovered), and one that ended for a reason not
// its route's (notMine: a database outage, its client gone, the host
// stopping) Unknown.
func breakerOutcome(err error, notMine bool) breaker.Outcome {
	switch {
	case notMine:
		return breaker.Unknown
	case err != nil:
		return breaker.Trapped
	}
	return breaker.Served
}
