package host

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/idempotency"
	"github.com/wasmendpoints/endpoints/host/internal/observe"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
)

// Observer receives what the host does, for metrics, access logs or
// traces: each field is a hook the host calls when its event happens. A
// nil field costs nothing (the event is not even built), and so does a nil
// [Options.Observer]. [JoinObservers] combines several observers.
//
//	var served, failed atomic.Int64
//	h, err := host.New(ctx, "examples/users", host.Options{Observer: &host.Observer{
//		Request: func(e host.RequestEvent) {
//			served.Add(1)
//			if e.Status >= 500 {
//				failed.Add(1)
//			}
//		},
//	}})
//
// Package observe/prometheus turns the events into Prometheus metrics and
// package observe/accesslog into one log line per request; a program that
// imports neither links neither (package host never imports a metrics
// library). It follows net/http/httptrace's ClientTrace: a struct of
// hooks, so that a new event is a new field and no existing observer
// breaks.
//
// # Notes
//
//   - Hooks run synchronously on the goroutine of the request (or of the
//     reload) that caused the event, many at once: they must be safe for
//     concurrent use, and quick, since the request waits for them.
//   - Events hold values the hook may keep, except [RequestEvent.Request],
//     which must not be used once the hook returns.
//   - Routes are templates (/api/users/:id), never raw paths, so their
//     number is bounded and they make safe metric labels. Methods are what
//     the client sent, which may be any token: bound them (as
//     observe/prometheus does) before using them as labels.
//   - New copies the Observer: changing its fields afterwards changes
//     nothing.
type Observer struct {
	// Request is called once per request, when the host has answered it
	// (after the last byte was handed to the server): method, route,
	// status, size and duration. Setting it makes the host wrap the
	// http.ResponseWriter of each request to count what it writes.
	Request func(RequestEvent)
	// GuestCall is called after each call of a route's handler
	// (endpoints_handle), with the time spent inside the guest, host
	// functions included; the wait for an instance is not. Middleware
	// and onValidationError calls are not reported.
	GuestCall func(GuestCallEvent)
	// ValidationFailure is called for each part of a request the host
	// refused before the guest ran (400 once per failing part, 406, 415),
	// and for each answer that broke its contract (part "response").
	ValidationFailure func(ValidationEvent)
	// PoolWait is called when a call found every instance of its module
	// busy, once its wait is over.
	PoolWait func(PoolEvent)
	// InstanceDiscarded is called when an instance is closed because its
	// call failed (a trap, a deadline, an error code): the next call gets
	// a fresh one.
	InstanceDiscarded func(PoolEvent)
	// InstanceMade is called when a call made a fresh instance: none
	// was idle, or (a route of a bundle, a middleware for a route) the
	// route's last call failed and discarded its instance, so that it
	// takes none its neighbours gave back. The warm instance a load
	// makes is not reported.
	InstanceMade func(PoolEvent)
	// InstanceRecycled is called when an instance is closed after a call
	// that succeeded, because the call left its linear memory past
	// limits.recycleMemoryBytes ([PoolEvent.MemoryBytes]): the next call
	// takes or makes another. An instance whose first call took it there
	// is kept, and not reported.
	InstanceRecycled func(PoolEvent)
	// RouteBreaker is called when a route of a bundle starts refusing a
	// client (503 with Retry-After) because that client's last calls to
	// it all trapped, for a pause that doubles each time the call of the
	// client that probes it after the pause traps too, and when a call
	// of such a client serves again. The route's other clients are
	// served meanwhile; the event does not name the client.
	RouteBreaker func(BreakerEvent)
	// Reload is called at the end of every [Host.Reload] (so of every
	// reload [Host.Watch] makes), with its report, including those that
	// found nothing new ([ReloadReport.Unchanged]).
	Reload func(ReloadReport)
	// Idempotency is called with each outcome of the Idempotency-Key step
	// (docs/spec.md §6): the claim before the guest, then the storing or
	// release of the key after it.
	Idempotency func(IdempotencyEvent)
	// StoreError is called when the store fails an operation: the host's
	// own (Idempotency-Key records, rate limits, API keys, readiness
	// pings) and the guests' key-value calls.
	StoreError func(StoreErrorEvent)
	// Span is called when a step of a request begins: the validation of
	// its parts (StepValidate), the call of its handler (StepGuest), a
	// store operation (StepStore). ctx is the request's context, or for a
	// store operation a guest makes, the context Span returned for its
	// StepGuest; the context Span returns is the step's. The host calls
	// end once when the step is over, with nil or why it failed (a nil end
	// is allowed: nothing is called). It is
	// the hook of a tracer (package observe/otel starts a span per step);
	// it follows net/http/httptrace's pairs of hooks, as one call so that
	// the two halves cannot disagree.
	//
	//	Span: func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
	//		began := time.Now()
	//		return ctx, func(err error) { log.Printf("%s %s took %s: %v", e.Step, e.Route, time.Since(began), err) }
	//	},
	Span func(ctx context.Context, e SpanEvent) (context.Context, func(err error))
	// Outbound is called once per outbound HTTP request a guest made
	// (http_send), when it is over: the host called, the status, the
	// error code, the duration.
	Outbound func(OutboundEvent)
	// Database is called after each statement a guest ran on one of its
	// app's databases (db_query, db_exec, db_begin, db_begin_with, db_commit,
	// db_rollback), with its duration and error.
	Database func(DatabaseEvent)
}

