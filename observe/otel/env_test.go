package otel_test

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/wasmendpoints/endpoints/observe/otel"
)

// collector is an OTLP/HTTP trace receiver: it decodes the protobuf
// requests sent to /v1/traces and keeps their spans.
type collector struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	problems []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		c.problems = append(c.problems, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		http.Error(w, "want a protobuf POST to /v1/traces", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			c.problems = append(c.problems, err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &req)
	}
	if err != nil {
		c.problems = append(c.problems, err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, rs := range req.GetResourceSpans() {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				c.services = append(c.services, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
	}
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestOTLPExportFromEnvironment runs the exporter the environment chooses
// for real: OTLP over HTTP/protobuf to a collector in the test, which
// receives the spans of a request once the provider is shut down.
// Not parallel: it sets environment variables.
func TestOTLPExportFromEnvironment(t *testing.T) {
	var col collector
	srv := httptest.NewServer(&col)
	defer srv.Close()
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
	tp, err := otel.NewTracerProvider(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tp == nil {
		t.Fatal("NewTracerProvider returned no provider with OTEL_TRACES_EXPORTER=otlp")
	}
	handler := newTraced(t, tp)
	if res := serve(t, handler, "GET", "/api/users/2", "", "Traceparent", clientTraceparent); res.Code != 200 {
		t.Fatalf("status %d: %s", res.Code, res.Body)
	}
	// Shutdown exports what the batcher holds, and returns once the
	// collector has answered.
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.problems) > 0 {
		t.Errorf("the collector refused: %q", col.problems)
	}
	names := map[string]*tracepb.Span{}
	for _, s := range col.spans {
		names[s.GetName()] = s
	}
	server := names["GET /api/users/:id"]
	if server == nil || server.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Fatalf("no server span GET /api/users/:id among %d spans received: %v", len(col.spans), keys(names))
	}
	if got := hex.EncodeToString(server.GetTraceId()); got != clientTraceID {
		t.Errorf("server span's trace %s, want the client's %s", got, clientTraceID)
	}
	for _, name := range []string{otel.SpanValidate, otel.SpanGuest, otel.SpanStore + " get"} {
		s := names[name]
		if s == nil {
			t.Errorf("span %s not received (got %v)", name, keys(names))
			continue
		}
		if hex.EncodeToString(s.GetTraceId()) != clientTraceID {
			t.Errorf("span %s in trace %s, want %s", name, hex.EncodeToString(s.GetTraceId()), clientTraceID)
		}
	}
	if len(col.services) == 0 || col.services[0] != otel.DefaultServiceName {
		t.Errorf("service.name %q, want %q", col.services, otel.DefaultServiceName)
	}
}

// TestUnknownExporter: an exporter the SDK does not know is an error that
// names the variable and the choices.
// Not parallel: it sets environment variables.
func TestUnknownExporter(t *testing.T) {
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "jaeger-thrift")
	tp, err := otel.NewTracerProvider(context.Background())
	if err == nil {
		tp.Shutdown(context.Background())
		t.Fatal("no error for OTEL_TRACES_EXPORTER=jaeger-thrift")
	}
	for _, want := range []string{`OTEL_TRACES_EXPORTER="jaeger-thrift"`, "otlp, console, none"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestExporterChoice: the exporters and OTLP protocols the variables may
// name make a provider; others are an error naming the variable.
// Not parallel: it sets environment variables.
func TestExporterChoice(t *testing.T) {
	for _, tt := range []struct {
		exporter, protocol, tracesProtocol string
		err                                string // "" when a provider is made
	}{
		{"otlp", "", "", ""},
		{"otlp", "http/protobuf", "", ""},
		{"otlp", "grpc", "", ""},
		{"otlp", "http/json", "grpc", ""}, // the traces variable wins
		{"", "grpc", "", ""},
		{"console", "", "", ""},
		{"otlp", "http/json", "", `OTEL_EXPORTER_OTLP_PROTOCOL="http/json"`},
		{"zipkin", "", "", `OTEL_TRACES_EXPORTER="zipkin"`},
	} {
		t.Run(tt.exporter+" "+tt.protocol+" "+tt.tracesProtocol, func(t *testing.T) {
			t.Setenv("OTEL_SDK_DISABLED", "")
			t.Setenv("OTEL_TRACES_EXPORTER", tt.exporter)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1") // enables tracing when no exporter is named
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", tt.protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", tt.tracesProtocol)
			tp, err := otel.NewTracerProvider(context.Background())
			if tp != nil {
				ctx, cancel := context.WithCancel(context.Background())
				cancel() // nothing to export: do not wait for the endpoint
				tp.Shutdown(ctx)
			}
			switch {
			case tt.err == "" && (err != nil || tp == nil):
				t.Errorf("provider %v, error %v; want a provider", tp, err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error %v, want one saying %s", err, tt.err)
			}
		})
	}
}

// TestOffByDefault: with no OTEL_* variable, there is no provider.
// Not parallel: it sets environment variables.
func TestOffByDefault(t *testing.T) {
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(k, "")
	}
	tp, err := otel.NewTracerProvider(context.Background())
	if tp != nil || err != nil {
		t.Errorf("NewTracerProvider() = %v, %v; want nil, nil", tp, err)
	}
}

func keys(m map[string]*tracepb.Span) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
