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
	wait, probe, ok := b.Allow(time.Now(), breakerClient(r, c), breakerPolicy(c))
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

// breakerPolicy is when the breaker of the call's route refuses a
// client: the limits of the table the call started on, so that a reload
// applies them from its next call.
func breakerPolicy(c *call) breaker.Policy {
	l := &c.set.Limits
	return breaker.Policy{Threshold: l.BreakerTrappedCalls, FirstPause: time.Duration(l.BreakerPause),
		MaxPause: time.Duration(l.BreakerMaxPause), MaxClients: l.BreakerClients}
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
	rep := b.Done(time.Now(), breakerClient(r, c), out, probe, breakerPolicy(c))
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

// callEnd is how a guest call breakerAllows let through ended, for
// breakerOutcome.
type callEnd struct {
	// Err is the call's error (nil: it returned, whatever its result).
	Err error
	// Database: it failed because a database was down, held or waiting
	// for its migrations; ClientGone: its client left; Stopping: the host
	// is shutting down.
	Database, ClientGone, Stopping bool
	// Idled: it passed its deadline by its idleTimeout (a stream that
	// wrote nothing for that long).
	Idled bool
	// Waited is what of its deadline the request spent waiting for free
	// instances (its handler's and its middleware's); Timeout is that
	// deadline's length.
	Waited, Timeout time.Duration
}

// breakerOutcome is what a guest call counts as for its route's breaker:
// Trapped when the guest trapped (os.Exit, a Go runtime's fatal error, a
// host limit passed) or its handler ran into its deadline; Served when it
// returned (its result code too: a Go handler's panic the SDK
// recovered); Unknown when it ended for a reason that is not its
// client's doing: a database outage, the host stopping, its client gone
// before anything trapped (the guest was stopped because the client left,
// not by a trap), or a deadline at least half of which went to waiting
// for a free instance, which other clients' calls held. A trap counts
// even when the client left first: the trap, and its cost, are what the
// client sent.
func breakerOutcome(e callEnd) breaker.Outcome {
	switch {
	case e.Database || e.Stopping:
		return breaker.Unknown
	case e.Err == nil:
		return breaker.Served
	case !guestfail.Interrupted(e.Err):
		return breaker.Trapped
	case e.ClientGone:
		return breaker.Unknown
	case !e.Idled && 2*e.Waited >= e.Timeout:
		return breaker.Unknown
	}
	return breaker.Trapped
}