// DatabaseEvent is one statement a guest ran.
type DatabaseEvent struct {
	// Route is the template of the route whose call ran it.
	Route string
	// Database is the database's name in endpoints.json ("main").
	Database string
	// Duration is how long the statement took, its result's encoding
	// included.
	Duration time.Duration
	// Err is why it failed, nil when it did not: a *database.Error,
	// whose Code says what kind of failure, and SQLState the database's
	// SQLSTATE, redacted (database.Error.Redact): the values the
	// database quoted in its message replaced by "?", without the
	// driver's error (PostgreSQL's DETAIL quotes the row). The guest
	// got the message whole.
	Err error
	// Code is Err's code (abi.DBCodeConstraint...), "" when it did not
	// fail: a bounded label for metrics.
	Code string
}

// RequestEvent is one answered request.
type RequestEvent struct {
	// Request is the request. It must not be used once the hook returns.
	Request *http.Request
	// Method is Request.Method.
	Method string
	// Route is the template of the route that served the request
	// (/api/users/:id, /**:path), the path of the OpenAPI document or of
	// the docs page when it served those, and "" when no route matched
	// (a 404, a CORS preflight, a request handed to Options.Fallback).
	Route string
	// RequestID is the request's X-Request-Id (the client's, or one the
	// host made); "" for a request no route matched.
	RequestID string
	// TraceID is the trace id of the request's W3C traceparent header
	// (32 lowercase hexadecimal digits), as the guest gets it in the
	// envelope's traceId; "" when the request carried no valid one
	// (version 00, a trace id not all zeros).
	TraceID string
	// Client is the client's address as the host counts it for its rate
	// limits and a bundle route's breaker: the connection's IP address,
	// or, when that is one of endpoints.json's trustedProxies, the
	// address their X-Forwarded-For (or Forwarded) names; no port.
	Client string
	// Query is the request's raw query as the client sent it, except
	// that the value of each parameter that carries a credential (an
	// apiKey security scheme sent "in": "query") reads REDACTED: what a
	// log may show. Request.URL.RawQuery still holds the credential.
	Query string
	// Status is the status sent; 200 when the handler wrote nothing.
	Status int
	// Bytes counts the body bytes written (none for HEAD), before any
	// compression (server.compression).
	Bytes int64
	// Duration is the time from the host receiving the request to its
	// answer being handed to the server.
	Duration time.Duration
	// OutboundRequests counts the outbound HTTP requests its guests sent
	// (http_send calls that went out, redirects not counted).
	OutboundRequests int
	// OutboundDuration is the time its guests spent in those requests:
	// sending them, waiting for their headers, reading their bodies.
	OutboundDuration time.Duration
	// DatabaseError is the code (abi.DBCodeConstraint...) of a statement
	// the request's guests ran that failed, the last one; "" when none
	// did.
	DatabaseError string
}

// GuestCallEvent is one call of a route's handler.
type GuestCallEvent struct {
	// Method and Route say which operation the call served (Route is a
	// template, see [RequestEvent.Route]).
	Method, Route string
	// Module is the route module, relative to the app:
	// server/api/users/[id].get.wasm.
	Module string
	// Duration is the time spent inside the guest.
	Duration time.Duration
	// Failed: the call trapped, ran past its deadline, returned an error
	// code or passed a limit, and its instance was discarded.
	Failed bool
	// DatabaseOutage: the call failed (Failed is set too) because a
	// database was down or held, and the host answered 503 with
	// Retry-After: one of its statements failed unavailable or busy
	// before it trapped or returned an error code without setting a
	// status, or it used a database that waits for its migrations. The
	// failure is the database's (endpoints_db_errors_total counts its
	// statements), not the guest's: endpoints_guest_failures_total does
	// not count it.
	DatabaseOutage bool
}

