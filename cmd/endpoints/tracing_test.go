package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// spanCollector is an OTLP/HTTP trace receiver that keeps the names of
// the spans it is sent.
type spanCollector struct {
	mu    sync.Mutex
	names []string
}

func (c *spanCollector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &req)
	}
	if err != nil || r.URL.Path != "/v1/traces" {
		http.Error(w, "want an OTLP protobuf POST to /v1/traces", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.names = append(c.names, s.GetName())
			}
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestServeExportsTraces: with OTEL_EXPORTER_OTLP_ENDPOINT set, serve
// traces each request, and the spans still queued when it stops (the
// batch delay is an hour) reach the collector before it exits; the
// access log line carries the trace id.
// Not parallel: it sets environment variables.
func TestServeExportsTraces(t *testing.T) {
	needTool(t, "wat2wasm")
	col := &spanCollector{}
	collector := httptest.NewServer(col)
	defer collector.Close()
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "3600000")
	app := t.TempDir()
	src := filepath.Join(t.TempDir(), "orders.wat")
	// No spin: one request, answered by the interpreter while the
	// module compiles, within its deadline under the race detector too.
	if err := os.WriteFile(src, []byte(orderWAT(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := guestbuild.WAT(context.Background(), src, filepath.Join(app, "server/api/orders.post.wasm")); err != nil {
		t.Fatal(err)
	}
	addr, _, cancel, stdout, stderr, done := startCLI(t, "serve", app)
	if !strings.Contains(stdout.String(), "tracing: a span per request, exported as OTLP (http/protobuf) to "+collector.URL) {
		t.Errorf("serve did not say where its spans go:\n%s", stdout.String())
	}
	req, err := http.NewRequest("POST", addr+"/api/orders", strings.NewReader(`{"item":"pen"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "k1")
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 {
		t.Fatalf("POST /api/orders = %d, want 201", res.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("serve exited %d, want 0\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
	col.mu.Lock()
	names := strings.Join(col.names, ", ")
	col.mu.Unlock()
	for _, want := range []string{"POST /api/orders", "endpoints.validate", "endpoints.store claim", "endpoints.guest", "endpoints.store complete"} {
		if !strings.Contains(names, want) {
			t.Errorf("span %q not exported by the time serve exited; got %s", want, names)
		}
	}
	if !strings.Contains(stderr.String(), "trace_id=4bf92f3577b34da6a3ce929d0e0e4736") {
		t.Errorf("the access log line has no trace_id:\n%s", stderr.String())
	}
}
