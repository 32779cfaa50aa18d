package host_test

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

const httpImports = `
  (import "endpoints" "http_send" (func $http_send (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "http_response" (func $http_response (param i32 i32 i32) (result i32)))
  (import "endpoints" "http_body_read" (func $http_body_read (param i32 i32 i32) (result i32)))
  (import "endpoints" "http_close" (func $http_close (param i32) (result i32)))
  (import "endpoints" "http_error" (func $http_error (param i32 i32) (result i32)))
`

// proxyGuest sends the request whose http_send JSON is the incoming
// body, then answers the response's head JSON followed by its body; when
// http_send fails it answers 400 minus the errno (409 for -9, 410 for
// -10, 405 for -5, 402 for -2) with http_error's JSON.
var proxyGuest = watModule{
	imports: httpImports,
	extra:   "  (global $h (mut i32) (i32.const 0))\n",
	handle: `(local.set $n (call $body_read (i32.const 65536) (i32.const 65536)))
    (global.set $h (call $http_send (i32.const 65536) (local.get $n) (i32.const 0) (i32.const 0)))
    (if (i32.lt_s (global.get $h) (i32.const 0))
      (then
        (drop (call $set_status (i32.sub (i32.const 400) (global.get $h))))
        (local.set $n (call $http_error (i32.const 131072) (i32.const 4096)))
        (drop (call $write (i32.const 131072) (local.get $n)))
        (return (i32.const 0))))
    (local.set $n (call $http_response (global.get $h) (i32.const 131072) (i32.const 4096)))
    (drop (call $write (i32.const 131072) (local.get $n)))
    (block $done (loop $more
      (local.set $n (call $http_body_read (global.get $h) (i32.const 131072) (i32.const 4096)))
      (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
      (drop (call $write (i32.const 131072) (local.get $n)))
      (br $more)))
    (if (i32.lt_s (local.get $n) (i32.const 0))
      (then (return (i32.const 1))))
    (drop (call $http_close (global.get $h)))
    (if (i32.ne (call $http_close (global.get $h)) (i32.const -1))
      (then (return (i32.const 2))))
    (i32.const 0)`,
}

// repeatGuest sends the incoming body's request until http_send fails,
// closing each response, and answers 400 minus the errno that stopped it.
var repeatGuest = watModule{
	imports: httpImports,
	extra:   "  (global $h (mut i32) (i32.const 0))\n",
	handle: `(local.set $n (call $body_read (i32.const 65536) (i32.const 65536)))
    (block $done (loop $more
      (global.set $h (call $http_send (i32.const 65536) (local.get $n) (i32.const 0) (i32.const 0)))
      (br_if $done (i32.lt_s (global.get $h) (i32.const 0)))
      (drop (call $http_close (global.get $h)))
      (br $more)))
    (drop (call $set_status (i32.sub (i32.const 400) (global.get $h))))
    (i32.const 0)`,
}

// holdGuest sends the incoming body's request until http_send fails,
// keeping each response open, and answers 400 minus the errno that
// stopped it.
var holdGuest = watModule{
	imports: httpImports,
	extra:   "  (global $h (mut i32) (i32.const 0))\n",
	handle: `(local.set $n (call $body_read (i32.const 65536) (i32.const 65536)))
    (block $done (loop $more
      (global.set $h (call $http_send (i32.const 65536) (local.get $n) (i32.const 0) (i32.const 0)))
      (br_if $done (i32.lt_s (global.get $h) (i32.const 0)))
      (br $more)))
    (drop (call $set_status (i32.sub (i32.const 400) (global.get $h))))
    (i32.const 0)`,
}

