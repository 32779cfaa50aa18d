package accesslog_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/accesslog"
)

// hello is the one-route app of package host's examples (GET /api/hello,
// a query parameter name of 1-64 characters), committed with its module.
const hello = "../../host/testdata/hello"

// lockedBuffer is a bytes.Buffer for a logger that requests write from
// their own goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveHello serves the hello app with an access log to handler's output;
// closing the log writes what it queued.
func serveHello(t *testing.T, handler slog.Handler, overrides ...config.Override) (*httptest.Server, *accesslog.Log) {
	t.Helper()
	access := accesslog.New(slog.New(handler))
	t.Cleanup(func() { access.Close() })
	h, err := host.New(context.Background(), hello, host.Options{
		Observer:        access.Observer(),
		CacheDir:        filepath.Join(os.TempDir(), "endpoints-test-cache"),
		Logger:          slog.New(slog.DiscardHandler),
		ConfigOverrides: overrides,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, access
}

func get(t *testing.T, srv *httptest.Server, path string, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// TestJSONLines checks every key of the JSON lines of a 200, a 400 and a
// 404.
func TestJSONLines(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	srv, access := serveHello(t, slog.NewJSONHandler(&out, nil))
	ok := get(t, srv, "/api/hello?name=Ada", "X-Request-Id", "req-1")
	get(t, srv, "/api/hello?name=", "X-Request-Id", "req-2")
	get(t, srv, "/no/such/thing")
	access.Close()

	type line struct {
		Level, Msg, Method, Route, RequestID string
		Status                               int
		Bytes                                int64
		Duration                             time.Duration
	}
	want := []line{
		{Level: "INFO", Msg: "GET /api/hello?name=Ada", Method: "GET", Route: "/api/hello", RequestID: "req-1", Status: 200, Bytes: ok.ContentLength},
		{Level: "INFO", Msg: "GET /api/hello?name=", Method: "GET", Route: "/api/hello", RequestID: "req-2", Status: 400},
		{Level: "INFO", Msg: "GET /no/such/thing", Method: "GET", Status: 404},
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, raw := range lines {
		t.Run(want[i].Msg, func(t *testing.T) {
			var got line
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			if got.Duration <= 0 {
				t.Errorf("duration %d, want a positive number of nanoseconds: %s", got.Duration, raw)
			}
			got.Duration = 0
			if want[i].Bytes == 0 {
				got.Bytes = 0 // the size of an error body is the host's business
			}
			if got != want[i] {
				t.Errorf("line %s\n got %+v\nwant %+v", raw, got, want[i])
			}
		})
	}
}

// TestTextLine checks the text line of a request.
func TestTextLine(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	srv, access := serveHello(t, slog.NewTextHandler(&out, nil))
	get(t, srv, "/api/hello", "X-Request-Id", "abc")
	access.Close()
	re := regexp.MustCompile(`^time=\S+ level=INFO msg="GET /api/hello" method=GET route=/api/hello client=127\.0\.0\.1 status=200 bytes=17 duration=\d+(\.\d+)?(µs|ms|s) requestId=abc\n$`)
	if !re.MatchString(out.String()) {
		t.Errorf("line %q, want it to match %s", out.String(), re)
	}
}

// TestClientBehindTrustedProxy: behind a trusted proxy the line's client
// is the address the proxy forwards, as the rate limits count it, not
// the proxy's; a hop a client wrote to the left of it is not believed.
func TestClientBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	srv, access := serveHello(t, slog.NewTextHandler(&out, nil),
		config.Override{Pointer: "/trustedProxies", Value: `["127.0.0.1"]`, Source: "test"})
	get(t, srv, "/api/hello", "X-Forwarded-For", "198.51.100.9, 203.0.113.7")
	access.Close()
	if !strings.Contains(out.String(), " client=203.0.113.7 ") {
		t.Errorf("line %q, want client=203.0.113.7, the address the trusted proxy forwarded", out.String())
	}
}

// TestTraceID checks that a request's valid W3C traceparent gives its
// line a trace_id, and that an invalid one gives none.
func TestTraceID(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, traceparent, want string }{
		{"valid", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", " trace_id=4bf92f3577b34da6a3ce929d0e0e4736\n"},
		{"upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", ""},
		{"all zeros", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out lockedBuffer
			srv, access := serveHello(t, slog.NewTextHandler(&out, nil))
			get(t, srv, "/api/hello", "Traceparent", tt.traceparent)
			access.Close()
			got := out.String()
			if tt.want == "" && strings.Contains(got, "trace_id") || tt.want != "" && !strings.HasSuffix(got, tt.want) {
				t.Errorf("line %q, want it to end with %q", got, tt.want)
			}
		})
	}
}

// TestLevels checks that a server error is logged as an error, and that a
// logger above Info keeps only those.
func TestLevels(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	access := accesslog.New(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	o := access.Observer()
	req := httptest.NewRequest("GET", "/api/broken", nil)
	o.Request(host.RequestEvent{Request: req, Method: "GET", Route: "/api/broken", Status: 200})
	o.Request(host.RequestEvent{Request: req, Method: "GET", Route: "/api/broken", Status: 503})
	access.Close()
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `level=ERROR msg="GET /api/broken"`) {
		t.Errorf("logged %q at level Warn, want the 503 alone, as an error", out.String())
	}
}

// TestEveryLineOnce: 16 goroutines released at once report 2000 requests
// each, across the Close; every one is logged once.
func TestEveryLineOnce(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	access := accesslog.New(slog.New(slog.NewTextHandler(&out, nil)))
	o := access.Observer()
	const goroutines, requests = 16, 2000
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for i := range requests {
				req := httptest.NewRequest("GET", fmt.Sprintf("/r/%d/%d", g, i), nil)
				o.Request(host.RequestEvent{Request: req, Method: "GET", Status: 200})
				if g == 0 && i == requests/2 {
					access.Close() // the rest are logged at once
				}
			}
		})
	}
	close(start)
	wg.Wait()
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		m := regexp.MustCompile(`msg="GET (/r/\d+/\d+)"`).FindStringSubmatch(l)
		if m == nil || seen[m[1]] {
			t.Fatalf("line %q: not a request's, or its second", l)
		}
		seen[m[1]] = true
	}
	if len(seen) != goroutines*requests {
		t.Errorf("%d lines, want %d", len(seen), goroutines*requests)
	}
}

