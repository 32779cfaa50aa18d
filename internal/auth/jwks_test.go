package auth_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

var discard = slog.New(slog.DiscardHandler)

// waitBound bounds a wait that, when the code is right, ends at once: it
// only turns a hang into a failure.
const waitBound = 30 * time.Second

// within runs f and fails the test if it does not return within
// waitBound: f must not wait for a JWKS server that hangs.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(waitBound):
		t.Fatalf("%s waited for the hanging JWKS server", what)
	}
}

// A JWKS URL redirected to another origin is not followed: the attacker's
// key set behind the redirect never signs a token that verifies.
func TestJWKSURLRedirects(t *testing.T) {
	keys := newKeys(t)
	attacker := newKeys(t)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(jwksJSON(t, attacker["ec"].public))
	}))
	defer evil.Close()
	var redirectTo atomic.Value
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			w.Write(jwksJSON(t, keys["ec"].public))
			return
		}
		http.Redirect(w, r, redirectTo.Load().(string), http.StatusFound)
	}))
	defer idp.Close()
	claims := map[string]any{"sub": "admin", "scope": "admin", "exp": time.Now().Add(time.Hour).Unix()}
	tests := []struct {
		name, to string
		signer   keyPair
		wantErr  string // "" verifies
	}{
		{"within its origin", idp.URL + "/moved", keys["ec"], ""},
		{"to another origin", evil.URL + "/jwks.json", attacker["ec"], "refused a redirect from"},
		{"to another port of the same host", strings.Replace(evil.URL, "http://127.0.0.1", "http://localhost", 1) + "/jwks.json", attacker["ec"], "refused a redirect from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			redirectTo.Store(tt.to)
			v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: idp.URL + "/jwks.json"}}, auth.Env{Logger: discard})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			tok := mint(t, tt.signer.private, claims)
			if tt.wantErr == "" {
				<-auth.Loaded(v)
				if p, err := v.Verify(context.Background(), withBearer(tok)); err != nil || p.Subject != "admin" {
					t.Errorf("Verify = %v, %v; want admin", p, err)
				}
				return
			}
			// Wait for the fetch to have failed, then try the forgery.
			var last error
			if !poll.Until(waitBound, func() bool {
				_, last = v.Verify(context.Background(), withBearer(tok))
				return last != nil && strings.Contains(last.Error(), tt.wantErr)
			}) {
				t.Fatalf("Verify = %v (nil: the attacker's token verified); want an error saying %q", last, tt.wantErr)
			}
			if !errors.Is(last, auth.ErrUnavailable) {
				t.Errorf("Verify = %v; want ErrUnavailable", last)
			}
		})
	}
}

// hangingIdP serves the key set to the first fetch, then holds every
// fetch until release is closed, telling entered of each.
type hangingIdP struct {
	*httptest.Server
	fetches atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func newHangingIdP(t *testing.T, serveFirst []byte) *hangingIdP {
	s := &hangingIdP{entered: make(chan struct{}, 100), release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := s.fetches.Add(1); n == 1 && serveFirst != nil {
			w.Write(serveFirst)
			return
		}
		s.entered <- struct{}{}
		select {
		case <-s.release:
		case <-r.Context().Done():
		}
		http.Error(w, "released", http.StatusServiceUnavailable)
	}))
	t.Cleanup(s.Close)
	return s
}

// While a fetch hangs (a token named a kid the set lacks), tokens signed
// with cached keys are verified without waiting for it.
func TestJWKSURLHangingFetchDoesNotBlockCachedKeys(t *testing.T) {
	keys := newKeys(t)
	idp := newHangingIdP(t, jwksJSON(t, keys["ec"].public))
	defer close(idp.release)
	now := time.Now()
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: idp.URL, Timeout: auth.Duration(time.Hour)}},
		auth.Env{Logger: discard, Now: func() time.Time { return time.Unix(0, clock.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	<-auth.Loaded(v)
	clock.Store(now.Add(time.Minute).UnixNano())
	claims := map[string]any{"sub": "alice", "exp": now.Add(time.Hour).Unix()}
	unknown := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), withBearer(mint(t, keys["ed"].private, claims)))
		unknown <- err
	}()
	<-idp.entered // the fetch for the unknown kid hangs
	within(t, "a token with a cached key", func() {
		if p, err := v.Verify(context.Background(), withBearer(mint(t, keys["ec"].private, claims))); err != nil || p.Subject != "alice" {
			t.Errorf("Verify = %v, %v; want alice", p, err)
		}
	})
	within(t, "a second token with an unknown kid, its context cancelled", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var f *auth.Failure
		if _, err := v.Verify(ctx, withBearer(mint(t, keys["rsa"].private, claims))); !errors.As(err, &f) {
			t.Errorf("Verify = %v; want a *Failure (a key the set does not hold)", err)
		}
	})
	if n := idp.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2: the first and the one for the unknown kid", n)
	}
	idp.release <- struct{}{}
	var f *auth.Failure
	if err := <-unknown; !errors.As(err, &f) {
		t.Errorf("the token with an unknown kid: %v, want a *Failure once the fetch failed", err)
	}
}