// TestOutboundHeaderBytesBoundsACall: limits.outboundHeaderBytes bounds
// the heads a call's open responses hold: a guest that keeps every
// response open gets ErrLimit at the first one past it (of 700 bytes,
// the third past 2000), well before limits.outboundRequests; with the
// default (1 MiB) the requests' count stops it.
func TestOutboundHeaderBytesBoundsACall(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("X-Pad", strings.Repeat("p", 600))
	}))
	t.Cleanup(backend.Close)
	for _, tc := range []struct {
		name   string
		limits string
		sent   int32
	}{
		{"limits.outboundHeaderBytes", `{"outboundRequests": 50, "outboundHeaderBytes": 2000}`, 3},
		{"the default", `{"outboundRequests": 10}`, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := newApp(t).
				file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}, "limits": `+tc.limits+`}`)).
				wat("server/api/hold.post.wasm", holdGuest).
				serve(host.Options{})
			before := hits.Load()
			res := do(t, srv, "POST", "/api/hold", `{"url":"`+backend.URL+`/"}`)
			if res.status != 410 || hits.Load()-before != tc.sent {
				t.Errorf("got %d after %d requests, want 410 (ErrLimit) after %d", res.status, hits.Load()-before, tc.sent)
			}
		})
	}
}

func TestGuestsCallListedServices(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	var traceparents sync.Map
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		traceparents.Store(r.URL.Path, r.Header.Get("Traceparent"))
		w.Header().Set("X-Backend", "yes")
		io.WriteString(w, "hello from "+r.URL.Path)
	}))
	t.Cleanup(backend.Close)
	base := backend.URL // http://127.0.0.1:port

	var events []host.OutboundEvent
	var requests []host.RequestEvent
	var mu sync.Mutex
	observer := &host.Observer{
		Outbound: func(e host.OutboundEvent) { mu.Lock(); events = append(events, e); mu.Unlock() },
		Request:  func(e host.RequestEvent) { mu.Lock(); requests = append(requests, e); mu.Unlock() },
	}
	srv, _ := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+base+`"]}, "limits": {"outboundRequests": 3}}`)).
		wat("server/api/proxy.post.wasm", proxyGuest).
		wat("server/api/repeat.post.wasm", repeatGuest).
		serve(host.Options{Observer: observer})

	t.Run("a listed service", func(t *testing.T) {
		res := do(t, srv, "POST", "/api/proxy", `{"url":"`+base+`/a"}`,
			"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		if res.status != 200 || !strings.HasPrefix(res.body, `{"status":200,"headers":[`) ||
			!strings.Contains(res.body, `["x-backend","yes"]`) || !strings.HasSuffix(res.body, "hello from /a") {
			t.Errorf("got %d %s", res.status, res.body)
		}
		if tp, _ := traceparents.Load("/a"); tp != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
			t.Errorf("the service got traceparent %q, want the request's", tp)
		}
	})
	for _, tc := range []struct{ name, req, want string }{
		{"an unlisted host", `{"url":"http://example.com/"}`, `409 {"code":"not_allowed"`},
		{"a metadata address", `{"url":"http://169.254.169.254/latest/meta-data/"}`, `409 {"code":"not_allowed"`},
		{"a listed address on another port", `{"url":"http://127.0.0.1:1/"}`, `409 {"code":"not_allowed"`},
		{"a relative URL", `{"url":"/api/proxy"}`, `402 {"code":"invalid"`},
		{"not JSON", `{"url":`, `402 {"code":"invalid"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := hits.Load()
			res := do(t, srv, "POST", "/api/proxy", tc.req)
			if got := fmt.Sprintf("%d %s", res.status, res.body); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %s, want %s...", got, tc.want)
			}
			if hits.Load() != before {
				t.Error("the request reached the service")
			}
		})
	}
	t.Run("limits.outboundRequests per call", func(t *testing.T) {
		before := hits.Load()
		res := do(t, srv, "POST", "/api/repeat", `{"url":"`+base+`/r"}`)
		if res.status != 410 || hits.Load()-before != 3 {
			t.Errorf("got %d after %d requests, want 410 (ErrLimit) after 3", res.status, hits.Load()-before)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	var last host.RequestEvent
	for _, e := range requests {
		if e.Route == "/api/repeat" {
			last = e
		}
	}
	if last.OutboundRequests != 3 || last.OutboundDuration <= 0 {
		t.Errorf("the request event counts %d outbound requests taking %s, want 3", last.OutboundRequests, last.OutboundDuration)
	}
	wantHost := strings.TrimPrefix(base, "http://")
	var ok int
	for _, e := range events {
		if e.Host == wantHost && e.Status == 200 && e.Error == "" && e.RequestMethod == "GET" && e.Method == "POST" {
			ok++
		}
	}
	if ok != 4 {
		t.Errorf("%d outbound events of 200 from %s, want 4: %+v", ok, wantHost, events)
	}
}

// TestOutboundSpansCarryTheTracersContext: a tracer's Span hook sees each
// outbound request as a StepOutbound and its propagation header reaches
// the service called.
func TestOutboundSpansCarryTheTracersContext(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Traceparent")
	}))
	t.Cleanup(backend.Close)
	var ended atomic.Int32
	var target atomic.Value
	observer := &host.Observer{Span: func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
		if e.Step != host.StepOutbound {
			return ctx, nil
		}
		target.Store(e.Op + " " + e.Target)
		e.Header.Set("Traceparent", "00-11111111111111111111111111111111-2222222222222222-01")
		return ctx, func(error) { ended.Add(1) }
	}}
	// The embedder lists the service (Options.Outbound), not endpoints.json.
	srv, _ := newApp(t).
		wat("server/api/proxy.post.wasm", proxyGuest).
		serve(host.Options{Observer: observer, Outbound: config.Outbound{AllowedHosts: []string{backend.URL}}})
	res := do(t, srv, "POST", "/api/proxy", `{"url":"`+backend.URL+`/x"}`,
		"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if res.status != 200 {
		t.Fatalf("got %d %s", res.status, res.body)
	}
	if tp := <-got; tp != "00-11111111111111111111111111111111-2222222222222222-01" {
		t.Errorf("the service got traceparent %q, want the client span's", tp)
	}
	if want := "GET " + backend.URL; target.Load() != want || ended.Load() != 1 {
		t.Errorf("span %v ended %d times, want %q once", target.Load(), ended.Load(), want)
	}
}

// TestGoGuestUsesNetHTTP: a Go guest's ordinary http.Get goes through the
// host once it imports the SDK's outbound package, with the host's checks.
func TestGoGuestUsesNetHTTP(t *testing.T) {
	t.Parallel()
	wasm := filepath.Join(t.TempDir(), "fetch.get.wasm")
	if err := guestbuild.Go(context.Background(), "../guest-sdk/go/testdata/outbound", wasm); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/there", http.StatusFound)
			return
		}
		if r.URL.Path == "/never" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("X-Backend", "yes")
		io.WriteString(w, "hello from "+r.URL.Path)
	}))
	t.Cleanup(backend.Close)
	t.Cleanup(func() { close(release) }) // before backend.Close, which waits for handlers
	srv, _ := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}}`)).
		copyModule("server/api/fetch.get.wasm", wasm).
		serve(host.Options{})
	for _, tc := range []struct{ url, want string }{
		{backend.URL + "/a", "200 200 yes hello from /a"},
		{backend.URL + "/moved", "200 200 yes hello from /there"},
		{"http://169.254.169.254/latest/meta-data/", "502 true Get \"http://169.254.169.254/latest/meta-data/\": outbound request: not_allowed:"},
		// http.Client.Timeout reaches the host as the request's timeout:
		// the guest gives up after 200 ms, within the call's 10 s, and
		// answers its own 504.
		{backend.URL + "/never&timeout=200", "504 gave up: Get \"" + backend.URL + "/never\": outbound request: timeout: " +
			strings.TrimPrefix(backend.URL, "http://") + " did not answer within the request's timeout of"},
	} {
		target, rest, _ := strings.Cut(tc.url, "&")
		if rest != "" {
			rest = "&" + rest
		}
		res := do(t, srv, "GET", "/api/fetch?url="+url.QueryEscape(target)+rest, "")
		if got := fmt.Sprintf("%d %s", res.status, res.body); !strings.HasPrefix(got, tc.want) {
			t.Errorf("GET %s: got %s, want %s...", tc.url, got, tc.want)
		}
	}
}

