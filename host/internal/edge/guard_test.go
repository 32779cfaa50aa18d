package edge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// fakeVerifier answers by the request's X-Cred header: "" none, "bad" a
// bad credential, "down" unavailable, else a principal with that scope.
type fakeVerifier struct{}

func (fakeVerifier) Verify(_ context.Context, r *http.Request) (*auth.Principal, error) {
	switch v := r.Header.Get("X-Cred"); v {
	case "":
		return nil, &auth.Failure{Missing: true}
	case "bad":
		return nil, &auth.Failure{Reason: "bad token"}
	case "down":
		return nil, errors.New("the key set cannot be fetched")
	default:
		return &auth.Principal{Subject: "ada", Scopes: []string{v}}, nil
	}
}
func (fakeVerifier) Challenge(f *auth.Failure) string {
	if f == nil {
		return `Bearer realm="api"`
	}
	return `Bearer realm="api", error="invalid_token"`
}
func (fakeVerifier) Close() error { return nil }

// guardRequest is a GuardRequest whose middleware verify calls answer
// result with principal (or fail when !ok).
type guardRequest struct {
	context.Context
	result    int32
	principal *abi.Principal
	ok        bool
	calls     int
}

func (*guardRequest) Principal() *abi.Principal       { return nil }
func (*guardRequest) StoreSpan(string) func(error)    { return nil }
func (*guardRequest) ObserveStoreError(string, error) {}
func (*guardRequest) RequestID() string               { return "req-1" }
func (g *guardRequest) Verify(*Middleware, string) (int32, *abi.Principal, bool) {
	g.calls++
	return g.result, g.principal, g.ok
}

// TestGuardCheck: what a guard decides for each credential, from built-in
// verifiers and a middleware's verify export alike.
func TestGuardCheck(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	bearer := &scheme{name: "bearer", builtIn: fakeVerifier{}, spec: auth.Scheme{Name: "bearer", Type: "http", HTTPScheme: "bearer"}}
	mw := &scheme{name: "partners", mw: &Middleware{File: "server/middleware/auth.wasm", Name: "auth", verifies: true}, spec: auth.Scheme{Name: "partners", Type: "apiKey"}}
	one := func(s *scheme, scopes ...string) *Guard {
		return &Guard{alts: []alternative{{{scheme: s, scopes: scopes}}}, schemes: []*scheme{s}, scoped: len(scopes) > 0, logger: logger}
	}
	optional := one(bearer)
	optional.optional = true
	for _, tc := range []struct {
		name       string
		g          *Guard
		cred       string
		req        guardRequest
		status     int
		subject    string
		challenge  string
		data       string
		mwCalls    int
		failedSent bool
	}{
		{name: "verified", g: one(bearer), cred: "read", subject: "ada"},
		{name: "no credential", g: one(bearer), status: 401, challenge: `Bearer realm="api"`, data: `schemes:[bearer]`},
		{name: "bad credential", g: one(bearer), cred: "bad", status: 401, challenge: `error="invalid_token"`, data: "bad token", failedSent: true},
		{name: "optional, none sent", g: optional},
		{name: "optional, bad one sent", g: optional, cred: "bad", status: 401, failedSent: true},
		{name: "scope lacking", g: one(bearer, "write"), cred: "read", status: 403, challenge: `insufficient_scope`, data: "missingScopes:[write]"},
		{name: "scope held", g: one(bearer, "write"), cred: "write", subject: "ada"},
		{name: "verifier down", g: one(bearer), cred: "down", status: 503, data: "try again later"},
		{name: "middleware ok", g: one(mw), req: guardRequest{result: abi.VerifyOK, principal: &abi.Principal{Subject: "acme"}, ok: true}, subject: "acme", mwCalls: 1},
		{name: "middleware missing", g: one(mw), req: guardRequest{result: abi.VerifyMissing, ok: true}, status: 401, challenge: `ApiKey realm="partners"`, mwCalls: 1},
		{name: "middleware rejected", g: one(mw), req: guardRequest{result: abi.VerifyRejected, ok: true}, status: 401, data: "rejected", mwCalls: 1, failedSent: true},
		{name: "middleware ok without principal", g: one(mw), req: guardRequest{result: abi.VerifyOK, ok: true}, status: 503, mwCalls: 1},
		{name: "middleware bad result", g: one(mw), req: guardRequest{result: 7, ok: true}, status: 503, mwCalls: 1},
		{name: "middleware failed", g: one(mw), req: guardRequest{ok: false}, status: 503, mwCalls: 1},
		// Both alternatives name the middleware scheme: it runs once.
		{name: "a scheme verified once", g: &Guard{alts: []alternative{{{scheme: mw, scopes: []string{"admin"}}}, {{scheme: mw}, {scheme: bearer}}}, schemes: []*scheme{mw, bearer}, logger: logger},
			req: guardRequest{result: abi.VerifyMissing, ok: true}, status: 401, mwCalls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/orders", nil)
			if tc.cred != "" {
				r.Header.Set("X-Cred", tc.cred)
			}
			req := tc.req
			req.Context = context.Background()
			v := tc.g.Check(r, &req)
			if v.Status != tc.status {
				t.Fatalf("status %d, want %d (%+v)", v.Status, tc.status, v)
			}
			if tc.subject != "" && (v.Principal == nil || v.Principal.Subject != tc.subject) {
				t.Errorf("principal %+v, want subject %q", v.Principal, tc.subject)
			}
			if tc.status != 0 && v.Principal != nil {
				t.Errorf("a refusal carries principal %+v", v.Principal)
			}
			if tc.challenge != "" && !slices.ContainsFunc(v.Challenge, func(c string) bool { return strings.Contains(c, tc.challenge) }) {
				t.Errorf("challenges %q, want one with %q", v.Challenge, tc.challenge)
			}
			data := strings.NewReplacer(" ", "", "map[", "", "]", "]").Replace(fmtData(v.Data))
			if tc.data != "" && !strings.Contains(data, strings.ReplaceAll(tc.data, " ", "")) {
				t.Errorf("data %s, want %q in it", data, tc.data)
			}
			if req.calls != tc.mwCalls {
				t.Errorf("the middleware ran %d times, want %d", req.calls, tc.mwCalls)
			}
			if v.failed != tc.failedSent {
				t.Errorf("failed = %v, want %v", v.failed, tc.failedSent)
			}
		})
	}
}

