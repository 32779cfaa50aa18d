package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/openapi"
	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/redis"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

func TestRequestID(t *testing.T) {
	srv, logs := newApp(t).wat("server/api/trap.get.wasm", watModule{contract: `{}`, handle: `(unreachable)`}).
		wat("server/api/hello.get.wasm", echoWithMarker).serve(host.Options{Mode: host.Production})
	tests := []struct {
		name, sent string
		keep       bool
	}{
		{"a usable id is kept", "req-42:retry/1", true},
		{"none: the host makes one", "", false},
		{"a line break is not an id", "a\tb", false},
		{"too long", strings.Repeat("x", 129), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.sent != "" {
				headers = []string{"X-Request-Id", tt.sent}
			}
			res := do(t, srv, "GET", "/api/hello", "", headers...)
			got := res.header.Get("X-Request-Id")
			switch {
			case tt.keep && got != tt.sent:
				t.Errorf("X-Request-Id = %q, want the client's %q", got, tt.sent)
			case !tt.keep && !generatedRequestID.MatchString(got):
				t.Errorf("X-Request-Id = %q, want one the host made", got)
			case !strings.Contains(res.body, `"requestId":"`+got+`"`):
				t.Errorf("the guest did not get the id %q: %s", got, res.body)
			}
		})
	}
	t.Run("a guest failure's log line names the id", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/trap", "", "X-Request-Id", "trace-me")
		if res.status != 500 || res.header.Get("X-Request-Id") != "trace-me" {
			t.Errorf("got %d X-Request-Id %q, want 500 with the id", res.status, res.header.Get("X-Request-Id"))
		}
		if !strings.Contains(logs.String(), "requestId=trace-me") {
			t.Errorf("the log does not name the request:\n%s", logs)
		}
	})
}

