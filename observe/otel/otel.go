// Package otel traces the requests an Endpoints host serves with
// OpenTelemetry: a server span per request, which honours the W3C
// traceparent the client sent, and below it a span for the validation of
// the request, one for the call of its handler and one for each store
// operation (an Idempotency-Key claim, a rate limit, a guest's kv_get...).
//
// Experimental: the spans, their attributes and this package may change
// before 1.0 (README.md, "Stability before 1.0").
//
//	tp, err := otel.NewTracerProvider(ctx) // nil when OTEL_* asks for no traces
//	if err != nil {
//		return err
//	}
//	if tp != nil {
//		defer tp.Shutdown(context.Background()) // exports the spans still queued
//		tracer := otel.New(tp)
//		opts.Observer = host.JoinObservers(opts.Observer, tracer.Observer())
//		h, err := host.New(ctx, "examples/users", opts)
//		...
//		http.ListenAndServe(":3000", tracer.Handler(h))
//	}
//
// A trace of GET /api/users/2 reads
//
//	GET /api/users/:id          server  http.route=/api/users/:id http.response.status_code=200
//	├─ endpoints.validate       internal
//	└─ endpoints.guest          internal endpoints.module=server/api/users/[id].get.wasm
//	   └─ endpoints.store get   internal endpoints.store.operation=get
//
// `endpoints serve` and `dev` trace this way when the environment asks
// for it, by the OpenTelemetry SDK's variables (see [NewTracerProvider]).
//
// # Notes
//
//   - Package host never imports OpenTelemetry: it reports its steps to
//     the library-neutral host.Observer.Span hook, which [Tracer.Observer]
//     implements. A program that does not import this package links no
//     OpenTelemetry.
//   - The server span is started by [Tracer.Handler], which must wrap the
//     host, and named and given its status by [Tracer.Observer]'s Request
//     hook, once the host knows the route: both are needed.
//   - Handler replaces the request's traceparent header with the server
//     span's, so the host hands the guest (the envelope's traceId) and the
//     access log (trace_id) the trace the span belongs to.
//   - Span names stay few: the server span is the method and the route's
//     template (/api/users/:id), or the method alone when no route
//     matched; an unknown method is "HTTP", as the HTTP semantic
//     conventions say.
package otel

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmendpoints/endpoints/host"
)

// ScopeName is the instrumentation scope of the spans a Tracer makes.
const ScopeName = "github.com/wasmendpoints/endpoints/observe/otel"

// Names of the spans below the server span, one per host.SpanEvent step;
// a store span is named SpanStore, a space and the operation: "endpoints.store claim".
const (
	SpanValidate = "endpoints.validate"
	SpanGuest    = "endpoints.guest"
	SpanStore    = "endpoints.store"
	// SpanDatabase is a statement a guest ran: "endpoints.db main", a
	// client span with the attributes AttrDBSystem, AttrDBName and
	// AttrDBStatement.
	SpanDatabase = "endpoints.db"
)

// Attributes of a database span, as OpenTelemetry's database semantic
// conventions name them. The statement's text never holds values: guests'
// parameters are bound, and not recorded, and the host replaces the
// literals a statement writes inline by "?" (host.SpanEvent.Op), as the
// conventions ask of db.query.text; the error a span ends with is
// redacted too (host.DatabaseEvent.Err).
const (
	AttrDBSystem    = attribute.Key("db.system")
	AttrDBName      = attribute.Key("db.namespace")
	AttrDBStatement = attribute.Key("db.query.text")
)

// Attributes of the spans below the server span, beside the HTTP semantic
// conventions' http.route and http.request.method.
const (
	// AttrModule is the module a guest span ran, relative to the app:
	// server/api/users/[id].get.wasm, or a middleware's
	// server/middleware/10-audit.wasm.
	AttrModule = attribute.Key("endpoints.module")
	// AttrExport is the export a middleware's guest span called:
	// endpoints_before, endpoints_after or endpoints_verify (absent for
	// a route's handler).
	AttrExport = attribute.Key("endpoints.export")
	// AttrStoreOperation is a store span's operation: claim, complete,
	// release, take, get, set, delete, incr or list.
	AttrStoreOperation = attribute.Key("endpoints.store.operation")
	// AttrOutboundTarget is the origin an outbound span called:
	// https://api.example.com:443 (never a path).
	AttrOutboundTarget = attribute.Key("endpoints.outbound.target")
)

// Tracer makes the spans of the requests a host serves: pass its
// Observer to host.Options (or host.JoinObservers) and wrap the host in
// its Handler. It is safe for concurrent use.
type Tracer struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator // reads a request's context
	inject     propagation.TextMapPropagator // the propagator, and traceparent
}

// An Option configures a Tracer made by [New].
type Option func(*Tracer)

// WithPropagator sets the propagator that reads the trace context of a
// request and writes the server span's into the request the host serves
// (the W3C Trace Context, propagation.TraceContext, by default). Whatever
// the propagator, the host and its guests also get the W3C traceparent
// header of the server span: the host reads the trace id from it.
// [PropagatorFromEnv] is the one OTEL_PROPAGATORS chooses.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(t *Tracer) { t.propagator = p }
}