// While no key set was ever loaded, requests are refused at once
// (ErrUnavailable), and only the background fetches: not one per request.
func TestJWKSURLNeverLoadedIsFetchedOnce(t *testing.T) {
	keys := newKeys(t)
	idp := newHangingIdP(t, nil)
	defer close(idp.release)
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: idp.URL, Timeout: auth.Duration(time.Hour)}}, auth.Env{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	<-idp.entered
	tok := mint(t, keys["ec"].private, map[string]any{"sub": "a", "exp": time.Now().Add(time.Hour).Unix()})
	within(t, "50 requests", func() {
		for i := range 50 {
			if _, err := v.Verify(context.Background(), withBearer(tok)); !errors.Is(err, auth.ErrUnavailable) {
				t.Fatalf("request %d: Verify = %v, want ErrUnavailable", i, err)
			}
		}
	})
	if n := idp.fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 50 requests, want 1", n)
	}
}

func TestJWKSRetryBacksOff(t *testing.T) {
	tests := []struct {
		failures int
		refresh  time.Duration
		want     time.Duration
	}{
		{1, time.Hour, time.Second},
		{2, time.Hour, 2 * time.Second},
		{5, time.Hour, 16 * time.Second},
		{30, time.Hour, 5 * time.Minute},
		{4, 3 * time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		if got := auth.RetryAfter(tt.failures, tt.refresh); got != tt.want {
			t.Errorf("retryAfter(%d, %s) = %s, want %s", tt.failures, tt.refresh, got, tt.want)
		}
	}
}

// fetchLoops counts the goroutines that keep a JWKS URL's key set
// fetched, one per verifier of a jwksUrl that is not closed.
func fetchLoops() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			// Each goroutine's trace ends with the function that
			// started it; one not yet running shows no frame of its own.
			return strings.Count(string(buf[:n]), "created by github.com/wasmendpoints/endpoints/internal/auth.urlKeys in goroutine")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestJWKSURLOffline: a verifier made for a tool that serves nothing
// (Env.Offline: `endpoints build`, `openapi`) never fetches its key set:
// no loop that fetches it runs, and a token is refused as before a first
// fetch answered. One that serves runs that loop from its start.
func TestJWKSURLOffline(t *testing.T) {
	var fetches atomic.Int32
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		_, _ = w.Write([]byte(`{"keys":[]}`))
	}))
	defer idp.Close()
	// The loops of the verifiers earlier tests closed end first.
	if !poll.Until(waitBound, func() bool { return fetchLoops() == 0 }) {
		t.Fatalf("%d JWKS fetch loops still run after their verifiers closed", fetchLoops())
	}
	cfg := auth.Config{JWT: &auth.JWTConfig{JWKSURL: idp.URL}}
	for _, offline := range []bool{true, false} {
		v, err := auth.New(bearer, cfg, auth.Env{Logger: discard, Offline: offline})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fetchLoops(), map[bool]int{true: 0, false: 1}[offline]; got != want {
			t.Errorf("Offline %v: %d JWKS fetch loops run, want %d", offline, got, want)
		}
		if offline {
			if _, err := v.Verify(context.Background(), withBearer("a.b.c")); err == nil {
				t.Errorf("Offline: Verify accepted a token")
			}
		}
		v.Close()
		if !poll.Until(waitBound, func() bool { return fetchLoops() == 0 }) {
			t.Fatalf("Offline %v: the fetch loop still runs after Close", offline)
		}
	}
	idp.Close()
	if n := fetches.Load(); n > 1 {
		t.Errorf("%d fetches, want at most the one of the verifier that serves", n)
	}
}
