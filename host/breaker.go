package host

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/breaker"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/guestfail"
)

// breakerAllows asks the breaker of the call's route (a bundle's route;
// other routes have none) whether its guest may run now for the call's
// client. When it may not, it answers 503 with Retry-After (the pause's
// end, in whole seconds) and reports false. probe: the call probes the
// client's open breaker, and its outcome goes to breakerDone.
func (h requestSide) breakerAllows(w http.ResponseWriter, r *http.Request, c *call) (probe, ok bool) {
	b := c.route.Module.Breaker
	if b == nil || !b.Tracking() {
		return false, true
	}
	wait, probe, ok := b.Allow(time.Now(), breakerClient(r, c))
	if ok {
		return probe, true
	}
	h.discardBody(w, r, c)
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	var data any
	if h.opts.Mode == Development {
		data = guestfail.Data{Error: "your last calls to this route all trapped: your calls to it are refused for a while, so that their failures do not cost the bundle's other routes; its other clients are served; the log says why they failed", Route: c.route.Name}
	}
	writeError(w, r, http.StatusServiceUnavailable, "", data)
	return false, false
}

// breakerClient names the client of the call for its route's breaker:
// its verified principal, else its address (an IPv6 address's /64)
// behind the trusted proxies, so that what one client sends can only
// refuse that client.
func breakerClient(r *http.Request, c *call) string {
	return edge.ClientKey(c.rq.Principal, r, c.set.TrustedProxies)
}

// breakerDone gives the outcome of a call breakerAllows let through to
// its route's breaker, and logs and reports what changed. The log says a
// route refuses clients at most once a breaker.LogEvery, with the number
// of clients refused since its last line: a route many clients trap does
// not log a line per client per pause.
func (h requestSide) breakerDone(r *http.Request, c *call, out breaker.Outcome, probe bool) {
	b := c.route.Module.Breaker
	if b == nil || (out != breaker.Trapped && !b.Tracking()) {
		return
	}
	rep := b.Done(time.Now(), breakerClient(r, c), out, probe)
	if rep.Change == breaker.Unchanged {
		return
	}
	if rep.Log {
		h.logger.Warn("route refused for a while to a client whose last calls all trapped: that client's requests are answered 503 with Retry-After, then one probes whether it is served again, so that its failures do not cost the bundle's other routes their instances and cores; the route's other clients are served; its \"guest failed\" lines say why",
			"route", c.route.Name, "trapped", rep.Trapped, "pause", rep.Pause, "clientsRefused", rep.Refused, "opened", rep.Opens, "logEvery", breaker.LogEvery)
	}
	if o := h.opts.Observer; o != nil && o.RouteBreaker != nil {
		o.RouteBreaker(BreakerEvent{Module: c.route.Module.File, Route: c.route.Pattern, Open: rep.Change == breaker.Opened, Pause: rep.Pause, Trapped: rep.Trapped, Refused: rep.Refused})
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