// TestGuardFailureBudget: past its budget a client address is answered
// 429 with no verification; a credential that passes costs nothing.
func TestGuardFailureBudget(t *testing.T) {
	bearer := &scheme{name: "bearer", builtIn: fakeVerifier{}, spec: auth.Scheme{Name: "bearer", Type: "http", HTTPScheme: "bearer"}}
	now := time.Unix(1_700_000_000, 0)
	g := &Guard{alts: []alternative{{{scheme: bearer}}}, schemes: []*scheme{bearer},
		failures: auth.NewFailures(2, 2, time.Minute, func() time.Time { return now }),
		logger:   slog.New(slog.NewTextHandler(io.Discard, nil))}
	check := func(cred string) Verdict {
		r := httptest.NewRequest("GET", "/orders", nil)
		r.RemoteAddr = "192.0.2.7:4000"
		r.Header.Set("X-Cred", cred)
		return g.Check(r, &guardRequest{Context: context.Background()})
	}
	for i := range 5 {
		if v := check("read"); v.Status != 0 {
			t.Fatalf("good credential %d: status %d", i, v.Status)
		}
	}
	for i, want := range []int{401, 401, 429} {
		if v := check("bad"); v.Status != want {
			t.Fatalf("bad credential %d: status %d, want %d", i, v.Status, want)
		}
	}
	v := check("read")
	if v.Status != 429 || v.RetryAfter <= 0 {
		t.Fatalf("a good credential past the budget: %+v, want 429 with a Retry-After", v)
	}
	if d, _ := v.Data.(map[string]any); d["policy"] != FailurePolicy {
		t.Errorf("429 data %v, want policy %q", v.Data, FailurePolicy)
	}
}

// fmtData prints a verdict's data for the table's substring checks.
func fmtData(d any) string { return strings.TrimSpace(fmt.Sprint(d)) }