func TestCORS(t *testing.T) {
	srv, _ := newApp(t).
		file("endpoints.json", []byte(`{"cors": {"allowOrigins": ["http://localhost:5173"], "allowCredentials": true, "maxAge": "10m"}}`)).
		wat("server/api/hello.get.wasm", echoWithMarker).
		wat("server/routes/any.wasm", watModule{handle: plainOK, extra: okData}).
		serve(host.Options{Mode: host.Production})
	t.Run("a preflight is answered before routing", func(t *testing.T) {
		res := do(t, srv, "OPTIONS", "/api/hello", "", "Origin", "http://localhost:5173", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "authorization")
		if res.status != http.StatusNoContent || res.header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" ||
			res.header.Get("Access-Control-Allow-Credentials") != "true" || res.header.Get("Access-Control-Max-Age") != "600" {
			t.Errorf("got %d %v, want 204 allowing the origin with credentials for 600 s", res.status, res.header)
		}
	})
	t.Run("an answer carries the allowed origin", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/hello", "", "Origin", "http://localhost:5173")
		if res.status != 200 || res.header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || !strings.Contains(strings.Join(res.header.Values("Vary"), ","), "Origin") {
			t.Errorf("got %d %v, want 200 with Access-Control-Allow-Origin and Vary: Origin", res.status, res.header)
		}
	})
	t.Run("another origin gets no CORS headers", func(t *testing.T) {
		res := do(t, srv, "GET", "/api/hello", "", "Origin", "https://evil.example")
		if res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("Access-Control-Allow-Origin = %q for a foreign origin", res.header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("an OPTIONS that is no preflight reaches the route", func(t *testing.T) {
		res := do(t, srv, "OPTIONS", "/any", "")
		if res.status != 200 || res.body != "ok" {
			t.Errorf("got %d %q, want the plain route's own answer", res.status, res.body)
		}
	})
}

// rateLimitedApp limits GET /api/hello to 3 requests a minute per client
// address.
func rateLimitedApp(t *testing.T, storageJSON string) *app {
	return newApp(t).
		file("endpoints.json", []byte(`{`+storageJSON+`"rateLimits": {"hello": {"routes": ["/api/hello"], "methods": ["GET"], "limit": 3, "window": "1m"}}}`)).
		wat("server/api/hello.get.wasm", echoWithMarker).
		wat("server/api/other.get.wasm", echoWithMarker)
}

func TestRateLimit(t *testing.T) {
	srv, _ := rateLimitedApp(t, "").serve(host.Options{Mode: host.Production})
	for i := range 3 {
		res := do(t, srv, "GET", "/api/hello", "")
		if res.status != 200 || res.header.Get("RateLimit-Policy") == "" || res.header.Get("RateLimit") == "" {
			t.Fatalf("request %d: got %d %v, want 200 with RateLimit-Policy and RateLimit", i+1, res.status, res.header)
		}
	}
	res := do(t, srv, "GET", "/api/hello", "")
	retry, _ := strconv.Atoi(res.header.Get("Retry-After"))
	if res.status != http.StatusTooManyRequests || retry < 1 || res.header.Get("X-Handler") != "" ||
		!jsonEqual(t, res.body, `{"statusCode":429,"statusMessage":"Too Many Requests","data":{"policy":"hello","retryAfter":`+strconv.Itoa(retry)+`}}`) {
		t.Errorf("request 4: got %d %v %s, want 429 with Retry-After, without the handler", res.status, res.header, res.body)
	}
	if res := do(t, srv, "GET", "/api/other", ""); res.status != 200 || res.header.Get("RateLimit") != "" {
		t.Errorf("GET /api/other: got %d %v, want 200 without rate limit headers", res.status, res.header)
	}
}

// TestRateLimitKeysIPv6ByItsSlash64: the "ip" key counts an IPv6 client
// by its /64, as the failed-credentials budget and the breaker do: a host
// is commonly given a /64, and one that sent each request from another of
// its addresses had a fresh bucket for each.
func TestRateLimitKeysIPv6ByItsSlash64(t *testing.T) {
	srv, _ := rateLimitedApp(t, `"trustedProxies": ["127.0.0.0/8", "::1/128"],`).serve(host.Options{Mode: host.Production})
	for i := range 3 {
		if res := do(t, srv, "GET", "/api/hello", "", "X-Forwarded-For", fmt.Sprintf("2001:db8:1:2::%x", i+1)); res.status != 200 {
			t.Fatalf("request %d: %d %s, want 200", i+1, res.status, res.body)
		}
	}
	for _, addr := range []string{"2001:db8:1:2::4", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::5%eth0"} {
		if res := do(t, srv, "GET", "/api/hello", "", "X-Forwarded-For", addr); res.status != http.StatusTooManyRequests {
			t.Errorf("a 4th request from %s, in the same /64: %d, want 429", addr, res.status)
		}
	}
	if res := do(t, srv, "GET", "/api/hello", "", "X-Forwarded-For", "2001:db8:1:3::1"); res.status != 200 {
		t.Errorf("a request from another /64: %d, want 200", res.status)
	}
}

func TestRateLimitIsDocumented(t *testing.T) {
	h, _ := rateLimitedApp(t, "").host(host.Options{Mode: host.Production})
	doc := string(h.Document())
	if !strings.Contains(doc, `"429"`) || !strings.Contains(doc, `"EndpointsTooManyRequests"`) {
		t.Errorf("the document does not list the 429:\n%s", doc)
	}
	// Every answer of the limited operation declares the RateLimit
	// headers it carries; an operation no policy limits declares none.
	var d struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct{ Headers map[string]any }
		}
	}
	if err := json.Unmarshal(h.Document(), &d); err != nil {
		t.Fatal(err)
	}
	for status, r := range d.Paths["/api/hello"]["get"].Responses {
		if r.Headers["RateLimit-Policy"] == nil || r.Headers["RateLimit"] == nil {
			t.Errorf("GET /api/hello's %s does not declare RateLimit-Policy and RateLimit: %v", status, r.Headers)
		}
	}
	for status, r := range d.Paths["/api/other"]["get"].Responses {
		if r.Headers["RateLimit"] != nil {
			t.Errorf("GET /api/other's %s declares RateLimit, but no policy limits it", status)
		}
	}
}

