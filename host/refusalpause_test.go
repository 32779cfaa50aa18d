package host_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/storage"
)

// TestRefusalPause: after the host refuses a request for abuse (429: a
// rate limit, the Idempotency-Key client quota, the failed-authentication
// budget), the
// connection's next request waits server.refusalPause (an hour here),
// over real TCP with Host.HTTPServer: the 429 itself comes at once,
// another connection is served meanwhile, and the server's Shutdown ends
// the pause promptly without reading the next request. A trusted proxy's
// connection, a guest's own 429 and a pause of "0" are not paced: the next
// request is answered. (The pause's order of events is proven without
// time in package host/internal/pace.)
func TestRefusalPause(t *testing.T) {
	t.Parallel()
	busy := watModule{handle: `(drop (call $set_status (i32.const 429))) ` + plainOK, extra: okData}
	secured := echoWithMarker
	secured.contract = `{"summary":"echo","security":[{"admin":[]}]}`
	hash, err := bcrypt.GenerateFromPassword([]byte("correct horse"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		config string // members of endpoints.json
		// method and path of the requests sent until one is answered 429
		method, path string
		paced        bool
	}{
		{"a rate limit's 429", `"server": {"refusalPause": "1h"}`, "GET", "/api/hello", true},
		{"the per-client Idempotency-Key quota's 429", `"server": {"refusalPause": "1h"}`, "POST", "/api/orders", true},
		{"the failed-authentication budget's 429", `"server": {"refusalPause": "1h"}, "authFailures": {"perAddress": 2}`, "GET", "/api/secure", true},
		{"a trusted proxy's connection", `"server": {"refusalPause": "1h"}, "trustedProxies": ["127.0.0.1/32"]`, "GET", "/api/hello", false},
		{"a guest's own 429", `"server": {"refusalPause": "1h"}`, "GET", "/busy", false},
		{"server.refusalPause 0", `"server": {"refusalPause": "0"}`, "GET", "/api/hello", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newApp(t).
				file("endpoints.json", fmt.Appendf(nil, `{%s, "rateLimits": {"hello": {"routes": ["/api/hello"], "methods": ["GET"], "limit": 3, "window": "1m"}},
					"security": {"admin": {"basic": {"users": {"alice": {"bcrypt": %q}}}}}}`, tt.config, hash)).
				wat("server/api/secure.get.wasm", secured).
				wat("server/api/hello.get.wasm", echoWithMarker).
				wat("server/api/other.get.wasm", echoWithMarker).
				wat("server/api/orders.post.wasm", countingModulo()).
				wat("server/routes/busy.get.wasm", busy)
			// A 64 KiB budget of records: a client's share, a
			// sixteenth, is a few records.
			st := config.Storage{Namespace: "shop", IdempotencyBytes: 64 << 10}
			opts := host.Options{Mode: host.Production, Storage: st, Logger: discardLogger(),
				Store: storage.NewMemory(storage.MemoryOptions{IdempotencyBytes: st.IdempotencyBytes})}
			opts.OpenAPI.Document = []byte(`{"components":{"securitySchemes":{"admin":{"type":"http","scheme":"basic"}}}}`)
			h, _ := a.host(opts)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := h.HTTPServer()
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })
			addr := ln.Addr().String()

			c := dial(t, addr)
			n := 0
			send := func() {
				n++
				body := fmt.Sprintf(`{"item":"pen %d"}`, n)
				if tt.method == "GET" {
					body = ""
				}
				fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nIdempotency-Key: key-%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
					tt.method, tt.path, basicHeader("alice", "guess"), n, len(body), body)
			}
			for {
				send()
				res, body, err := c.response(tt.method)
				if err != nil {
					t.Fatalf("request %d: %v", n, err)
				}
				if res.StatusCode == 429 {
					break
				}
				if (res.StatusCode/100 != 2 && res.StatusCode != 401) || n == 100 {
					t.Fatalf("request %d: %d %s, want 2xx (401 with a wrong password) until a 429", n, res.StatusCode, body)
				}
			}
			send() // the next request on the refused connection
			other := dial(t, addr)
			fmt.Fprintf(other, "GET /api/other HTTP/1.1\r\nHost: x\r\n\r\n")
			if res, body, err := other.response("GET"); err != nil || res.StatusCode != 200 {
				t.Fatalf("another connection meanwhile: %v %v %s, want 200", err, res, body)
			}
			if !tt.paced {
				if res, body, err := c.response(tt.method); err != nil {
					t.Fatalf("the next request on the connection: %v, want an answer (not paced)", err)
				} else if res.StatusCode/100 != 2 && res.StatusCode != 401 && res.StatusCode != 429 {
					t.Fatalf("the next request on the connection: %d %s", res.StatusCode, body)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v, want it to end the pause", err)
			}
			if tt.paced {
				if res, body, err := c.response(tt.method); err == nil {
					t.Fatalf("the next request on the paced connection was answered %d %s; want it left unread at shutdown", res.StatusCode, strings.TrimSpace(body))
				}
			}
		})
	}
}