// Parts of a [ValidationEvent.Part]: those of a request, and the answer.
// Those of a request are the names [abi.Part.String] returns.
const (
	// PartParams: the path parameters.
	PartParams = "params"
	// PartQuery: the query string.
	PartQuery = "query"
	// PartHeaders: the request headers (the Accept header too, for a 406).
	PartHeaders = "headers"
	// PartBody: the request body (its media type too, for a 415).
	PartBody = "body"
	// PartResponse: the guest's answer, which broke its contract.
	PartResponse = "response"
)

// ValidationEvent is one part of a request that failed validation, or an
// answer that broke the contract.
type ValidationEvent struct {
	// Method and Route say which operation refused the request.
	Method, Route string
	// Part is PartParams, PartQuery, PartHeaders (a 406 too: the Accept
	// header), PartBody (a 415 too) or PartResponse.
	Part string
	// Status is the host's answer: 400, 406, 415, or 500 for an answer
	// that broke the contract. An onValidationError hook may have
	// answered with another.
	Status int
}

// BreakerEvent is a route of a bundle refusing a client for a while
// because that client's last calls to it all trapped, or serving such a
// client again.
type BreakerEvent struct {
	// Module is the bundle, relative to the app; Route the route's
	// template.
	Module, Route string
	// Open: the client is refused from now, for Pause; Trapped is the
	// number of its calls in a row that trapped. Otherwise a call of the
	// client served again.
	Open    bool
	Pause   time.Duration
	Trapped int
	// Refused is the number of the route's clients refused after the
	// change (or probed at their next call), at most the clients the
	// route keeps a state for (1024).
	Refused int
}

// PoolEvent is a wait for an instance, or an instance discarded, made or
// recycled.
type PoolEvent struct {
	// Module is the module whose pool it is, relative to the app; Route
	// the template of the route whose call it was (of a bundle, the route
	// of the bundle; "" for middleware and the runtime declaration).
	Module, Route string
	// Waited is how long a PoolWait lasted; zero for the others.
	Waited time.Duration
	// Acquired: the wait ended with an instance; otherwise the call's
	// deadline passed, its client left or the host shut down (503).
	Acquired bool
	// MemoryBytes is, for InstanceRecycled, the linear memory the
	// instance had when it was closed; zero for the others.
	MemoryBytes int64
}

// IdempotencyOutcome is what the Idempotency-Key step did with a request.
// The step defines the values; the host reports them as they are.
type IdempotencyOutcome = idempotency.Outcome

// Outcomes of [IdempotencyEvent], in the order a request meets them.
const (
	// IdempotencyKeyMissing: a 400, the operation requires a key.
	IdempotencyKeyMissing = idempotency.KeyMissing
	// IdempotencyKeyInvalid: a 400, the key is malformed.
	IdempotencyKeyInvalid = idempotency.KeyInvalid
	// IdempotencyUnavailable: a 503, the store could not claim the key.
	IdempotencyUnavailable = idempotency.Unavailable
	// IdempotencyClientQuota: a 429, the client's records take its whole
	// share of the store (storage.idempotencyClientBytes).
	IdempotencyClientQuota = idempotency.ClientQuota
	// IdempotencyClaimed: the key was free; the handler runs.
	IdempotencyClaimed = idempotency.Claimed
	// IdempotencyReplayed: the stored answer of the key was sent again.
	IdempotencyReplayed = idempotency.Replayed
	// IdempotencyConflict: a 409, a request with the key still runs.
	IdempotencyConflict = idempotency.Conflict
	// IdempotencyMismatch: a 422, the key was used for another request.
	IdempotencyMismatch = idempotency.Mismatch
	// IdempotencyStored: the handler's answer was stored for replay.
	IdempotencyStored = idempotency.Stored
	// IdempotencyReleased: the answer is not replayed (not 2xx, a failed
	// guest, too long a stream); the key was freed for a retry.
	IdempotencyReleased = idempotency.Released
	// IdempotencyLeaseLost: the request ran past its lease; its answer
	// was not stored.
	IdempotencyLeaseLost = idempotency.LeaseLost
)

// IdempotencyEvent is one outcome of the Idempotency-Key step.
type IdempotencyEvent struct {
	// Method and Route say which operation the request was for.
	Method, Route string
	// Outcome is what the step did.
	Outcome IdempotencyOutcome
}

