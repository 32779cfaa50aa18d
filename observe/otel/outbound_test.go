package otel_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/wattest"
	"github.com/wasmendpoints/endpoints/observe/otel"
)

// TestOutboundClientSpan: a guest's outbound request is a client span
// under its guest span, and the service called gets that span's
// traceparent, so its own spans join the trace.
func TestOutboundClientSpan(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Traceparent")
	}))
	t.Cleanup(backend.Close)
	req := fmt.Sprintf(`{"url":%q}`, backend.URL+"/rates")
	app := t.TempDir()
	wattest.Write(t, app, "server/routes/call.get.wasm", fmt.Sprintf(`(module
  (import "endpoints" "http_send" (func $http_send (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "http_close" (func $http_close (param i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 1024) %q)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "endpoints_handle") (result i32)
    (call $http_close (call $http_send (i32.const 1024) (i32.const %d) (i32.const 0) (i32.const 0)))))
`, req, len(req)))
	if err := os.WriteFile(filepath.Join(app, "endpoints.json"), []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	tracer := otel.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	h, err := host.New(context.Background(), app, host.Options{Observer: tracer.Observer(),
		CacheDir: filepath.Join(os.TempDir(), "endpoints-test-cache"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	if res := serve(t, tracer.Handler(h), "GET", "/call", "", "Traceparent", clientTraceparent); res.Code != 200 {
		t.Fatalf("status %d: %s", res.Code, res.Body)
	}
	tr := spansOf(t, rec.Ended())
	client := tr.span("GET", otel.SpanGuest)
	if client.SpanKind() != trace.SpanKindClient || attr(client, otel.AttrOutboundTarget) != backend.URL || attr(client, "http.request.method") != "GET" {
		t.Errorf("client span: kind %v, target %q, method %q", client.SpanKind(), attr(client, otel.AttrOutboundTarget), attr(client, "http.request.method"))
	}
	want := fmt.Sprintf("00-%s-%s-01", clientTraceID, client.SpanContext().SpanID())
	if tp := <-got; tp != want {
		t.Errorf("the service got traceparent %q, want the client span's %q", tp, want)
	}
}