// TestOutboundCAFile: endpoints.json's outbound.caFile, relative to the
// app, makes an internal service's certificate trusted; without it the
// TLS check fails, and a missing file fails the load naming the setting.
func TestOutboundCAFile(t *testing.T) {
	t.Parallel()
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal") }))
	t.Cleanup(backend.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: backend.Certificate().Raw})
	req := `{"url":"` + backend.URL + `/"}`
	for _, tc := range []struct{ name, settings, want string }{
		{"with the CA", `"caFile": "certs/ca.pem"`, "200 "},
		{"without", `"maxConcurrentPerHost": 4`, `405 {"code":"tls"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := newApp(t).
				file("certs/ca.pem", ca).
				file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"], `+tc.settings+`}}`)).
				wat("server/api/proxy.post.wasm", proxyGuest).
				serve(host.Options{})
			res := do(t, srv, "POST", "/api/proxy", req)
			if got := fmt.Sprintf("%d %s", res.status, res.body); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %s, want %s...", got, tc.want)
			}
		})
	}
	a := newApp(t).file("endpoints.json", []byte(`{"outbound": {"caFile": "missing.pem"}}`)).wat("server/api/proxy.post.wasm", proxyGuest)
	if _, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t)}); err == nil || !strings.Contains(err.Error(), "/outbound/caFile") {
		t.Errorf("a missing CA file: %v, want an error naming /outbound/caFile", err)
	}
	// A CA file an override names, missing or holding no certificate:
	// the error says which variable set it, as a bad value's does.
	for _, tc := range []struct{ name, file, want string }{
		{"missing", "/nonexistent/ca.pem", "/nonexistent/ca.pem does not exist: put there the PEM certificates"},
		{"no certificate", "endpoints.json", "holds no PEM certificate"},
	} {
		t.Run("override "+tc.name, func(t *testing.T) {
			a := newApp(t).file("endpoints.json", []byte(`{}`)).wat("server/api/proxy.post.wasm", proxyGuest)
			set := []config.Override{{Pointer: "/outbound/caFile", Value: tc.file, Source: "ENDPOINTS_OUTBOUND_CA_FILE"}}
			_, err := host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t), ConfigOverrides: set})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "(/outbound/caFile set by ENDPOINTS_OUTBOUND_CA_FILE)") {
				t.Errorf("got %v, want %q and the override's source", err, tc.want)
			}
		})
	}
	bad := host.Options{CacheDir: testCacheDir(t), Outbound: config.Outbound{AllowedHosts: []string{"api.example.com"}}}
	if _, err := host.New(context.Background(), newApp(t).dir, bad); err == nil || !strings.Contains(err.Error(), `entry 0 "api.example.com": want scheme://host[:port]`) {
		t.Errorf("a bad entry of Options.Outbound: %v", err)
	}
}

