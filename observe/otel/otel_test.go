package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/wattest"
	"github.com/wasmendpoints/endpoints/observe/otel"
)

// module is a WAT route module: a contract (none for a plain route) and the
// body of endpoints_handle, which answers what it wrote at 65536.
func module(contract, handle string) string {
	var b strings.Builder
	b.WriteString(`(module
  (import "endpoints" "request_read" (func $request_read (param i32 i32) (result i32)))
  (import "endpoints" "kv_get" (func $kv_get (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "response_set_status" (func $set_status (param i32) (result i32)))
  (import "endpoints" "response_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 4)
  (data (i32.const 2048) "{\"ok\":true}")
  (data (i32.const 3000) "hits")
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
`)
	if contract != "" {
		fmt.Fprintf(&b, "  (data (i32.const 1024) %q)\n", contract)
		fmt.Fprintf(&b, "  (func (export \"endpoints_contract\") (result i64) (i64.const %d))\n", int64(1024)<<32|int64(len(contract)))
	}
	fmt.Fprintf(&b, "  (func (export \"endpoints_handle\") (result i32) (local $n i32) %s)\n)\n", handle)
	return b.String()
}

// Handlers: answer {"ok":true}; answer the envelope read.
const (
	answerOK   = `(drop (call $write (i32.const 2048) (i32.const 11))) (i32.const 0)`
	echo       = `(local.set $n (call $request_read (i32.const 65536) (i32.const 65536))) (drop (call $write (i32.const 65536) (local.get $n))) (i32.const 0)`
	readKV     = `(drop (call $kv_get (i32.const 3000) (i32.const 4) (i32.const 4096) (i32.const 64))) `
	setCreated = `(drop (call $set_status (i32.const 201))) `
)

// Modules of the test app.
var (
	userModule = module(`{"request":{"params":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}},"responses":{"200":{"schema":{"type":"object"}}}}`,
		readKV+answerOK)
	trapModule  = module(`{}`, "(unreachable)")
	orderModule = module(`{"request":{"body":{"schema":{"type":"object"}}},"responses":{"201":{"schema":{"type":"object"}}},"idempotency":{"required":true}}`,
		setCreated+answerOK)
	echoModule = module("", echo)
)

// newApp writes the test app: a validated GET that reads the store, a
// route that traps, an idempotent POST and a plain route echoing its
// envelope.
func newApp(t testing.TB) string {
	t.Helper()
	app := t.TempDir()
	wattest.Write(t, app, "server/api/users/[id].get.wasm", userModule)
	wattest.Write(t, app, "server/api/trap.get.wasm", trapModule)
	wattest.Write(t, app, "server/api/orders.post.wasm", orderModule)
	wattest.Write(t, app, "server/routes/echo.get.wasm", echoModule)
	return app
}

// newTraced serves a new test app through a Tracer whose spans go to the
// returned recorder: the handler is the host wrapped in Tracer.Handler.
func newTraced(t testing.TB, tp trace.TracerProvider, extra ...*host.Observer) http.Handler {
	t.Helper()
	return newTracedBy(t, otel.New(tp), extra...)
}

