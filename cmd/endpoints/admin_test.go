package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/prometheus"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// helloApp copies host/testdata/hello (GET /api/hello, its module
// committed) into a temporary app whose endpoints.json is config.
func helloApp(t *testing.T, config string) string {
	t.Helper()
	src := filepath.Join("..", "..", "host", "testdata", "hello", "server", "api")
	dst := t.TempDir()
	api := filepath.Join(dst, "server", "api")
	if err := os.MkdirAll(api, 0o755); err != nil {
		t.Fatal(err)
	}
	// The source first, so the module is not older than it.
	for _, f := range []string{"hello.get.wat", "hello.get.wasm"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(api, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "endpoints.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// readiness reads a /readyz answer.
func readinessOf(t *testing.T, url string) (int, readiness) {
	t.Helper()
	status, body := httpGet(t, url)
	var r readiness
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("GET %s = %d %q: %v", url, status, body, err)
	}
	return status, r
}

// TestServeAdmin runs `endpoints serve --admin-addr` on an app whose store
// is a real Redis, reads /metrics, /livez and /readyz, then stops Redis:
// /readyz answers 503 naming the store until Redis is back.
func TestServeAdmin(t *testing.T) {
	t.Parallel()
	url, stopRedis, restartRedis := storagetest.StartRedis(t)
	app := helloApp(t, `{"storage": {"driver": "redis", "url": "`+url+`"}}`)
	addr, _, _, stdout, stderr, done := startCLIFlags(t, "serve", app, []string{"--admin-addr", "127.0.0.1:0"})
	admin := waitFor(t, stdout, regexp.MustCompile(`admin on (http://\S+):`), done)

	if status, body := httpGet(t, addr+"/api/hello?name=Ada"); status != 200 || body != `{"hello":"Ada"}` {
		t.Errorf("GET /api/hello?name=Ada = %d %s", status, body)
	}
	if status, _ := httpGet(t, addr+"/api/hello?name="); status != 400 {
		t.Errorf("GET /api/hello?name= = %d, want 400", status)
	}
	for _, path := range []string{"/metrics", "/livez", "/readyz"} {
		if status, _ := httpGet(t, addr+path); status != 404 {
			t.Errorf("GET %s on the public listener = %d, want 404: the admin endpoints are not public", path, status)
		}
	}
	if status, body := httpGet(t, admin+"/livez"); status != 200 || body != "ok\n" {
		t.Errorf("GET /livez = %d %q, want 200 ok", status, body)
	}
	if status, r := readinessOf(t, admin+"/readyz"); status != 200 || r.Status != "ready" || r.Checks["routes"] != "ok" || r.Checks["store"] != "ok" {
		t.Errorf("GET /readyz = %d %+v, want 200, ready, every check ok", status, r)
	}

	status, metrics := httpGet(t, admin+"/metrics")
	if status != 200 {
		t.Fatalf("GET /metrics = %d\n%s", status, metrics)
	}
	for _, want := range []string{
		`endpoints_requests_total{class="2xx",method="GET",route="/api/hello"} 1`,
		`endpoints_requests_total{class="4xx",method="GET",route="/api/hello"} 1`,
		`endpoints_requests_total{class="4xx",method="GET",route=""} 3`, // the three 404s
		`endpoints_validation_failures_total{method="GET",part="query",route="/api/hello"} 1`,
		`endpoints_request_duration_seconds_count{method="GET",route="/api/hello"} 2`,
		`endpoints_guest_duration_seconds_count{method="GET",route="/api/hello"} 1`,
		// How many instances are idle depends on the background compiler,
		// which replaces the interpreter's.
		`endpoints_pool_instances_idle{module="server/api/hello.get.wasm",route="/api/hello"} `,
		`endpoints_pool_memory_bytes{module="server/api/hello.get.wasm",route="/api/hello"} `,
		"go_goroutines ",
		"process_resident_memory_bytes ",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", metrics)
	}

	stopRedis()
	status, r := readinessOf(t, admin+"/readyz")
	if status != 503 || r.Status != "unavailable" || r.Checks["routes"] != "ok" || !strings.Contains(r.Checks["store"], strings.TrimPrefix(strings.TrimSuffix(url, "/0"), "redis://")) {
		t.Errorf("GET /readyz with Redis stopped = %d %+v, want 503, unavailable, the store check naming the server", status, r)
	}
	if _, metrics := httpGet(t, admin+"/metrics"); !strings.Contains(metrics, `endpoints_store_errors_total{op="ping"} 1`) {
		t.Errorf("/metrics does not count the failed ping:\n%s", metrics)
	}
	restartRedis()
	if !waitUntil(t, 10*time.Second, func() bool { status, _ := httpGet(t, admin+"/readyz"); return status == 200 }) {
		t.Errorf("/readyz still fails 10 s after Redis came back")
	}

	// The access log: one line per request, with its route and id.
	if !regexp.MustCompile(`msg="GET /api/hello\?name=Ada" method=GET route=/api/hello client=127\.0\.0\.1 status=200 bytes=15 duration=\S+ requestId=[0-9a-f]{24}\n`).MatchString(stderr.String()) {
		t.Errorf("the request was not logged with its route and id:\n%s", stderr.String())
	}
}

// TestServeAdminAddressInUse: a busy --admin-addr fails the start before
// anything is built or served, naming the flag.
func TestServeAdminAddressInUse(t *testing.T) {
	t.Parallel()
	app := helloApp(t, `{}`)
	addr, _, _, _, _, _ := startCLIFlags(t, "serve", app, nil)
	busy := strings.TrimPrefix(addr, "http://")
	code, _, errOut := runCLI("serve", app, "--addr", "127.0.0.1:0", "--admin-addr", busy, "--cache-dir", t.TempDir())
	if code != exitError || !strings.Contains(errOut, "--admin-addr "+busy) {
		t.Errorf("serve with a busy --admin-addr = %d\n%s\nwant exit 1 naming the flag", code, errOut)
	}
}

// closeHookListener calls onClose before it closes its listener.
type closeHookListener struct {
	net.Listener
	onClose func()
}

func (l *closeHookListener) Close() error {
	l.onClose()
	return l.Listener.Close()
}

// TestStopServingUnreadyFirst: when serve stops, /readyz answers 503 before
// the public listener closes, so a load balancer stops sending traffic no
// later than the port starts refusing it.
func TestStopServingUnreadyFirst(t *testing.T) {
	t.Parallel()
	app := helloApp(t, `{}`)
	logger := slog.New(slog.DiscardHandler)
	h, err := host.New(context.Background(), app, host.Options{Mode: host.Production, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	var stopping atomic.Bool
	admin := adminHandler(h, prometheus.New(), logger, &stopping)
	readyzNow := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		admin.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		return rec
	}
	if rec := readyzNow(); rec.Code != 200 {
		t.Fatalf("GET /readyz while serving = %d %s", rec.Code, rec.Body)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	atClose := make(chan *httptest.ResponseRecorder, 1)
	ln = &closeHookListener{Listener: ln, onClose: func() {
		select {
		case atClose <- readyzNow():
		default: // closed again
		}
	}}
	srv := h.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if status, _ := httpGet(t, "http://"+ln.Addr().String()+"/api/hello?name=Ada"); status != 200 {
		t.Fatalf("GET /api/hello = %d", status)
	}
	stopServing(&stopping, srv, h, nil, logger)
	<-served
	rec := <-atClose
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), errStopping) {
		t.Errorf("GET /readyz as the public listener closed = %d %s, want 503 saying %q", rec.Code, rec.Body, errStopping)
	}
}

// TestStopServingPastTheTimeout: a request still running when
// server.shutdownTimeout ends is reported once, in a line that names the
// setting and how to raise it, not as two bare "context deadline
// exceeded" warnings.
func TestStopServingPastTheTimeout(t *testing.T) {
	t.Parallel()
	app := helloApp(t, `{"server": {"shutdownTimeout": "50ms"}}`)
	var logged strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &logged}, nil))
	h, err := host.New(context.Background(), app, host.Options{Mode: host.Production, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})}
	go srv.Serve(ln)
	go http.Get("http://" + ln.Addr().String() + "/")
	<-started
	var stopping atomic.Bool
	stopServing(&stopping, srv, h, nil, logger)
	mu.Lock()
	out := logged.String()
	mu.Unlock()
	if n := strings.Count(out, "level=WARN"); n != 1 || !strings.Contains(out, "server.shutdownTimeout (50ms)") || !strings.Contains(out, "ENDPOINTS_SERVER_SHUTDOWN_TIMEOUT") {
		t.Errorf("the log:\n%s\nwant one warning naming server.shutdownTimeout (50ms) and ENDPOINTS_SERVER_SHUTDOWN_TIMEOUT", out)
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
