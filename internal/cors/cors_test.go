package cors_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/cors"
)

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		c    cors.Config
		want string
	}{
		{"no origins", cors.Config{}, "cors.allowOrigins: list the origins"},
		{"any origin with credentials", cors.Config{AllowOrigins: []string{"*"}, AllowCredentials: true}, `cors.allowOrigins[0]: "*" with allowCredentials`},
		{"a path", cors.Config{AllowOrigins: []string{"http://localhost:5173/"}}, `cors.allowOrigins[0]: "http://localhost:5173/": want an origin`},
		{"a wildcard inside", cors.Config{AllowOrigins: []string{"https://a.*.example.com"}}, "a wildcard stands for one whole label"},
		{"a lower-case method", cors.Config{AllowOrigins: []string{"*"}, AllowMethods: []string{"get"}}, `cors.allowMethods[0]: "get"`},
		{"any header with credentials", cors.Config{AllowOrigins: []string{"https://a.example"}, AllowHeaders: []string{"*"}, AllowCredentials: true}, `cors.allowHeaders[0]: "*" does not work with allowCredentials`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := cors.New(tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New error = %v, want it to contain %s", err, tt.want)
			}
		})
	}
}

func TestPolicy(t *testing.T) {
	p, err := cors.New(cors.Config{AllowOrigins: []string{"http://localhost:5173", "https://*.example.com"}, AllowCredentials: true, MaxAge: cors.Duration(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	preflight := func(origin, method, headers string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("OPTIONS", "/api/x", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", method)
		if headers != "" {
			r.Header.Set("Access-Control-Request-Headers", headers)
		}
		w := httptest.NewRecorder()
		if !p.Preflight(w, r) {
			t.Fatal("a preflight was not answered")
		}
		return w
	}
	tests := []struct {
		name, origin, method, headers string
		allowed                       bool
	}{
		{"an exact origin", "http://localhost:5173", "PATCH", "content-type, authorization", true},
		{"a wildcard origin", "https://app.example.com", "GET", "", true},
		{"two labels under a wildcard", "https://a.b.example.com", "GET", "", false},
		{"another scheme", "http://app.example.com", "GET", "", false},
		{"another origin", "https://evil.example", "GET", "", false},
		{"a method not allowed", "http://localhost:5173", "TRACE", "", false},
		{"a header not allowed", "http://localhost:5173", "POST", "x-secret", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := preflight(tt.origin, tt.method, tt.headers)
			got := w.Header().Get("Access-Control-Allow-Origin")
			if w.Code != 204 || (got == tt.origin) != tt.allowed || !strings.Contains(w.Header().Get("Vary"), "Origin") {
				t.Errorf("got %d %v, want 204 allowing it: %v", w.Code, w.Header(), tt.allowed)
			}
			if tt.allowed && (w.Header().Get("Access-Control-Allow-Credentials") != "true" || w.Header().Get("Access-Control-Max-Age") != "60") {
				t.Errorf("headers %v, want credentials and a max age of 60", w.Header())
			}
		})
	}
	t.Run("an OPTIONS that is no preflight is the route's", func(t *testing.T) {
		r := httptest.NewRequest("OPTIONS", "/api/x", nil)
		r.Header.Set("Origin", "http://localhost:5173")
		if p.Preflight(httptest.NewRecorder(), r) {
			t.Error("answered an OPTIONS without Access-Control-Request-Method")
		}
	})
	t.Run("an answer to an allowed origin", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/api/x", nil)
		r.Header.Set("Origin", "http://localhost:5173")
		h := http.Header{}
		p.Apply(h, r)
		if h.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || h.Get("Access-Control-Allow-Credentials") != "true" ||
			!strings.Contains(h.Get("Access-Control-Expose-Headers"), "X-Request-Id") || h.Get("Vary") != "Origin" {
			t.Errorf("headers %v", h)
		}
	})
	t.Run("any origin without credentials", func(t *testing.T) {
		p, _ := cors.New(cors.Config{AllowOrigins: []string{"*"}})
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Origin", "https://anyone.example")
		h := http.Header{}
		p.Apply(h, r)
		if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Vary") != "" {
			t.Errorf("headers %v, want * without Vary", h)
		}
	})
}

// TestInABrowser has a real browser decide: a page on one origin calls an
// API on another, with credentials and an Authorization header (a
// preflight), and the page reports what fetch gave it.
func TestInABrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs chromium: %v", err)
		}
		t.Skipf("needs chromium: %v", err)
	}
	api := func(allowed string) *httptest.Server {
		p, err := cors.New(cors.Config{AllowOrigins: []string{allowed}, AllowCredentials: true})
		if err != nil {
			t.Fatal(err)
		}
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p.Preflight(w, r) {
				return
			}
			p.Apply(w.Header(), r)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"auth":%q}`, r.Header.Get("Authorization"))
		}))
	}
	results := make(chan string, 1)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/result" {
			results <- r.URL.Query().Get("v")
			return
		}
		fmt.Fprintf(w, `<!doctype html><script>
