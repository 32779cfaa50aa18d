package otel_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/otel"
)

// Tracing a host: the tracer's observer goes into the host's options and
// its handler wraps the host. Here the spans go to a recorder; a program
// gives New the provider of NewTracerProvider, whose exporter the OTEL_*
// variables choose (`endpoints serve` does this).
func ExampleNew() {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(ctx)
	tracer := otel.New(tp)
	h, err := host.New(ctx, "../../host/testdata/hello", host.Options{Observer: tracer.Observer(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)
	handler := tracer.Handler(h)

	req := httptest.NewRequest("GET", "/api/hello?name=Ada", nil)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	handler.ServeHTTP(httptest.NewRecorder(), req)
	var lines []string
	for _, s := range spans.Ended() {
		lines = append(lines, fmt.Sprintf("%s %s trace %s", s.SpanKind(), s.Name(), s.SpanContext().TraceID()))
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// internal endpoints.guest trace 4bf92f3577b34da6a3ce929d0e0e4736
	// internal endpoints.validate trace 4bf92f3577b34da6a3ce929d0e0e4736
	// server GET /api/hello trace 4bf92f3577b34da6a3ce929d0e0e4736
}