// newTracedBy is newTraced with a tracer of the test's.
func newTracedBy(t testing.TB, tracer *otel.Tracer, extra ...*host.Observer) http.Handler {
	t.Helper()
	cache := filepath.Join(os.TempDir(), "endpoints-test-cache")
	h, err := host.New(context.Background(), newApp(t), host.Options{
		Observer: host.JoinObservers(append([]*host.Observer{tracer.Observer()}, extra...)...),
		CacheDir: cache, Logger: slog.New(slog.DiscardHandler), Limits: config.Limits{Instances: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return tracer.Handler(h)
}

// Incoming W3C trace context of a client that is itself traced.
const (
	clientTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	clientTraceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID      = "00f067aa0ba902b7"
)

// serve sends a request straight to the handler: once it returns, every
// span of the request has ended.
func serve(t *testing.T, handler http.Handler, method, path, body string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec
}

// tree is the ended spans of one request, checked against its server span.
type tree struct {
	t      *testing.T
	spans  []sdktrace.ReadOnlySpan
	server sdktrace.ReadOnlySpan
}

// spansOf finds the server span among spans, and checks that every other
// span belongs to its trace.
func spansOf(t *testing.T, spans []sdktrace.ReadOnlySpan) tree {
	t.Helper()
	tr := tree{t: t, spans: spans}
	for _, s := range spans {
		if s.SpanKind() == trace.SpanKindServer {
			if tr.server != nil {
				t.Fatalf("two server spans: %s and %s", tr.server.Name(), s.Name())
			}
			tr.server = s
		}
	}
	if tr.server == nil {
		t.Fatalf("no server span among %d", len(spans))
	}
	for _, s := range spans {
		if s.SpanContext().TraceID() != tr.server.SpanContext().TraceID() {
			t.Errorf("span %s is in trace %s, the server span in %s", s.Name(), s.SpanContext().TraceID(), tr.server.SpanContext().TraceID())
		}
	}
	return tr
}

// span returns the one span named name, checking its parent (the server
// span when parent is "").
func (tr tree) span(name, parent string) sdktrace.ReadOnlySpan {
	tr.t.Helper()
	var found sdktrace.ReadOnlySpan
	for _, s := range tr.spans {
		if s.Name() == name {
			if found != nil {
				tr.t.Fatalf("two spans named %s", name)
			}
			found = s
		}
	}
	if found == nil {
		var names []string
		for _, s := range tr.spans {
			names = append(names, s.Name())
		}
		tr.t.Fatalf("no span named %s among %q", name, names)
	}
	want := tr.server
	if parent != "" {
		want = tr.span(parent, "")
	}
	if found.Parent().SpanID() != want.SpanContext().SpanID() {
		tr.t.Errorf("span %s has parent %s, want %s (%s)", name, found.Parent().SpanID(), want.SpanContext().SpanID(), want.Name())
	}
	return found
}

// attr returns a span's attribute as a string, "" when it has none.
func attr(s sdktrace.ReadOnlySpan, key attribute.Key) string {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value.String()
		}
	}
	return ""
}

// TestSpanTree: a request gets a server span that continues the client's
// trace, named after its route, with a span for validation, one for the
// guest call and, below that, one for the guest's store operation.
func TestSpanTree(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	handler := newTraced(t, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	if res := serve(t, handler, "GET", "/api/users/2", "", "Traceparent", clientTraceparent, "User-Agent", "test/1"); res.Code != 200 {
		t.Fatalf("status %d: %s", res.Code, res.Body)
	}
	tr := spansOf(t, rec.Ended())
	if len(tr.spans) != 4 {
		t.Errorf("%d spans, want 4 (server, validate, guest, store get)", len(tr.spans))
	}
	server := tr.server
	if got := server.Name(); got != "GET /api/users/:id" {
		t.Errorf("server span named %q, want %q", got, "GET /api/users/:id")
	}
	if got := server.SpanContext().TraceID().String(); got != clientTraceID {
		t.Errorf("trace id %s, want the client's %s", got, clientTraceID)
	}
	if got := server.Parent(); got.SpanID().String() != clientSpanID || !got.IsRemote() {
		t.Errorf("server span's parent %s (remote %v), want the client's %s", got.SpanID(), got.IsRemote(), clientSpanID)
	}
	for key, want := range map[attribute.Key]string{
		"http.request.method": "GET", "http.route": "/api/users/:id", "http.response.status_code": "200",
		"url.path": "/api/users/2", "url.scheme": "http", "user_agent.original": "test/1", "network.protocol.version": "1.1",
	} {
		if got := attr(server, key); got != want {
			t.Errorf("server span %s = %q, want %q", key, got, want)
		}
	}
	if server.Status().Code != codes.Unset {
		t.Errorf("server span status %v, want unset", server.Status())
	}
	tr.span(otel.SpanValidate, "")
	guest := tr.span(otel.SpanGuest, "")
	if got := attr(guest, otel.AttrModule); got != "server/api/users/[id].get.wasm" {
		t.Errorf("guest span's module %q", got)
	}
	store := tr.span(otel.SpanStore+" get", otel.SpanGuest)
	if got := attr(store, otel.AttrStoreOperation); got != "get" {
		t.Errorf("store span's operation %q, want get", got)
	}
	for _, s := range tr.spans {
		if s != server && s.Status().Code != codes.Unset {
			t.Errorf("span %s status %v, want unset", s.Name(), s.Status())
		}
	}
}

// TestSpanStatus: a refused request's validation span fails, not its
// server span (a 4xx is the client's error); a trapping guest fails both
// its span and the server span; an idempotent request's store operations
// have their spans; an unknown path is named by its method.
func TestSpanStatus(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	handler := newTraced(t, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	for _, tt := range []struct {
		method, path, body string
		headers            []string
		status             int
		server             string
		serverStatus       codes.Code
		failed             []string // spans whose status is Error, beside the server span
		others             []string // the other spans, all below the server span
	}{
		{"GET", "/api/users/0", "", nil, 400, "GET /api/users/:id", codes.Unset, []string{otel.SpanValidate}, nil},
		{"GET", "/api/trap", "", nil, 500, "GET /api/trap", codes.Error, []string{otel.SpanGuest}, []string{otel.SpanValidate}},
		{"POST", "/api/orders", `{"n":1}`, []string{"Idempotency-Key", "k1"}, 201, "POST /api/orders", codes.Unset, nil,
			[]string{otel.SpanValidate, otel.SpanStore + " claim", otel.SpanGuest, otel.SpanStore + " complete"}},
		{"GET", "/no/such/route", "", nil, 404, "GET", codes.Unset, nil, nil},
		{"BREW", "/api/users/2", "", nil, 405, "HTTP /api/users/:id", codes.Unset, nil, nil},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec.Reset()
			if res := serve(t, handler, tt.method, tt.path, tt.body, tt.headers...); res.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", res.Code, tt.status, res.Body)
			}
			tr := spansOf(t, rec.Ended())
			if got := tr.server.Name(); got != tt.server {
				t.Errorf("server span named %q, want %q", got, tt.server)
			}
			if got := attr(tr.server, "http.response.status_code"); got != fmt.Sprint(tt.status) {
				t.Errorf("http.response.status_code %s, want %d", got, tt.status)
			}
			if got := tr.server.Status().Code; got != tt.serverStatus {
				t.Errorf("server span status %v, want %v", got, tt.serverStatus)
			}
			if tr.server.Parent().IsValid() {
				t.Errorf("server span of a request without traceparent has parent %s, want a new trace", tr.server.Parent().SpanID())
			}
			for _, name := range tt.failed {
				if s := tr.span(name, ""); s.Status().Code != codes.Error {
					t.Errorf("span %s status %v, want error", name, s.Status())
				}
			}
			for _, name := range tt.others {
				if s := tr.span(name, ""); s.Status().Code != codes.Unset {
					t.Errorf("span %s status %v, want unset", name, s.Status())
				}
			}
			if want := 1 + len(tt.failed) + len(tt.others); len(tr.spans) != want {
				t.Errorf("%d spans, want %d", len(tr.spans), want)
			}
		})
	}
}

