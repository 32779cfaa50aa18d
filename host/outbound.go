package host

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/observe"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
	"github.com/wasmendpoints/endpoints/internal/allowlist"
)

// OutboundEvent is one outbound HTTP request a guest made (http_send),
// once it is over: its body read, closed, or failed.
type OutboundEvent struct {
	// Method and Route say which operation made the request (Route is a
	// template, see [RequestEvent.Route]).
	Method, Route string
	// Host is the host and port called, as listed in
	// outbound.allowedHosts: api.example.com:443. A URL's path is never
	// reported (it may hold identifiers).
	Host string
	// RequestMethod is the outbound request's method.
	RequestMethod string
	// Status is the response's status, 0 when none came.
	Status int
	// Error is the abi.HTTPError code of a failed request ("not_allowed",
	// "limit", "timeout", "connect", "tls", "protocol", "redirect"), ""
	// when it succeeded (whatever its status).
	Error string
	// Duration is the time from sending the request to the end of its
	// body (or its failure).
	Duration time.Duration
}

// closeOutbound closes the outbound client's idle connections, when the
// host closes.
func (h lifecycle) closeOutbound() { h.outbound.Close() }

// Outbound is the request's outbound session, started at its first use:
// a middleware's calls count against its request's.
func (c guestCall) Outbound() *outbound.Session {
	rc := c.requestCall()
	if rc.rq.Loading || rc.host == nil || rc.set == nil || rc.set.Outbound == nil {
		return nil
	}
	if !rc.outbound.Started() {
		l := rc.set.Limits
		rc.outbound.Start(rc.parent, rc.clock.Deadline(), rc.stopped(), rc.set.Outbound, outbound.Limits{Requests: l.OutboundRequests, Bytes: l.OutboundBytes, HeaderBytes: l.OutboundHeaderBytes}, rc.observeOutbound)
	}
	return &rc.outbound
}

// observeOutbound prepares an outbound request: the request's trace
// context goes with it (a tracer's client span replaces it), a Span and
// an Outbound hook see it, and at debug level the log hears the Go error
// a failed one ended with.
func (c *call) observeOutbound(req *http.Request) func(int, *outbound.Error) {
	if req.Header.Get(observe.TraceparentHeader) == "" && c.rq.HTTP != nil && observe.TraceID(c.rq.HTTP.Header) != "" {
		req.Header.Set(observe.TraceparentHeader, c.rq.HTTP.Header.Get(observe.TraceparentHeader))
	}
	o := c.host.opts.Observer
	debug := c.logger.Enabled(c.parent, slog.LevelDebug)
	if (o == nil || o.Span == nil && o.Outbound == nil) && !debug {
		return nil
	}
	if o == nil {
		o = &Observer{}
	}
	began := time.Now()
	host := req.URL.Host
	if req.URL.Port() == "" {
		host = net.JoinHostPort(req.URL.Hostname(), strconv.Itoa(int(allowlist.DefaultPort(req.URL.Scheme))))
	}
	var end func(error)
	if o.Span != nil {
		end = c.beginOutboundSpan(req, host)
	}
	method, route := "", ""
	if c.rq.HTTP != nil {
		method = c.rq.HTTP.Method
	}
	if c.route != nil {
		route = c.route.Pattern
	}
	return func(status int, err *outbound.Error) {
		code := ""
		if err != nil {
			code = err.Code
			endSpan(end, err)
			if debug && err.Cause != nil {
				// The guest reads the message; Go's own error is for
				// whoever debugs the host, without the URL's path and
				// query (they may hold identifiers or tokens).
				cause := err.Cause
				if ue := (*url.Error)(nil); errors.As(cause, &ue) {
					cause = ue.Err
				}
				c.logger.Debug("outbound request failed", "host", host, "code", err.Code, "message", err.Message, "error", cause)
			}
		} else {
			endSpan(end, nil)
		}
		if o.Outbound != nil {
			o.Outbound(OutboundEvent{Method: method, Route: route, Host: host, RequestMethod: req.Method,
				Status: status, Error: code, Duration: time.Since(began)})
		}
	}
}

// beginOutboundSpan begins the client span of an outbound request, under
// the guest's span; the tracer may set its propagation headers on the
// request.
func (c *call) beginOutboundSpan(req *http.Request, host string) func(error) {
	e := SpanEvent{Step: StepOutbound, Op: req.Method, Target: req.URL.Scheme + "://" + host, Header: req.Header}
	if c.rq.HTTP != nil {
		e.Method = c.rq.HTTP.Method
	}
	if c.route != nil {
		e.Route = c.route.Pattern
	}
	ctx := c.spanCtx
	if ctx == nil {
		ctx = c.parent
	}
	_, end := c.host.opts.Observer.Span(ctx, e)
	return end
}

// noteOutbound tells an observed request how many outbound requests its
// guests made and how long they took.
func noteOutbound(w http.ResponseWriter, n int, d time.Duration) {
	if x := observe.Of(w); x != nil {
		x.Outbound, x.OutboundTime = n, d
	}
}

// closeOutbound ends a call's outbound session: its responses released,
// its count and time told to the observed request.
func (c *call) closeOutbound() {
	if !c.outbound.Started() {
		return
	}
	if n, d := c.outbound.Stats(); n > 0 {
		noteOutbound(c.resp.Writer(), n, d)
	}
	c.outbound.Close()
}