// StoreErrorEvent is one failed store operation.
type StoreErrorEvent struct {
	// Op is the operation: "claim", "complete", "release" (Idempotency-Key
	// records), "get", "set", "delete", "incr", "list" (the guests'
	// key-value calls; "get" also for API keys kept in the store), "take"
	// (rate limits) or "ping" (readiness).
	Op string
	// Err is the store's error; most wrap storage.ErrUnavailable.
	Err error
}

// Steps of a [SpanEvent].
const (
	// StepValidate: content negotiation, the body's media type, size and
	// parsing, and the validation of params, query, headers and body
	// (docs/spec.md §4, steps 4-7).
	StepValidate = "validate"
	// StepGuest: the call of the route's handler (endpoints_handle), or
	// of a middleware's export ([SpanEvent.Op] names it), on an
	// instance, host functions included; the wait for the instance is not.
	StepGuest = "guest"
	// StepStore: one store operation, named by [SpanEvent.Op].
	StepStore = "store"
	// StepOutbound: one outbound HTTP request of a guest, a client span
	// from sending it to the end of its body; [SpanEvent.Op] is its method,
	// [SpanEvent.Target] its origin.
	StepOutbound = "outbound"
	// StepDatabase: one statement a guest ran on a database:
	// [SpanEvent.Op] is its text (never its values, which are bound
	// parameters), [SpanEvent.Database] and [SpanEvent.DBSystem] say
	// where.
	StepDatabase = "database"
)

// SpanEvent is a step of a request that begins, for [Observer.Span].
type SpanEvent struct {
	// Step is StepValidate, StepGuest or StepStore.
	Step string
	// Method and Route say which operation the request is for (Route is a
	// template, see [RequestEvent.Route]).
	Method, Route string
	// Module is the module a StepGuest calls, relative to the app: the
	// route's, or a middleware's.
	Module string
	// Op is the store operation for StepStore, as in [StoreErrorEvent.Op]:
	// "claim", "complete", "release", "get", "set", "delete", "incr",
	// "list" or "take" ("get" also for an API key the app's store
	// keeps). For a StepGuest of a middleware it is the export called
	// (abi.ExportBefore, abi.ExportAfter, abi.ExportVerify); "" for a
	// route's handler. For StepOutbound it is the request's method, for
	// a StepDatabase the statement's text with its literals (strings,
	// numbers, blobs) replaced by "?" and its comments removed, as
	// OpenTelemetry's db.query.text asks; placeholders stay ("SELECT *
	// FROM users WHERE token = ? AND id = $1"). The error its end gets
	// is redacted as [DatabaseEvent.Err] is.
	Op string
	// Target is, for StepOutbound, the origin called
	// (https://api.example.com:443); never a path.
	Target string
	// Header is, for StepOutbound, the outbound request's header: a
	// tracer sets its propagation headers there (traceparent), so the
	// service called continues the trace under the client span. Nil for
	// other steps.
	Header http.Header
	// Database is the database's name for a StepDatabase, DBSystem its
	// kind as OpenTelemetry's db.system names it ("sqlite",
	// "postgresql").
	Database, DBSystem string
}

// ErrRefused is the error the end of a StepValidate span gets when the
// host refused the request (400, 406, 413, 415...): the answer says why.
var ErrRefused = errors.New("the request was refused before its handler ran (the answer's status and body say why)")

// JoinObservers returns an observer that calls each of observers' hooks in
// turn, skipping nil observers and nil hooks. A hook no observer sets stays
// nil, and costs nothing. Span hooks nest: the later one's step starts in
// the context the earlier one returned, and ends first.
//
//	opts.Observer = host.JoinObservers(access.Observer(), metrics.Observer())
//
// Like net/http/httptrace's compose, it walks the Observer's func fields by
// reflection, so that a hook added to Observer is joined without a word
// here (TestJoinObserversEveryHook checks that each is).
func JoinObservers(observers ...*Observer) *Observer {
	return observerJoiner.Join(observers...)
}

// observerJoiner joins the hooks of each event type without reflection at
// call time. A hook of a type missing here is still joined, by reflection,
// but slower (TestJoinObserversEveryHook asks for its type here).
var observerJoiner = observe.NewJoiner[Observer](
	observe.Nested[SpanEvent](),
	observe.InTurn[RequestEvent](),
	observe.InTurn[GuestCallEvent](),
	observe.InTurn[ValidationEvent](),
	observe.InTurn[PoolEvent](),
	observe.InTurn[BreakerEvent](),
	observe.InTurn[ReloadReport](),
	observe.InTurn[IdempotencyEvent](),
	observe.InTurn[StoreErrorEvent](),
	observe.InTurn[OutboundEvent](),
	observe.InTurn[DatabaseEvent](),
)