// TestTraceparentReachesGuestAndLog: the guest's envelope and the
// RequestEvent carry the server span's trace, and the request the host
// serves carries the server span's traceparent, with or without an
// incoming one.
func TestTraceparentReachesGuestAndLog(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	events := make(chan host.RequestEvent, 1)
	handler := newTraced(t, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)),
		&host.Observer{Request: func(e host.RequestEvent) { events <- e }})
	for _, incoming := range []string{clientTraceparent, ""} {
		t.Run(fmt.Sprintf("traceparent %q", incoming), func(t *testing.T) {
			rec.Reset()
			var headers []string
			if incoming != "" {
				headers = []string{"Traceparent", incoming}
			}
			res := serve(t, handler, "GET", "/echo", "", headers...)
			var env struct {
				TraceID string              `json:"traceId"`
				Headers map[string][]string `json:"headers"`
			}
			if err := json.Unmarshal(res.Body.Bytes(), &env); err != nil {
				t.Fatalf("%d %s: %v", res.Code, res.Body, err)
			}
			server := spansOf(t, rec.Ended()).server
			sc := server.SpanContext()
			if env.TraceID != sc.TraceID().String() {
				t.Errorf("envelope traceId %q, want the server span's %s", env.TraceID, sc.TraceID())
			}
			want := fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID())
			if got := env.Headers["traceparent"]; len(got) != 1 || got[0] != want {
				t.Errorf("the guest saw traceparent %q, want the server span's %q", got, want)
			}
			if e := <-events; e.TraceID != sc.TraceID().String() {
				t.Errorf("RequestEvent.TraceID %q, want %s", e.TraceID, sc.TraceID())
			}
			if incoming != "" && sc.TraceID().String() != clientTraceID {
				t.Errorf("trace %s, want the client's %s", sc.TraceID(), clientTraceID)
			}
		})
	}
}