// TestAPIKeyInTheQueryIsRedacted serves the hello app behind an apiKey
// scheme sent in the query: the key never reaches the log, whether it
// was accepted, refused or sent to a path no route serves.
func TestAPIKeyInTheQueryIsRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(hello)); err != nil {
		t.Fatal(err)
	}
	sha := fmt.Sprintf("%x", sha256.Sum256([]byte("s3cret")))
	if err := os.WriteFile(filepath.Join(dir, "endpoints.json"), []byte(`{"security": {"key": {"apiKey": {"keys": [{"sha256": "`+sha+`", "subject": "ci"}]}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	access := accesslog.New(slog.New(slog.NewTextHandler(&out, nil)))
	opts := host.Options{Observer: access.Observer(), CacheDir: filepath.Join(os.TempDir(), "endpoints-test-cache"), Logger: slog.New(slog.DiscardHandler)}
	opts.OpenAPI.Document = []byte(`{"components": {"securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "api_key"}}}, "security": [{"key": []}]}`)
	h, err := host.New(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/api/hello?name=Ada&api_key=s3cret", 200, `msg="GET /api/hello?name=Ada&api_key=REDACTED"`},
		{"/api/hello?api%5Fkey=s3cret&name=Ada", 200, `msg="GET /api/hello?api%5Fkey=REDACTED&name=Ada"`},
		{"/api/hello?name=Ada&api_key=s3cretX", 401, `msg="GET /api/hello?name=Ada&api_key=REDACTED"`},
		{"/no/such/thing?api_key=s3cret;x=1", 404, `msg="GET /no/such/thing?api_key=REDACTED;x=1"`},
	}
	for _, tt := range tests {
		if res := get(t, srv, tt.path); res.StatusCode != tt.status {
			t.Errorf("GET %s: %d, want %d", tt.path, res.StatusCode, tt.status)
		}
	}
	access.Close()
	for _, tt := range tests {
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("the log has no line with %s:\n%s", tt.want, out.String())
		}
	}
	if strings.Contains(out.String(), "s3cret") {
		t.Errorf("the log shows the API key:\n%s", out.String())
	}
}

// TestClientTextIsCut: the method, path and query a client chose reach
// the line cut to a few hundred bytes each, saying how much was left out,
// however long the client made them.
func TestClientTextIsCut(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	srv, access := serveHello(t, slog.NewJSONHandler(&out, nil))
	req, _ := http.NewRequest(strings.Repeat("M", 5000), srv.URL+"/"+strings.Repeat("p", 20000)+"?q="+strings.Repeat("q", 20000), nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	access.Close()
	var got struct{ Msg, Method string }
	if err := json.Unmarshal(out.b.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(got.Msg) > 1000 || len(got.Method) > 300 {
		t.Errorf("the line carries %d bytes of method, path and query and a method of %d; want at most 1000 and 300", len(got.Msg), len(got.Method))
	}
	for _, want := range []string{"…[+4744 bytes]", "…[+19745 bytes]", "…[+19746 bytes]"} {
		if !strings.Contains(got.Msg, want) {
			t.Errorf("msg %q does not say %q", got.Msg, want)
		}
	}
}