// TestASlowServiceTimesOutWhileTheGuestCanAnswer: a service that never
// answers holds the guest until shortly before limits.timeout, when its
// request fails with code timeout, so that the guest answers itself (here
// 405, its answer to -5) rather than being stopped at the deadline, where
// the host would answer 500; a body that stops coming fails its read the
// same way. The deadline is 2 s, so that the margin (200 ms) leaves the
// guest its time on a loaded machine too (at 500 ms, 50 ms once did not).
func TestASlowServiceTimesOutWhileTheGuestCanAnswer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			io.WriteString(w, "first")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(backend.Close)
	t.Cleanup(func() { close(release) })
	srv, logs := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}, "limits": {"timeout": "2s"}}`)).
		wat("server/api/proxy.post.wasm", proxyGuest).
		serve(host.Options{})
	res := do(t, srv, "POST", "/api/proxy", `{"url":"`+backend.URL+`/slow-headers"}`)
	if res.status != 405 || !strings.Contains(res.body, `"code":"timeout"`) {
		t.Errorf("slow headers: got %d %s, want the guest's 405 with code timeout", res.status, res.body)
	}
	// The guest fails its call when a body read fails (error code 1): a
	// plain route's answer goes out as written, so the client sees it
	// cut off.
	resp, err := http.Post(srv.URL+"/api/proxy", "application/json", strings.NewReader(`{"url":"`+backend.URL+`/slow-body"}`))
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Errorf("slow body: the answer ended normally, want it cut off")
	}
	if got := logs.String(); !strings.Contains(got, "error code 1") || strings.Contains(got, "past its") {
		t.Errorf("the log does not say the guest failed on its body read, before its deadline:\n%s", got)
	}
}

// TestARequestsTimeoutLeavesTheGuestItsTime: a request with a timeout
// of its own (200 ms) to a service that never answers ends with code
// timeout, naming the request's timeout, and the guest answers its own
// status (405), with the rest of the call's 10 s left; the test does not
// wait for them.
func TestARequestsTimeoutLeavesTheGuestItsTime(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(backend.Close)
	t.Cleanup(func() { close(release) })
	srv, logs := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}, "limits": {"timeout": "10s"}}`)).
		wat("server/api/proxy.post.wasm", proxyGuest).
		serve(host.Options{})
	res := do(t, srv, "POST", "/api/proxy", `{"url":"`+backend.URL+`/never","timeout":200}`)
	if res.status != 405 || !strings.Contains(res.body, `"code":"timeout"`) || !strings.Contains(res.body, "the request's timeout of 200ms") {
		t.Errorf("got %d %s, want the guest's 405 with code timeout naming the request's timeout", res.status, res.body)
	}
	if got := logs.String(); strings.Contains(got, "past its") {
		t.Errorf("the call was stopped at its deadline:\n%s", got)
	}
	res = do(t, srv, "POST", "/api/proxy", `{"url":"`+backend.URL+`/never","timeout":-5}`)
	if res.status != 402 || !strings.Contains(res.body, `"code":"invalid"`) || !strings.Contains(res.body, "timeout -5") {
		t.Errorf("a negative timeout: got %d %s, want the guest's 402 with code invalid", res.status, res.body)
	}
}