// TestRateLimitSharedByTwoHosts runs two hosts on one real Redis: the
// bucket is the client's, whichever host it reaches.
func TestRateLimitSharedByTwoHosts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	url, _, _ := storagetest.StartRedis(t)
	a := rateLimitedApp(t, `"storage": {"driver": "redis", "url": "`+url+`", "namespace": "shared"},`)
	one, _ := a.serve(host.Options{Mode: host.Production})
	two, _ := a.serve(host.Options{Mode: host.Production})
	var statuses []int
	for i := range 6 {
		srv := one
		if i%2 == 1 {
			srv = two
		}
		statuses = append(statuses, do(t, srv, "GET", "/api/hello", "").status)
	}
	want := []int{200, 200, 200, 429, 429, 429}
	if !slices.Equal(statuses, want) {
		t.Errorf("statuses across two hosts = %v, want %v: three tokens in all, not three per host", statuses, want)
	}
}

var (
	_ storage.RateLimiter = (*storage.Memory)(nil)
	_ storage.RateLimiter = (*redis.Store)(nil)
)

// TestRateLimitPatternMatchingNothing: a rate limit whose route pattern
// matches no route (a typo, "/api/helo") fails a production start naming
// the member, and is a warning in development, as an entry of the routes
// configuration is; it was accepted silently, leaving the route it meant
// unlimited. A pattern that matches a route is no problem.
func TestRateLimitPatternMatchingNothing(t *testing.T) {
	tests := []struct {
		name, routes, methods, want string
	}{
		{"a typo", `["/api/helo"]`, `[]`, `endpoints.json: /rateLimits/hello/routes/0: pattern "/api/helo" matches no route of the app`},
		{"the second of two", `["/api/hello", "/api/nothing/**"]`, `[]`, `/rateLimits/hello/routes/1: pattern "/api/nothing/**" matches no route`},
		{"every route below", `["/api/**"]`, `[]`, ""},
		{"a route", `["/api/hello"]`, `[]`, ""},
		{"a route, its method", `["/api/hello"]`, `["GET"]`, ""},
		{"a POST limit on a GET route", `["/api/hello"]`, `["POST"]`, `endpoints.json: /rateLimits/hello/routes/0: pattern "/api/hello" matches no route serving POST (it matches GET /api/hello)`},
		{"a method no route serves", `[]`, `["DELETE"]`, `endpoints.json: /rateLimits/hello/methods: no route of the app serves DELETE`},
		{"one of its methods served", `["/api/**"]`, `["POST", "GET", "DELETE"]`, ""},
		{"none of its methods served", `["/api/**"]`, `["POST", "DELETE"]`, `/rateLimits/hello/routes/0: pattern "/api/**" matches no route serving POST or DELETE (it matches GET /api/hello)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).
				file("endpoints.json", []byte(`{"rateLimits": {"hello": {"routes": `+tt.routes+`, "methods": `+tt.methods+`, "limit": 3, "window": "1m"}}}`)).
				wat("server/api/hello.get.wasm", echoWithMarker)
			checkUnmatched(t, a, tt.want, "rateLimits")
		})
	}
}

// checkUnmatched checks an app whose entry of endpoints.json's key (or
// middleware) may name a pattern matching no route: a production start
// fails wrapping openapi.ErrUnmatchedPattern and naming want, a
// development host warns want and still serves GET /api/hello; with want
// "", both start and no warning names key.
func checkUnmatched(t *testing.T, a *app, want, key string) {
	t.Helper()
	_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger()})
	switch {
	case want == "" && err != nil:
		t.Fatalf("New in Production = %v, want no error", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, openapi.ErrUnmatchedPattern)):
		t.Fatalf("New in Production = %v, want an error wrapping ErrUnmatchedPattern naming %q", err, want)
	}
	h, _ := a.host(host.Options{Mode: host.Development})
	warnings := errorsText(h.Warnings())
	if want != "" && !strings.Contains(warnings, want) || want == "" && strings.Contains(warnings, key) {
		t.Errorf("Warnings() in Development = %q, want %q", warnings, want)
	}
	if got := serveOnce(h, "GET", "/api/hello"); !strings.HasPrefix(got, "200 ") {
		t.Errorf("GET /api/hello in Development = %s, want 200", got)
	}
}
