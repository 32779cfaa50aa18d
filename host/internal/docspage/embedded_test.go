package docspage

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestEmbeddedScalarMatchesItsVersionFile checks that the built-in
// reference is the file scalar/update.sh wrote with scalar_version.go: a
// copy replaced by hand would keep the old version in its URL, which
// browsers cache for a year.
func TestEmbeddedScalarMatchesItsVersionFile(t *testing.T) {
	sum := sha256.Sum256(scalarGzip)
	if got := hex.EncodeToString(sum[:]); got != scalarSHA256 {
		t.Fatalf("scalar/standalone.js.gz has SHA-256 %s, scalar_version.go says %s: run scalar/update.sh VERSION rather than replacing the file", got, scalarSHA256)
	}
	zr, err := gzip.NewReader(bytes.NewReader(scalarGzip))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte("api-reference")) {
		t.Errorf("scalar/standalone.js.gz inflates to %d bytes that do not look like Scalar's API reference", len(js))
	}
}

func TestServeEmbedded(t *testing.T) {
	inflated := func() string {
		zr, _ := gzip.NewReader(bytes.NewReader(scalarGzip))
		b, _ := io.ReadAll(zr)
		return string(b)
	}()
	refused := 0
	p, err := New(Config{Path: "/docs", Title: "T", Schema: "/schema", ConfigFile: "endpoints.json",
		WriteError: func(w http.ResponseWriter, r *http.Request, status int, data any) { refused++; w.WriteHeader(status) }})
	if err != nil {
		t.Fatal(err)
	}
	script := "/docs/assets/scalar-" + ScalarVersion + "/standalone.js"
	tests := []struct {
		name, method, path string
		header             map[string]string
		status             int
		encoding           string
		body               string
	}{
		{"gzip as it is", "GET", script, map[string]string{"Accept-Encoding": "br, gzip"}, 200, "gzip", string(scalarGzip)},
		{"inflated when gzip is not accepted", "GET", script, nil, 200, "", inflated},
		{"gzip;q=0 refuses it", "GET", script, map[string]string{"Accept-Encoding": "gzip;q=0, *"}, 200, "", inflated},
		{"* accepts it", "GET", script, map[string]string{"Accept-Encoding": "*"}, 200, "gzip", string(scalarGzip)},
		{"HEAD", "HEAD", script, map[string]string{"Accept-Encoding": "gzip"}, 200, "gzip", ""},
		{"the browser has it", "GET", script, map[string]string{"If-None-Match": embeddedETag}, 304, "", ""},
		{"a weak validator matches", "GET", script, map[string]string{"If-None-Match": `"x", W/` + embeddedETag}, 304, "", ""},
		{"another version", "GET", script, map[string]string{"If-None-Match": `"scalar-0.0.0-0000000000000000"`}, 200, "", inflated},
		{"POST", "POST", script, nil, 405, "", ""},
		{"another version's path", "GET", "/docs/assets/scalar-0.0.1/standalone.js", nil, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			if served := p.Serve(w, r); served != (tt.status != 0) {
				t.Fatalf("Serve = %v", served)
			}
			if tt.status == 0 {
				return
			}
			if w.Code != tt.status || w.Header().Get("Content-Encoding") != tt.encoding || w.Body.String() != tt.body {
				t.Errorf("%d, Content-Encoding %q, %d bytes; want %d, %q, %d bytes", w.Code, w.Header().Get("Content-Encoding"), w.Body.Len(), tt.status, tt.encoding, len(tt.body))
			}
			if tt.status == 200 {
				h := w.Header()
				if h.Get("Cache-Control") != "public, max-age=31536000, immutable" || h.Get("ETag") != embeddedETag || h.Get("Vary") != "Accept-Encoding" || h.Get("Content-Type") != "text/javascript; charset=utf-8" {
					t.Errorf("headers %v", h)
				}
			}
		})
	}
	if refused != 1 {
		t.Errorf("WriteError called %d times, want 1 (the POST)", refused)
	}
}

// TestDocsPageOfflineInChromium loads the docs page in headless Chromium
// with every address but loopback unreachable, and checks that the built-in
// reference renders the document's operations; the same page loading the
// reference from the CDN renders none of them, which shows that the network
// is off indeed.
func TestDocsPageOfflineInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs chromium: %v", err)
		}
		t.Skipf("needs chromium: %v", err)
	}
	if testing.Short() {
		t.Skip("runs headless Chromium")
	}
	const doc = `{"openapi": "3.1.0", "info": {"title": "Offline Orders", "version": "1.0.0"},
	 "paths": {"/orders": {"get": {"operationId": "listOrders", "summary": "List the orders", "responses": {"200": {"description": "ok"}}},
	                       "post": {"operationId": "placeOrder", "summary": "Place an order", "responses": {"201": {"description": "placed"}}}}}}`
	tests := []struct {
		name, assets string
		renders      bool
	}{
		{"built in", "", true},
		{"from the CDN", "https://cdn.jsdelivr.net/npm/@scalar/api-reference@" + ScalarVersion + "/dist/browser", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(Config{Path: "/docs", Assets: tt.assets, Title: "Offline Orders", Schema: "/schema", ConfigFile: "endpoints.json",
				WriteError: func(w http.ResponseWriter, r *http.Request, status int, data any) { w.WriteHeader(status) }})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/schema" {
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(doc))
					return
				}
				if !p.Serve(w, r) {
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			// No name resolves and every connection goes to a proxy that
			// is not there, but for the loopback test server.
			cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
				"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=127.0.0.1",
				"--user-data-dir="+t.TempDir(), "--virtual-time-budget=20000", "--dump-dom", srv.URL+"/docs")
			dom, err := cmd.Output()
			if err != nil {
				t.Fatalf("chromium: %v", err)
			}
			for _, want := range []string{"List the orders", "Place an order"} {
				if got := strings.Contains(string(dom), want); got != tt.renders {
					t.Errorf("the rendered page shows %q: %v, want %v (%d bytes of DOM)", want, got, tt.renders, len(dom))
				}
			}
		})
	}
}
