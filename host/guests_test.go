package host_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// watModule is a route module written in WAT for a test: its imports, the
// contract (empty for a plain route) and the body of endpoints_handle.
// Memory: the contract at 1024, scratch buffers from 65536 (page 2).
type watModule struct {
	contract string
	handle   string // WAT instructions leaving an i32 on the stack
	extra    string // more module fields (functions, data)
	imports  string // more imports (WASI functions)
	version  int    // ABI version the module claims; 0 means 1
	pages    int    // initial memory in 64 KiB pages; 0 means 4
}

const watImports = `
  (import "endpoints" "request_read" (func $request_read (param i32 i32) (result i32)))
  (import "endpoints" "request_value" (func $request_value (param i32 i32 i32 i32 i32) (result i32)))
  (import "endpoints" "request_header" (func $request_header (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "body_read" (func $body_read (param i32 i32) (result i32)))
  (import "endpoints" "file_read" (func $file_read (param i32 i32 i32) (result i32)))
  (import "endpoints" "kv_get" (func $kv_get (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "kv_set" (func $kv_set (param i32 i32 i32 i32 i32) (result i32)))
  (import "endpoints" "kv_incr" (func $kv_incr (param i32 i32 i64 i32) (result i32)))
  (import "endpoints" "response_set_status" (func $set_status (param i32) (result i32)))
  (import "endpoints" "response_set_header" (func $set_header (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "response_add_header" (func $add_header (param i32 i32 i32 i32) (result i32)))
  (import "endpoints" "response_write" (func $write (param i32 i32) (result i32)))
  (import "endpoints" "log" (func $log (param i32 i32 i32)))
`

func (m watModule) source() string {
	var b strings.Builder
	pages := m.pages
	if pages == 0 {
		pages = 4
	}
	fmt.Fprintf(&b, "(module\n%s%s  (memory (export \"memory\") %d)\n", watImports, m.imports, pages)
	v := m.version
	if v == 0 {
		v = 1
	}
	fmt.Fprintf(&b, "  (func (export \"endpoints_abi_version\") (result i32) (i32.const %d))\n", v)
	if m.contract != "" {
		fmt.Fprintf(&b, "  (data (i32.const 1024) \"%s\")\n", watString(m.contract))
		fmt.Fprintf(&b, "  (func (export \"endpoints_contract\") (result i64) (i64.const %d))\n", int64(1024)<<32|int64(len(m.contract)))
	}
	fmt.Fprintf(&b, "  (func (export \"endpoints_handle\") (result i32)\n    (local $n i32)\n    %s)\n", m.handle)
	b.WriteString(m.extra)
	b.WriteString(")\n")
	return b.String()
}

// watString escapes s for a WAT string literal.
func watString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			fmt.Fprintf(&b, "\\%02x", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// watData returns a data segment at off and the instructions that write it
// to the response.
func watWrite(off int, s string) (data, code string) {
	data = fmt.Sprintf("  (data (i32.const %d) \"%s\")\n", off, watString(s))
	code = fmt.Sprintf("(drop (call $write (i32.const %d) (i32.const %d)))", off, len(s))
	return
}

// Handlers used by several tests.
var (
	// echoEnvelope answers 200 with the request envelope it read.
	echoEnvelope = `(local.set $n (call $request_read (i32.const 65536) (i32.const 65536)))
    (drop (call $write (i32.const 65536) (local.get $n)))
    (i32.const 0)`
	// plainOK answers "ok".
	plainOK = `(drop (call $write (i32.const 2048) (i32.const 2))) (i32.const 0)`
)

const okData = `  (data (i32.const 2048) "ok")` + "\n"

// app is a throwaway app directory.
type app struct {
	t   testing.TB
	dir string
}

func newApp(t testing.TB) *app {
	t.Helper()
	return &app{t: t, dir: t.TempDir()}
}

// wat assembles a WAT module into the app at rel (e.g.
// "server/api/users/[id].get.wasm").
func (a *app) wat(rel string, m watModule) *app {
	a.t.Helper()
	return a.watSource(rel, m.source())
}

func (a *app) watSource(rel, src string) *app {
	a.t.Helper()
	requireTool(a.t, "wat2wasm")
	srcFile := filepath.Join(a.t.TempDir(), "m.wat")
	if err := os.WriteFile(srcFile, []byte(src), 0o644); err != nil {
		a.t.Fatal(err)
	}
	out := filepath.Join(a.dir, filepath.FromSlash(rel))
	if err := guestbuild.WAT(context.Background(), srcFile, out); err != nil {
		a.t.Fatalf("%v\n%s", err, src)
	}
	return a
}

// file writes raw bytes into the app.
func (a *app) file(rel string, data []byte) *app {
	a.t.Helper()
	p := filepath.Join(a.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		a.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		a.t.Fatal(err)
	}
	return a
}

// copyModule copies a built module into the app.
func (a *app) copyModule(rel, from string) *app {
	a.t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.file(rel, data)
}

// host loads the app; the logger keeps what the host logged for assertions.
func (a *app) host(opts host.Options) (*host.Host, *logBuffer) {
	a.t.Helper()
	logs := &logBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.CacheDir == "" {
		opts.CacheDir = testCacheDir(a.t)
	}
	// Each host of an app with migrations (the users example, which
	// tests share one built copy of) gets a database of its own, as it
	// gets a memory store of its own, unless the test names one.
	if _, err := os.Stat(filepath.Join(a.dir, "server", "migrations")); err == nil && !slices.ContainsFunc(opts.ConfigOverrides, func(o config.Override) bool {
		return strings.HasPrefix(o.Pointer, "/databases")
	}) {
		opts.ConfigOverrides = append(opts.ConfigOverrides, ownDatabase(a.t))
	}
	h, err := host.New(context.Background(), a.dir, opts)
	if err != nil {
		a.t.Fatalf("host.New: %v", err)
	}
	a.t.Cleanup(func() { h.Close(context.Background()) })
	return h, logs
}

// serve starts a real HTTP server for the app.
func (a *app) serve(opts host.Options) (*httptest.Server, *logBuffer) {
	a.t.Helper()
	h, logs := a.host(opts)
	srv := httptest.NewServer(h)
	a.t.Cleanup(srv.Close)
	return srv, logs
}

// ownDatabase is the override that gives a host of the users example a
// fresh SQLite file of its own; hosts given the same one share it.
func ownDatabase(t testing.TB) config.Override {
	return config.Override{Pointer: "/databases/main/path", Value: filepath.Join(t.TempDir(), "main.db"), Source: "test"}
}

type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testCacheDir is a compilation cache shared by the tests of one run.
func testCacheDir(t testing.TB) string {
	dir := filepath.Join(os.TempDir(), "endpoints-test-cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func requireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required (CI installs it): %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
}

// response is what a test request got.
type response struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, srv *httptest.Server, method, path string, body string, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Host = headers[i+1] // the client sends req.Host, not a Host header
			continue
		}
		req.Header.Add(headers[i], headers[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}