fetch(%q, {credentials: "include", headers: {"Authorization": "Bearer t0k"}})
  .then(r => r.json()).then(j => "ok:" + j.auth, e => "blocked")
  .then(v => fetch("/result?v=" + encodeURIComponent(v)));
</script>`, r.URL.Query().Get("api"))
	}))
	defer page.Close()
	for _, tt := range []struct {
		name, allowed, want string
	}{
		{"the page's origin is allowed", page.URL, "ok:Bearer t0k"},
		{"another origin is allowed", "https://elsewhere.example", "blocked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := api(tt.allowed)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// Chromium's helper processes may still write to its profile
			// for a moment after it exits: removed best-effort, not by
			// t.TempDir, whose cleanup fails the test.
			profile, err := os.MkdirTemp("", "endpoints-cors-chromium-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(profile)
			cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
				"--user-data-dir="+profile, "--virtual-time-budget=10000", "--dump-dom", page.URL+"/?api="+srv.URL+"/api/me")
			done := make(chan error, 1)
			go func() { done <- cmd.Run() }()
			select {
			case got := <-results:
				if got != tt.want {
					t.Errorf("the page saw %q, want %q", got, tt.want)
				}
			case err := <-done:
				t.Fatalf("chromium ended without a result: %v", err)
			case <-ctx.Done():
				t.Fatal("no result from the page within 30 s")
			}
			<-done // chromium exits once its virtual time budget is spent
		})
	}
}

// TestWithHeaders: the headers of the app's API-key schemes are allowed
// when allowHeaders is left to its default, and only then.
func TestWithHeaders(t *testing.T) {
	preflight := func(p *cors.Policy, headers string) http.Header {
		r := httptest.NewRequest("OPTIONS", "/api/x", nil)
		r.Header.Set("Origin", "http://localhost:5173")
		r.Header.Set("Access-Control-Request-Method", "GET")
		r.Header.Set("Access-Control-Request-Headers", headers)
		w := httptest.NewRecorder()
		p.Preflight(w, r)
		return w.Header()
	}
	tests := []struct {
		name         string
		allowHeaders []string
		add          []string
		wantAllowed  bool
		wantLine     string
	}{
		{"the default gains the key header", nil, []string{"X-API-Key"}, true,
			"Content-Type, Authorization, Idempotency-Key, X-Request-Id, X-API-Key"},
		{"a header already allowed is not repeated", nil, []string{"authorization", "X-API-Key", "x-api-key"}, true,
			"Content-Type, Authorization, Idempotency-Key, X-Request-Id, X-API-Key"},
		{"a listed allowHeaders is kept as listed", []string{"Content-Type"}, []string{"X-API-Key"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := cors.New(cors.Config{AllowOrigins: []string{"http://localhost:5173"}, AllowHeaders: tt.allowHeaders})
			if err != nil {
				t.Fatal(err)
			}
			p := base.WithHeaders(tt.add)
			h := preflight(p, "x-api-key")
			if got := h.Get("Access-Control-Allow-Origin") != ""; got != tt.wantAllowed {
				t.Fatalf("preflight with X-API-Key allowed = %v, want %v (%v)", got, tt.wantAllowed, h)
			}
			if tt.wantAllowed && h.Get("Access-Control-Allow-Headers") != tt.wantLine {
				t.Errorf("Access-Control-Allow-Headers = %q, want %q", h.Get("Access-Control-Allow-Headers"), tt.wantLine)
			}
			if preflight(base, "x-api-key").Get("Access-Control-Allow-Origin") != "" {
				t.Error("WithHeaders changed the policy it was called on")
			}
		})
	}
}
