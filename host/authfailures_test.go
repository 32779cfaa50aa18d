package host_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// basicAuthApp has two routes that require the basic scheme "admin"
// (alice, "correct horse"): GET /api/limited, which a rate limit allows 3
// times a minute per client address, and GET /api/open, which none
// limits. The host trusts 127.0.0.1 as a proxy, so tests speak for many
// client addresses through X-Forwarded-For. extra adds members to
// endpoints.json.
func basicAuthApp(t testing.TB, extra string) *app {
	hash, err := bcrypt.GenerateFromPassword([]byte("correct horse"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	secured := echoWithMarker
	secured.contract = `{"summary":"echo","security":[{"admin":[]}]}`
	return newApp(t).
		wat("server/api/limited.get.wasm", secured).
		wat("server/api/open.get.wasm", secured).
		file("endpoints.json", fmt.Appendf(nil, `{"security": {"admin": {"basic": {"users": {"alice": {"bcrypt": %q}}}}},
			"trustedProxies": ["127.0.0.1"],
			"rateLimits": {"few": {"routes": ["/api/limited"], "limit": 3, "window": "1m"}}%s}`, hash, extra))
}

func basicHeader(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// Failed credentials are counted: against the route's rate limit, and in
// the failure budget of the client's address and of the user name, which
// is spent before the password is checked. Past either, 429.
func TestFailedCredentialsAreLimited(t *testing.T) {
	opts := host.Options{Mode: host.Production, Logger: discardLogger()}
	opts.OpenAPI.Document = []byte(`{"components":{"securitySchemes":{"admin":{"type":"http","scheme":"basic"}}}}`)
	t.Run("200 wrong passwords on a route limited to 3 a minute", func(t *testing.T) {
		srv, _ := basicAuthApp(t, "").serve(opts)
		count := map[int]int{}
		for range 200 {
			res := do(t, srv, "GET", "/api/limited", "", "Authorization", basicHeader("alice", "guess"), "X-Forwarded-For", "203.0.113.1")
			count[res.status]++
			if res.status == http.StatusTooManyRequests {
				if retry, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || retry < 1 {
					t.Fatalf("429 with Retry-After %q, want whole seconds", res.header.Get("Retry-After"))
				}
			}
		}
		if count[http.StatusUnauthorized] != 3 || count[http.StatusTooManyRequests] != 197 {
			t.Errorf("statuses %v, want 3 × 401 then 197 × 429", count)
		}
	})
	t.Run("wrong passwords on a route no rate limit covers", func(t *testing.T) {
		srv, _ := basicAuthApp(t, "").serve(opts)
		count := map[int]int{}
		var last response
		for range 50 {
			last = do(t, srv, "GET", "/api/open", "", "Authorization", basicHeader("bob", "guess"), "X-Forwarded-For", "203.0.113.2")
			count[last.status]++
		}
		if count[http.StatusUnauthorized] != config.DefaultAuthFailuresPerAddress || count[http.StatusTooManyRequests] != 50-config.DefaultAuthFailuresPerAddress {
			t.Errorf("statuses %v, want %d × 401 (the failure budget) then 429", count, config.DefaultAuthFailuresPerAddress)
		}
		if !strings.Contains(last.body, `"policy":"authFailures"`) {
			t.Errorf("the 429's body %s does not name the authFailures policy", last.body)
		}
		// The right password from the same address waits too: the
		// budget is spent before anything is checked.
		if res := do(t, srv, "GET", "/api/open", "", "Authorization", basicHeader("alice", "correct horse"), "X-Forwarded-For", "203.0.113.2"); res.status != http.StatusTooManyRequests {
			t.Errorf("alice from the guessing address: %d, want 429", res.status)
		}
		// Another address is not concerned, and a good credential spends
		// nothing.
		for i := range config.DefaultAuthFailuresPerAddress + 5 {
			if res := do(t, srv, "GET", "/api/open", "", "Authorization", basicHeader("alice", "correct horse"), "X-Forwarded-For", "198.51.100.9"); res.status != 200 {
				t.Fatalf("alice from another address, request %d: %d %s, want 200", i+1, res.status, res.body)
			}
		}
		// Requests without a credential spend nothing either.
		for range config.DefaultAuthFailuresPerAddress + 1 {
			if res := do(t, srv, "GET", "/api/open", "", "X-Forwarded-For", "198.51.100.10"); res.status != http.StatusUnauthorized {
				t.Fatalf("no credential: %d, want 401", res.status)
			}
		}
	})
	t.Run("guesses for one user name spread over many addresses", func(t *testing.T) {
		srv, _ := basicAuthApp(t, "").serve(opts)
		var got []int
		for i := range config.DefaultAuthFailuresPerUser + 2 {
			res := do(t, srv, "GET", "/api/open", "", "Authorization", basicHeader("alice", "guess"), "X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i+1))
			got = append(got, res.status)
		}
		if got[config.DefaultAuthFailuresPerUser-1] != http.StatusUnauthorized || got[config.DefaultAuthFailuresPerUser] != http.StatusTooManyRequests {
			t.Errorf("statuses %v: want 401 until the user name's budget is spent, then 429", got)
		}
	})
}

// endpoints.json's authFailures sets the budgets.
func TestFailureBudgetSetting(t *testing.T) {
	opts := host.Options{Mode: host.Production, Logger: discardLogger()}
	opts.OpenAPI.Document = []byte(`{"components":{"securitySchemes":{"admin":{"type":"http","scheme":"basic"}}}}`)
	srv, _ := basicAuthApp(t, `, "authFailures": {"perAddress": 2, "perUser": 3, "window": "1h"}`).serve(opts)
	var got []int
	for _, from := range []string{"203.0.113.1", "203.0.113.1", "203.0.113.1", "203.0.113.2", "203.0.113.3"} {
		got = append(got, do(t, srv, "GET", "/api/open", "", "Authorization", basicHeader("alice", "guess"), "X-Forwarded-For", from).status)
	}
	// Two per address; the third from 203.0.113.2 spends alice's third,
	// after which her name is refused.
	want := []int{401, 401, 429, 401, 429}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

func TestFailureBudgetIsDocumented(t *testing.T) {
	opts := host.Options{Mode: host.Production, Logger: discardLogger()}
	opts.OpenAPI.Document = []byte(`{"components":{"securitySchemes":{"admin":{"type":"http","scheme":"basic"}}}}`)
	h, _ := basicAuthApp(t, "").host(opts)
	var d struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct{ Headers map[string]any }
		}
	}
	if err := json.Unmarshal(h.Document(), &d); err != nil {
		t.Fatal(err)
	}
	r, ok := d.Paths["/api/open"]["get"].Responses["429"]
	if !ok || r.Headers["Retry-After"] == nil {
		t.Errorf("GET /api/open does not document its 429 with Retry-After: %+v", d.Paths["/api/open"]["get"].Responses)
	}
}
