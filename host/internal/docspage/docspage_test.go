package docspage

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServe(t *testing.T) {
	app := t.TempDir()
	if err := os.MkdirAll(filepath.Join(app, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "docs", "standalone.js"), []byte("// reference"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := 0
	base := Config{Path: "/docs", Title: "T", Schema: "/schema", ConfigFile: "endpoints.json",
		WriteError: func(w http.ResponseWriter, r *http.Request, status int, data any) { refused++; w.WriteHeader(status) }}
	remote, local := base, base
	remote.Assets = "https://cdn.example/ref"
	local.Assets = filepath.Join(app, "docs")
	tests := []struct {
		name                   string
		cfg                    Config
		method, path           string
		served                 bool
		status                 int
		bodyHas, cspHas, allow string
	}{
		{name: "the page loads the reference from its URL", cfg: remote, method: "GET", path: "/docs", served: true, status: 200,
			bodyHas: `src="https://cdn.example/ref/standalone.js"`, cspHas: "script-src https://cdn.example;"},
		{name: "the page names the schema", cfg: remote, method: "GET", path: "/docs", served: true, status: 200, bodyHas: `data-url="/schema"`},
		{name: "HEAD has no body", cfg: remote, method: "HEAD", path: "/docs", served: true, status: 200},
		{name: "POST is refused with Allow", cfg: remote, method: "POST", path: "/docs", served: true, status: 405, allow: "GET, HEAD"},
		{name: "local assets: the page loads them from its own path", cfg: local, method: "GET", path: "/docs", served: true, status: 200,
			bodyHas: `src="/docs/assets/standalone.js"`, cspHas: "script-src 'self';"},
		{name: "local assets are served", cfg: local, method: "GET", path: "/docs/assets/standalone.js", served: true, status: 200, bodyHas: "// reference"},
		{name: "remote assets are not served locally", cfg: remote, method: "GET", path: "/docs/assets/standalone.js"},
		{name: "another path is not the page's", cfg: remote, method: "GET", path: "/api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.cfg)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			w := httptest.NewRecorder()
			served := p.Serve(w, httptest.NewRequest(tt.method, tt.path, nil))
			if served != tt.served {
				t.Fatalf("Serve: %v, want %v", served, tt.served)
			}
			if !served {
				return
			}
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			if !strings.Contains(w.Body.String(), tt.bodyHas) {
				t.Errorf("body %q, want it to hold %q", w.Body, tt.bodyHas)
			}
			if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, tt.cspHas) {
				t.Errorf("Content-Security-Policy %q, want it to hold %q", csp, tt.cspHas)
			}
			if got := w.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if tt.method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD body %q, want none", w.Body)
			}
		})
	}
	if refused != 1 {
		t.Errorf("WriteError called %d times, want 1", refused)
	}
}

func TestNewRefusesAnAssetsURLThatDoesNotParse(t *testing.T) {
	_, err := New(Config{Path: "/docs", Assets: "https://bad host/", ConfigFile: "endpoints.json"})
	if err == nil || !strings.HasPrefix(err.Error(), "endpoints.json: /openApi/docs/assets: ") {
		t.Errorf("New: error %v, want one naming endpoints.json and /openApi/docs/assets", err)
	}
}

// TestServeProblems: the page shows the problems it is given above the
// reference, escaped, and nothing of the kind without them.
func TestServeProblems(t *testing.T) {
	p, err := New(Config{Path: "/docs", Assets: "https://cdn.example/ref", Title: "T", Schema: "/schema"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		problems    []string
		has, hasNot string
	}{
		{"without problems", nil, `data-url="/schema"`, `role="alert"`},
		{"a problem, escaped", []string{`server/api/w.get.wasm: $defs: schema "Thing" <b>`}, `<code style="white-space:pre-wrap">server/api/w.get.wasm: $defs: schema &#34;Thing&#34; &lt;b&gt;</code>`, "<b>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			if !p.ServeProblems(w, httptest.NewRequest("GET", "/docs", nil), tt.problems) {
				t.Fatal("the page was not served")
			}
			body := w.Body.String()
			if !strings.Contains(body, tt.has) || strings.Contains(body, tt.hasNot) {
				t.Errorf("page:\n%s\nwant %q and not %q", body, tt.has, tt.hasNot)
			}
			if !strings.Contains(body, `src="https://cdn.example/ref/standalone.js"`) {
				t.Errorf("the page lost its reference:\n%s", body)
			}
		})
	}
}

// TestLocalAssetsServeFilesOnly: the local assets directory serves its
// regular files and nothing else: no listing of a directory, no hidden
// file (.env, .git), no file a symbolic link reaches outside it, no
// path climbing out of it, no method but GET and HEAD. http.FileServer
// listed directories and followed links anywhere.
func TestLocalAssetsServeFilesOnly(t *testing.T) {
	app := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(app, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/standalone.js", "// reference")
	write("docs/fonts/a.woff2", "font")
	write("docs/.env", "TOKEN=s3cret")
	write("docs/.git/config", "[core]")
	write("secret.txt", "outside")
	if err := os.Symlink(filepath.Join(app, "secret.txt"), filepath.Join(app, "docs", "link.txt")); err != nil {
		t.Fatal(err)
	}
	var refusedWith []int
	p, err := New(Config{Path: "/docs", Assets: filepath.Join(app, "docs"), Title: "T", Schema: "/schema", ConfigFile: "endpoints.json",
		WriteError: func(w http.ResponseWriter, r *http.Request, status int, data any) {
			refusedWith = append(refusedWith, status)
			w.WriteHeader(status)
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/docs/assets/standalone.js", 200, "// reference"},
		{"GET", "/docs/assets/fonts/a.woff2", 200, "font"},
		{"HEAD", "/docs/assets/standalone.js", 200, ""},
		{"GET", "/docs/assets/", 404, ""},
		{"GET", "/docs/assets/fonts/", 404, ""},
		{"GET", "/docs/assets/fonts", 404, ""},
		{"GET", "/docs/assets/.env", 404, ""},
		{"GET", "/docs/assets/.git/config", 404, ""},
		{"GET", "/docs/assets/link.txt", 404, ""},
		{"GET", "/docs/assets/../secret.txt", 404, ""},
		{"GET", "/docs/assets/fonts/../../secret.txt", 404, ""},
		{"GET", "/docs/assets/missing.js", 404, ""},
		{"POST", "/docs/assets/standalone.js", 405, ""},
	} {
		refusedWith = nil
		w := httptest.NewRecorder()
		r := httptest.NewRequest(tt.method, "/", nil)
		r.URL.Path = tt.path // as a client may send it, uncleaned
		if !p.Serve(w, r) {
			t.Errorf("%s %s: not served, want %d", tt.method, tt.path, tt.status)
			continue
		}
		if w.Code != tt.status || w.Body.String() != tt.body {
			t.Errorf("%s %s = %d %q, want %d %q", tt.method, tt.path, w.Code, w.Body, tt.status, tt.body)
		}
		if tt.status >= 400 && (len(refusedWith) != 1 || refusedWith[0] != tt.status) {
			t.Errorf("%s %s: WriteError called with %v, want [%d]: the host's error answer", tt.method, tt.path, refusedWith, tt.status)
		}
		if tt.status == 200 && w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: X-Content-Type-Options %q, want nosniff", tt.method, tt.path, w.Header().Get("X-Content-Type-Options"))
		}
	}
}