// serveObserved serves a request through an exchange that records its
// status and size, then reports it to the Request hook.
func (h requestSide) serveObserved(w http.ResponseWriter, r *http.Request, hook func(RequestEvent)) {
	x := observe.Begin(w)
	// Deferred: a request whose stream was cut off (http.ErrAbortHandler)
	// is reported too.
	defer func() {
		hook(RequestEvent{Request: r, Method: r.Method, Route: x.Route, RequestID: x.RequestID,
			Client:  ratelimit.ClientIP(r, h.table.Load().Set.TrustedProxies),
			TraceID: observe.TraceID(r.Header), Query: edge.RedactQuery(r.URL.RawQuery, x.SecretQuery),
			Status: x.Status(), Bytes: x.Bytes(), Duration: time.Since(x.Start),
			OutboundRequests: x.Outbound, OutboundDuration: x.OutboundTime, DatabaseError: x.DatabaseError})
		x.End()
	}()
	h.serve(x, r, x.Start)
}

// noteRoute tells an observed request which route serves it.
func noteRoute(w http.ResponseWriter, route string) {
	if x := observe.Of(w); x != nil {
		x.Route = route
	}
}

// noteDatabaseError tells an observed request that a statement of its
// guest failed, with code.
func noteDatabaseError(w http.ResponseWriter, code string) {
	if x := observe.Of(w); x != nil {
		x.DatabaseError = code
	}
}

// noteRequestID tells an observed request its id.
func noteRequestID(w http.ResponseWriter, id string) {
	if x := observe.Of(w); x != nil {
		x.RequestID = id
	}
}

// reportGuestCall reports a handler's call to o, which may be nil.
func (o *Observer) reportGuestCall(r *http.Request, c *call, took time.Duration, failed, outage bool) {
	if o != nil && o.GuestCall != nil {
		o.GuestCall(GuestCallEvent{Method: r.Method, Route: c.route.Pattern, Module: c.route.File, Duration: took, Failed: failed, DatabaseOutage: outage})
	}
}

// reportRefusal reports to o, which may be nil, a request refused before
// its guest ran: one event per failing part.
func (o *Observer) reportRefusal(r *http.Request, c *call, parts []string, status int) {
	if o == nil || o.ValidationFailure == nil {
		return
	}
	for _, part := range parts {
		o.ValidationFailure(ValidationEvent{Method: r.Method, Route: c.route.Pattern, Part: part, Status: status})
	}
}

// reportIdempotency reports an outcome of the Idempotency-Key step to o,
// which may be nil.
func (o *Observer) reportIdempotency(r *http.Request, c *call, outcome IdempotencyOutcome) {
	if o != nil && o.Idempotency != nil {
		o.Idempotency(IdempotencyEvent{Method: r.Method, Route: c.route.Pattern, Outcome: outcome})
	}
}

// reportStoreError reports a failed store operation to o, which may be
// nil.
func (o *Observer) reportStoreError(op string, err error) {
	if o != nil && o.StoreError != nil {
		o.StoreError(StoreErrorEvent{Op: op, Err: err})
	}
}

// startSpan begins a step of the call's request for the Span hook, in the
// context of the guest's step when a guest makes the call (a store
// operation); nil when no Span hook is set, which endSpan accepts.
func (c *call) startSpan(step, op string) func(error) {
	if o := c.host.opts.Observer; o == nil || o.Span == nil {
		return nil
	}
	return c.beginSpan(SpanEvent{Step: step, Op: op})
}

// beginSpan is startSpan's work when a Span hook is set: building the
// event is paid for only then.
func (c *call) beginSpan(e SpanEvent) func(error) {
	step := e.Step
	if c.rq.HTTP != nil {
		e.Method = c.rq.HTTP.Method
	}
	if c.route != nil {
		e.Route, e.Module = c.route.Pattern, c.route.File
	}
	if c.mw != nil {
		e.Module = c.mw.File
	}
	if step != StepGuest {
		e.Module = ""
	}
	outer := c.spanCtx
	ctx := outer
	if ctx == nil {
		ctx = c.parent
	}
	ctx, end := c.host.opts.Observer.Span(ctx, e)
	switch step {
	case StepGuest:
		c.spanCtx = ctx // until the guest returns
	case StepStore, StepDatabase:
		// The store sees the call as its context: during the
		// operation, the call's values are the store span's.
		c.spanCtx = ctx
		return func(err error) {
			c.spanCtx = outer
			end(err)
		}
	}
	return end
}

// endSpan ends a step startSpan began, if it did.
func endSpan(end func(error), err error) {
	if end != nil {
		end(err)
	}
}