// TestPropagatorFromEnv: OTEL_PROPAGATORS chooses how a request's trace
// context is read (B3 here); the host and its guests still get the server
// span's W3C traceparent, and the trace id in the envelope.
func TestPropagatorFromEnv(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "OTEL_PROPAGATORS" {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		value string
		want  []string // fields the propagator reads
	}{
		{"", []string{"baggage", "traceparent", "tracestate"}},
		{"b3multi", []string{"x-b3-flags", "x-b3-sampled", "x-b3-spanid", "x-b3-traceid"}},
		{" tracecontext , b3 ", []string{"b3", "traceparent", "tracestate"}},
	} {
		p, err := otel.PropagatorFromEnv(env(tt.value))
		if err != nil {
			t.Fatalf("OTEL_PROPAGATORS=%q: %v", tt.value, err)
		}
		got := p.Fields()
		for i := range got {
			got[i] = strings.ToLower(got[i])
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("OTEL_PROPAGATORS=%q reads %q, want %q", tt.value, got, tt.want)
		}
	}
	if _, err := otel.PropagatorFromEnv(env("tracecontext,nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown propagator: error %v, want one naming it", err)
	}

	b3, err := otel.PropagatorFromEnv(env("b3multi"))
	if err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	handler := newTracedBy(t, otel.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), otel.WithPropagator(b3)))
	res := serve(t, handler, "GET", "/echo", "", "X-B3-TraceId", clientTraceID, "X-B3-SpanId", clientSpanID, "X-B3-Sampled", "1")
	var envelope struct {
		TraceID string              `json:"traceId"`
		Headers map[string][]string `json:"headers"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &envelope); err != nil {
		t.Fatalf("%d %s: %v", res.Code, res.Body, err)
	}
	sc := spansOf(t, rec.Ended()).server.SpanContext()
	if sc.TraceID().String() != clientTraceID {
		t.Errorf("the server span's trace %s, want the B3 headers' %s", sc.TraceID(), clientTraceID)
	}
	if envelope.TraceID != clientTraceID {
		t.Errorf("envelope traceId %q, want %s", envelope.TraceID, clientTraceID)
	}
	if got, want := envelope.Headers["x-b3-spanid"], sc.SpanID().String(); len(got) != 1 || got[0] != want {
		t.Errorf("the guest saw X-B3-SpanId %q, want the server span's %s", got, want)
	}
	if got, want := envelope.Headers["traceparent"], fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID()); len(got) != 1 || got[0] != want {
		t.Errorf("the guest saw traceparent %q, want the server span's %q", got, want)
	}
}

// TestUnsampled: a client that asked not to sample gets no recorded span,
// and its trace id still reaches the guest.
func TestUnsampled(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	handler := newTraced(t, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	res := serve(t, handler, "GET", "/echo", "", "Traceparent", clientTraceparent[:53]+"00")
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans recorded, want none", n)
	}
	if !strings.Contains(res.Body.String(), `"traceId":"`+clientTraceID+`"`) {
		t.Errorf("envelope %s, want traceId %s", res.Body, clientTraceID)
	}
}

// TestEnabled: tracing is on when the environment names an exporter or an
// OTLP endpoint, off by default and when disabled.
func TestEnabled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing set", nil, false},
		{"otlp exporter", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"console exporter", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true},
		{"none exporter", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false},
		{"OTLP endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{"OTLP traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{"SDK disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false},
		{"SDK disabled, upper case", map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}, false},
		{"SDK not disabled", map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"only a protocol", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := otel.Enabled(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("Enabled(%v) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}