// New returns a Tracer whose spans tp makes, propagated by the W3C Trace
// Context unless [WithPropagator] says otherwise.
//
//	tracer := otel.New(sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter)))
func New(tp trace.TracerProvider, opts ...Option) *Tracer {
	t := &Tracer{tracer: tp.Tracer(ScopeName), propagator: propagation.TraceContext{}}
	for _, o := range opts {
		o(t)
	}
	t.inject = t.propagator
	if !slices.Contains(t.propagator.Fields(), traceparentHeader) {
		t.inject = propagation.NewCompositeTextMapPropagator(t.propagator, propagation.TraceContext{})
	}
	return t
}

// traceparentHeader is the W3C Trace Context header the host reads.
const traceparentHeader = "traceparent"

// serverKey marks the context of a request Handler started a span for.
type serverKey struct{}

// Handler returns next (the host) wrapped in a server span per request:
// the span continues the trace of the request's traceparent header, when
// it has a valid one, and its own traceparent replaces that header in the
// request next serves.
func (t *Tracer) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := t.propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		method, known := methodAttr(r.Method)
		attrs := make([]attribute.KeyValue, 0, 8)
		attrs = append(attrs, method, semconv.URLPath(r.URL.Path), semconv.URLScheme(scheme(r)),
			semconv.NetworkProtocolVersion(protocolVersion(r)))
		if !known {
			attrs = append(attrs, semconv.HTTPRequestMethodOriginal(r.Method))
		}
		if r.Host != "" {
			attrs = append(attrs, semconv.ServerAddress(r.Host))
		}
		if ua := r.UserAgent(); ua != "" {
			attrs = append(attrs, semconv.UserAgentOriginal(ua))
		}
		if addr, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			attrs = append(attrs, semconv.ClientAddress(addr))
		}
		ctx, span := t.tracer.Start(ctx, spanName(r.Method, known, ""),
			trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		ctx = context.WithValue(ctx, serverKey{}, span)
		r = r.WithContext(ctx)
		r.Header = r.Header.Clone()
		t.inject.Inject(ctx, propagation.HeaderCarrier(r.Header))
		next.ServeHTTP(w, r)
	})
}

// Observer returns the hooks of the tracer, for host.Options.Observer (or
// host.JoinObservers): Span starts the spans of the request's steps,
// Request names the server span after the route and gives it its status.
func (t *Tracer) Observer() *host.Observer {
	return &host.Observer{Span: t.span, Request: t.request}
}

// request completes the server span of an answered request.
func (t *Tracer) request(e host.RequestEvent) {
	span, ok := e.Request.Context().Value(serverKey{}).(trace.Span)
	if !ok {
		return // not served through Handler
	}
	_, known := methodAttr(e.Method)
	span.SetName(spanName(e.Method, known, e.Route))
	if e.Route != "" {
		span.SetAttributes(semconv.HTTPRoute(e.Route))
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(e.Status))
	if e.Status >= http.StatusInternalServerError {
		// A 4xx is the client's error, not the server span's (semantic
		// conventions for HTTP spans).
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(e.Status)))
		span.SetStatus(codes.Error, http.StatusText(e.Status))
	}
}

// span starts the span of a step of a request.
func (t *Tracer) span(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
	name := SpanValidate
	attrs := make([]attribute.KeyValue, 0, 4)
	if e.Route != "" {
		attrs = append(attrs, semconv.HTTPRoute(e.Route))
	}
	switch e.Step {
	case host.StepGuest:
		name = SpanGuest
		attrs = append(attrs, AttrModule.String(e.Module))
		if e.Op != "" {
			attrs = append(attrs, AttrExport.String(e.Op))
		}
	case host.StepStore:
		name = SpanStore + " " + e.Op
		attrs = append(attrs, AttrStoreOperation.String(e.Op))
	case host.StepOutbound:
		return t.outboundSpan(ctx, e, attrs)
	case host.StepDatabase:
		name = SpanDatabase + " " + e.Database
		attrs = append(attrs, AttrDBSystem.String(e.DBSystem), AttrDBName.String(e.Database), AttrDBStatement.String(e.Op))
	}
	kind := trace.SpanKindInternal
	if e.Step == host.StepDatabase {
		kind = trace.SpanKindClient
	}
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// outboundSpan starts the client span of a guest's outbound request,
// named by its method as OpenTelemetry's HTTP conventions say, and sets
// the trace context on the request's header so the service called
// continues the trace.
func (t *Tracer) outboundSpan(ctx context.Context, e host.SpanEvent, attrs []attribute.KeyValue) (context.Context, func(error)) {
	method, _ := methodAttr(e.Op)
	attrs = append(attrs, method, AttrOutboundTarget.String(e.Target))
	ctx, span := t.tracer.Start(ctx, e.Op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if e.Header != nil {
		t.inject.Inject(ctx, propagation.HeaderCarrier(e.Header))
	}
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// spanName is the name of a server span: "GET /api/users/:id", the method
// alone when no route matched, "HTTP" for an unknown method.
func spanName(method string, known bool, route string) string {
	if !known {
		method = "HTTP"
	}
	if route == "" {
		return method
	}
	return method + " " + route
}

// methodAttr is the http.request.method of a request: its method, or
// _OTHER for one RFC 9110 and RFC 5789 do not define, which keeps the
// attribute's values few; known reports which.
func methodAttr(m string) (kv attribute.KeyValue, known bool) {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return semconv.HTTPRequestMethodKey.String(m), true
	}
	return semconv.HTTPRequestMethodOther, false
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// protocolVersion is network.protocol.version: "1.1", "2".
func protocolVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 2:
		return "2"
	case r.ProtoMajor == 3:
		return "3"
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor)
}
