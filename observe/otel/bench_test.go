package otel_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/otel"
)

// discard is a span exporter that drops what it is given.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkTracing serves GET /api/users/2 (validation, a guest that reads
// the store) through ServeHTTP, without a tracer and with one that samples
// every request and batches its four spans to an exporter that drops them:
// what tracing costs the host, the export aside.
//
//	go test ./observe/otel -run '^$' -bench Tracing -benchmem
func BenchmarkTracing(b *testing.B) {
	app := newApp(b)
	cache := filepath.Join(os.TempDir(), "endpoints-test-cache")
	newHost := func(o *host.Observer) *host.Host {
		h, err := host.New(context.Background(), app, host.Options{Observer: o, CacheDir: cache,
			Logger: slog.New(slog.DiscardHandler), Limits: config.Limits{Instances: 2}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(context.Background()) })
		return h
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
	b.Cleanup(func() { tp.Shutdown(context.Background()) })
	tracer := otel.New(tp)
	for _, v := range []struct {
		name    string
		handler http.Handler
	}{
		{"off", newHost(nil)},
		{"on", tracer.Handler(newHost(tracer.Observer()))},
	} {
		b.Run(v.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/api/users/2", nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				v.handler.ServeHTTP(rec, req.WithContext(req.Context()))
				if rec.Code != 200 {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