// TestCloseStopsAGuestWaitingOnAService: closing the host ends an
// outbound request still waiting for its service, instead of waiting for
// the call's deadline (an hour here).
func TestCloseStopsAGuestWaitingOnAService(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(backend.Close)
	t.Cleanup(func() { close(release) })
	h, _ := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}, "limits": {"timeout": "1h"}}`)).
		wat("server/api/proxy.post.wasm", proxyGuest).
		host(host.Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/api/proxy", "application/json", strings.NewReader(`{"url":"`+backend.URL+`/slow"}`))
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-arrived
	stopNow, cancel := context.WithCancel(context.Background())
	cancel()
	h.Shutdown(stopNow)
	if status := <-answered; status != 0 && status != 500 && status != 503 {
		t.Errorf("the stopped call answered %d, want 500, 503 or a closed connection", status)
	}
}

// TestOutboundOutsideARequest: http_send from a module's start function,
// which runs at load with no request, is ErrState (-6), and so are the
// other http_* functions there.
func TestOutboundOutsideARequest(t *testing.T) {
	t.Parallel()
	req := `{"url":"http://127.0.0.1:8089/"}`
	m := watModule{
		imports: httpImports,
		extra: fmt.Sprintf(`  (global $sent (mut i32) (i32.const 0))
  (global $read (mut i32) (i32.const 0))
  (data (i32.const 4096) %q)
  (func $init
    (global.set $sent (call $http_send (i32.const 4096) (i32.const %d) (i32.const 0) (i32.const 0)))
    (global.set $read (call $http_body_read (i32.const 0) (i32.const 8192) (i32.const 16))))
  (start $init)
`, req, len(req)),
		handle: `(drop (call $set_status (i32.sub (i32.const 400) (i32.add (global.get $sent) (global.get $read)))))
    (i32.const 0)`,
	}
	srv, _ := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["http://127.0.0.1:8089"]}}`)).
		wat("server/api/early.get.wasm", m).
		serve(host.Options{})
	// -6 + -6: 412.
	if res := do(t, srv, "GET", "/api/early", ""); res.status != 412 {
		t.Errorf("got %d, want 412 (both calls answered -6 at load)", res.status)
	}
}

// TestAServiceThatRefusesIsNamedToTheGuest: a listed service whose port
// nothing listens on fails http_send with -5 and code connect, and the
// message the guest reads names the host and port and what to do, not
// Go's "dial tcp ...: connect: connection refused", which only the host's
// debug log keeps.
func TestAServiceThatRefusesIsNamedToTheGuest(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv, logs := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["http://`+addr+`"]}}`)).
		wat("server/api/proxy.post.wasm", proxyGuest).
		serve(host.Options{})
	res := do(t, srv, "POST", "/api/proxy", `{"url":"http://`+addr+`/x?token=secret"}`)
	if res.status != 405 || !strings.HasPrefix(res.body, `{"code":"connect"`) {
		t.Fatalf("got %d %s, want 405 (-5) with code connect", res.status, res.body)
	}
	for _, want := range []string{addr, "refused", "nothing listens"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("the guest reads %s, which does not say %q", res.body, want)
		}
	}
	if strings.Contains(res.body, "dial tcp") || strings.Contains(res.body, `Get \"`) {
		t.Errorf("the guest reads Go's error: %s", res.body)
	}
	if !waitFor(t, 5*time.Second, func() bool {
		return strings.Contains(logs.String(), "outbound request failed") && strings.Contains(logs.String(), "connection refused")
	}) {
		t.Errorf("the debug log does not keep Go's error:\n%s", logs)
	}
	if strings.Contains(logs.String(), "token=secret") {
		t.Errorf("the debug log holds the URL's query:\n%s", logs)
	}
}
