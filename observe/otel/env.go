package otel

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/contrib/propagators/autoprop"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// DefaultServiceName is the service.name of the spans when neither
// OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one.
const DefaultServiceName = "endpoints"

// Enabled reports whether the environment asks for traces, as the
// OpenTelemetry SDK's variables say (getenv is os.Getenv in a program):
// not when OTEL_SDK_DISABLED is "true", nor when OTEL_TRACES_EXPORTER is
// "none"; yes when OTEL_TRACES_EXPORTER names an exporter, or when an OTLP
// endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). Off otherwise: a server nobody
// asked to trace exports nothing, nor tries to reach a collector.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch exporter := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exporter {
	case "none":
		return false
	case "":
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	}
	return true
}

// NewTracerProvider returns the tracer provider the environment asks for,
// or nil when it asks for none ([Enabled]). The exporter is chosen by
// OTEL_TRACES_EXPORTER (otlp, the default, console or none), OTLP's
// protocol by OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or grpc), its
// endpoint, headers and timeouts by the other OTEL_EXPORTER_OTLP_*
// variables; the sampler by OTEL_TRACES_SAMPLER (parentbased_always_on by
// default), the batching by OTEL_BSP_*, the resource by
// OTEL_SERVICE_NAME (default [DefaultServiceName]) and
// OTEL_RESOURCE_ATTRIBUTES. Shut the provider down after the server:
// that exports the spans still queued.
//
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 endpoints serve app
//	OTEL_TRACES_EXPORTER=console endpoints dev app
func NewTracerProvider(ctx context.Context) (*sdktrace.TracerProvider, error) {
	if !Enabled(os.Getenv) {
		return nil, nil
	}
	exporter, err := newSpanExporter(ctx, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("tracing: OTEL_TRACES_EXPORTER=%q, OTEL_EXPORTER_OTLP_PROTOCOL=%q: %w (exporters: otlp, console, none; OTLP protocols: http/protobuf, grpc; or unset OTEL_TRACES_EXPORTER and the OTLP endpoint to trace nothing)",
			os.Getenv("OTEL_TRACES_EXPORTER"), os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), err)
	}
	// Later detectors win: the environment's names over the default.
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(DefaultServiceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		exporter.Shutdown(ctx)
		return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES or OTEL_SERVICE_NAME: %w (OTEL_RESOURCE_ATTRIBUTES is key=value,key=value with percent-encoded values)", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)), nil
}

// newSpanExporter makes the exporter OTEL_TRACES_EXPORTER and the OTLP
// protocol variables name; the exporters read their other OTEL_EXPORTER_*
// variables themselves. (contrib's autoexport does the same for traces,
// and links the metric and log exporters too: some 85 packages more to
// compile for every build of the command.)
func newSpanExporter(ctx context.Context, getenv func(string) string) (sdktrace.SpanExporter, error) {
	switch name := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); name {
	case "", "otlp":
		protocol := strings.TrimSpace(cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL")))
		switch protocol {
		case "", "http/protobuf":
			return otlptracehttp.New(ctx)
		case "grpc":
			return otlptracegrpc.New(ctx)
		}
		return nil, fmt.Errorf("OTLP protocol %q is not supported", protocol)
	case "console":
		return stdouttrace.New()
	default:
		return nil, fmt.Errorf("exporter %q is not supported", name)
	}
}

// PropagatorFromEnv returns the propagator the OTEL_PROPAGATORS environment
// variable names (getenv is os.Getenv in a program): "tracecontext",
// "baggage", "b3", "b3multi", "jaeger", "xray", "ottrace" or "none",
// comma-separated; the W3C Trace Context and Baggage when it is unset. It
// is for [WithPropagator]. An unknown name is an error naming it.
func PropagatorFromEnv(getenv func(string) string) (propagation.TextMapPropagator, error) {
	names := getenv("OTEL_PROPAGATORS")
	if strings.TrimSpace(names) == "" {
		return autoprop.NewTextMapPropagator(), nil
	}
	var list []string
	for n := range strings.SplitSeq(names, ",") {
		list = append(list, strings.TrimSpace(n))
	}
	p, err := autoprop.TextMapPropagator(list...)
	if err != nil {
		return nil, fmt.Errorf("OTEL_PROPAGATORS=%q: %w (known: tracecontext, baggage, b3, b3multi, jaeger, xray, ottrace, none)", names, err)
	}
	return p, nil
}
