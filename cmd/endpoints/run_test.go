package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/poll"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// TestHelpSettingsListsEverySetting: every setting an override can
// replace is listed with its variable and its default (config's, the one
// the host applies), so none is only in the source.
func TestHelpSettingsListsEverySetting(t *testing.T) {
	_, out, _ := runCLI("help", "settings")
	for _, s := range config.Settings() {
		value := "JSON"
		switch {
		case s.Text:
			value = "text"
		case s.List:
			value = "list"
		case s.Size:
			value = "size"
		}
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(s.Name) + ` +` + s.Env + ` +` + value + ` *` + regexp.QuoteMeta(s.Default) + ` *$`).MatchString(out) {
			t.Errorf("endpoints help settings does not list %s as %s, %s, default %q:\n%s", s.Name, s.Env, value, s.Default, out)
		}
	}
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageAndVersion(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantStderr string
	}{
		{"help lists every command", []string{"help"}, exitOK, "dev APP", ""},
		{"help lists diff and its exit codes", []string{"help"}, exitOK, "diff OLD NEW", ""},
		{"diff has its own help", []string{"diff", "--help"}, exitUsage, "", "Exit codes, as diff(1)"},
		{"--help too", []string{"--help"}, exitOK, "routes APP", ""},
		{"no command prints usage", nil, exitUsage, "", "Commands:"},
		{"unknown command", []string{"deploy"}, exitUsage, "", `unknown command "deploy"`},
		{"version names the ABI", []string{"version"}, exitOK, "ABI v1", ""},
		{"missing APP", []string{"routes"}, exitUsage, "", "want exactly one APP directory"},
		{"two APPs", []string{"build", "a", "b"}, exitUsage, "", "got 2 arguments"},
		{"unknown flag", []string{"serve", "--port", "1", "x"}, exitUsage, "", "flag provided but not defined: -port"},
		{"app that does not exist", []string{"routes", "no/such/app"}, exitError, "", "no/such/app"},
		{"a command's -h lists its flags", []string{"serve", "-h"}, exitUsage, "", "-set SETTING=VALUE"},
		{"a command's -h lists its flags with placeholders", []string{"dev", "-h"}, exitUsage, "", "-log-level LEVEL"},
		{"inspect wants a module file", []string{"inspect"}, exitUsage, "", "want exactly one module file, got 0 arguments\nusage: endpoints inspect [flags] FILE.wasm"},
		{"help names the settings' variables", []string{"help"}, exitOK, "ENDPOINTS_LIMITS_TIMEOUT=5s", ""},
		{"help settings lists them", []string{"help", "settings"}, exitOK, "ENDPOINTS_STORAGE_URL", ""},
		{"help of a command lists its flags", []string{"help", "migrate"}, exitOK, "usage: endpoints migrate [flags] APP", ""},
		{"help of a command lists its flags, on stdout", []string{"help", "migrate"}, exitOK, "-dry-run", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("endpoints %q = %d\nstdout: %s\nstderr: %s\nwant %d, stdout containing %q, stderr containing %q",
					tt.args, code, out, errOut, tt.wantCode, tt.wantOut, tt.wantStderr)
			}
		})
	}
}

// cApp copies examples/users-c (C sources need no Go module) to a
// temporary directory.
func cApp(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("clang"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("clang is required in CI")
		}
		t.Skip("clang not installed")
	}
	dst := t.TempDir()
	src := filepath.Join("..", "..", "examples", "users-c")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".endpoints" {
			// What serving the example left (its database, its cache) is
			// not the example's: the copy starts as a fresh clone does.
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".wasm") {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestBuildAndRoutes(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	code, out, errOut := runCLI("build", app)
	if code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	for _, m := range []string{"server/api/users/[id].get.wasm", "server/routes/health.get.wasm"} {
		if _, err := os.Stat(filepath.Join(app, m)); err != nil {
			t.Errorf("build did not write %s: %v", m, err)
		}
		if !strings.Contains(out, m) {
			t.Errorf("build output does not name %s:\n%s", m, out)
		}
	}
	code, out, errOut = runCLI("routes", app, "--cache-dir", t.TempDir())
	want := regexp.MustCompile(`(?m)^GET\s+/api/users/:id\s+endpoint\s+server/api/users/\[id\]\.get\.c\s+Get a user\s*$[\s\S]*^GET\s+/health\s+plain\s+server/routes/health\.get\.c`)
	if code != exitOK || !want.MatchString(out) {
		t.Errorf("routes = %d\n%s\n%s\nwant the route table", code, out, errOut)
	}
}

func TestBuildReportsCompileErrors(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	bad := filepath.Join(app, "server", "api", "broken.get.c")
	if err := os.WriteFile(bad, []byte("int endpoints_handle(void) { return undefined_thing; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("build", app)
	if code != exitError || !strings.Contains(errOut, "broken.get.c") || !strings.Contains(errOut, "undefined_thing") {
		t.Errorf("build with a broken source = %d\n%s\nwant exit 1 naming the file and the compiler's error", code, errOut)
	}
}

func TestServeAndShutdown(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	addr, _, cancel, stdout, stderr, done := startCLI(t, "serve", app)
	if status, body := httpGet(t, addr+"/api/users/2"); status != 200 || !strings.Contains(body, "Grace Hopper") {
		t.Errorf("GET /api/users/2 = %d %s", status, body)
	}
	if !strings.Contains(stdout.String(), "/api/users/:id") {
		t.Errorf("the route table was not printed at start:\n%s", stdout.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d after shutdown, want 0\n%s", code, stderr.String())
		}
	case <-time.After(stopWithin):
		t.Fatalf("serve did not stop within %s of its context's end", stopWithin)
	}
	if !regexp.MustCompile(`msg="GET /api/users/2" method=GET route=/api/users/:id client=127\.0\.0\.1 status=200 bytes=\d+ duration=\S+ requestId=[0-9a-f]{24}\n`).MatchString(stderr.String()) {
		t.Errorf("the request was not logged with its route and id:\n%s", stderr.String())
	}
}

func TestServeRefusesABadApp(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "server", "api", "bad.get.wasm"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("serve", app, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir())
	if code != exitError || !strings.Contains(errOut, "server/api/bad.get.wasm: not a valid WebAssembly module") {
		t.Errorf("serve with a bad module = %d\n%s\nwant exit 1 naming it", code, errOut)
	}
	// The failure is said last, after what was logged before it: the
	// log's lines and the command's own reach stderr through one writer,
	// in order (and never at once: -race saw the two goroutines collide).
	if logged, failed := strings.Index(errOut, `msg="migration applied"`), strings.Index(errOut, "endpoints serve:"); logged < 0 || logged > failed {
		t.Errorf("serve with a bad module printed its failure before what it logged first (the migration), or did not log that:\n%s", errOut)
	}
}

// waitUntil checks cond at once, then at every tick of a 5 ms ticker,
// until it holds or d has passed (internal/poll), and reports whether it held. It is how
// the tests of this package wait for an event they can only observe as a
// condition (a line printed, an answer served, a file written), never for
// a fixed time: d only bounds a wait that should end much sooner.
func waitUntil(t testing.TB, d time.Duration, cond func() bool) bool {
	t.Helper()
	return poll.Until(d, cond)
}

// waitFor waits until w holds a match of re and returns its first group;
// it fails the test when the command exits (done) or 60 s pass first.
func waitFor(t *testing.T, w *syncBuffer, re *regexp.Regexp, done <-chan int) string {
	t.Helper()
	return waitForWithin(t, 60*time.Second, w, re, done)
}

// startTimeout bounds the start of `endpoints serve` or `dev` (startCLI):
// it compiles every module, which for a Go SDK module under the race
// detector, on a machine busy with other tests, takes over a minute.
const startTimeout = 5 * time.Minute

// waitForWithin is waitFor with a bound of d.
func waitForWithin(t *testing.T, d time.Duration, w *syncBuffer, re *regexp.Regexp, done <-chan int) string {
	t.Helper()
	var m []string
	exited, code := false, 0
	waitUntil(t, d, func() bool {
		if m = re.FindStringSubmatch(w.String()); m != nil {
			return true
		}
		select {
		case code = <-done:
			exited = true
		default:
		}
		return exited
	})
	switch {
	case m != nil:
		return m[1]
	case exited:
		t.Fatalf("command exited %d before printing %s:\n%s", code, re, w.String())
	default:
		t.Fatalf("timed out after %s waiting for %s:\n%s", d, re, w.String())
	}
	return ""
}

// watchers records which watchers of a run are set up: the hook of
// internal/testhook, which startCLI puts in the run's context.
type watchers struct {
	mu  sync.Mutex
	set map[string]bool
}

// watching is the hook.
func (w *watchers) watching(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.set == nil {
		w.set = map[string]bool{}
	}
	w.set[name] = true
}

// all reports whether every one of names is set up.
func (w *watchers) all(names ...string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range names {
		if !w.set[n] {
			return false
		}
	}
	return true
}

func TestOpenAPIAndCheck(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	code, out, errOut := runCLI("openapi", app, "--cache-dir", cache)
	if code != exitOK || !strings.Contains(out, `"operationId": "getApiUsersById"`) || !strings.Contains(out, `"openapi": "3.1.0"`) {
		t.Fatalf("openapi = %d\n%s\n%s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "docs", "openapi.json") // docs/ made
	if code, _, errOut := runCLI("openapi", app, "-o", file, "--cache-dir", cache); code != exitOK {
		t.Fatalf("openapi -o = %d %s", code, errOut)
	}
	if written, _ := os.ReadFile(file); string(written) != out {
		t.Error("openapi -o wrote something else than openapi prints")
	}
	code, out, errOut = runCLI("check", app, "--cache-dir", cache)
	if code != exitOK || !strings.Contains(out, "ok: 2 routes (1 endpoint operations)") {
		t.Errorf("check of a good app = %d\n%s\n%s", code, out, errOut)
	}

	// Problems: a pattern that matches no route, and a broken module.
	cfg := filepath.Join(app, "server", "routes.config.json")
	if err := os.WriteFile(cfg, []byte(`{"routes": {"/api/nothing/**": {"responses": {"401": {"description": "x"}}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "server", "api", "bad.get.wasm"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI("check", app, "--cache-dir", cache)
	for _, want := range []string{"server/api/bad.get.wasm: not a valid WebAssembly module", "/api/nothing/**"} {
		if code != exitError || !strings.Contains(errOut, want) {
			t.Errorf("check of a bad app = %d, want exit 1 and %q in:\n%s", code, want, errOut)
		}
	}
	if code, _, _ := runCLI("openapi", app, "--cache-dir", cache); code != exitError {
		t.Errorf("openapi of a bad app = %d, want 1", code)
	}
}

// startCLI runs `endpoints <command> APP` (serve or dev) on a free port
// until the test ends, and returns the address it listens on with its
// output and exit code. Cancelling ctx stops it as SIGINT would.
// startCLI runs `endpoints command app` on a free port and returns once
// it listens and the named watchers are set up (see internal/testhook:
// "app" for Host.Watch, "sources" for the rebuilds, "build command" for
// the app's own command under dev), so that a file saved from then on is
// seen.
// stopWithin bounds how long a test waits for a command to stop once its
// context ended: the host lets a background compilation in progress
// finish, which takes seconds under the race detector.
const stopWithin = 2 * time.Minute

func startCLI(t *testing.T, command, app string, watching ...string) (addr string, ctx context.Context, cancel context.CancelFunc, stdout, stderr *syncBuffer, done chan int) {
	t.Helper()
	return startCLIFlags(t, command, app, nil, watching...)
}

// startCLIFlags is startCLI with more flags.
func startCLIFlags(t *testing.T, command, app string, flags []string, watching ...string) (addr string, ctx context.Context, cancel context.CancelFunc, stdout, stderr *syncBuffer, done chan int) {
	t.Helper()
	cache := t.TempDir()
	ctx, cancel = context.WithCancel(context.Background())
	var ready watchers
	stdout, stderr, done = &syncBuffer{}, &syncBuffer{}, make(chan int, 1)
	exited := make(chan struct{})
	var hostsMu sync.Mutex
	var hostsClosed []<-chan struct{}
	hooked := testhook.WithClosed(testhook.WithWatching(ctx, ready.watching), func(done <-chan struct{}) {
		hostsMu.Lock()
		defer hostsMu.Unlock()
		hostsClosed = append(hostsClosed, done)
	})
	go func() {
		args := append([]string{command, app, "--addr", "127.0.0.1:0", "--cache-dir", cache}, flags...)
		done <- run(hooked, args, stdout, stderr)
		close(exited)
	}()
	// Cleanups run last first: this one, registered after the cache
	// directory's, stops the command and waits for it, and for a
	// compilation its hosts abandoned when they closed (it writes into the
	// cache when it ends), before the directory goes.
	t.Cleanup(func() {
		cancel()
		deadline := time.After(stopWithin)
		select {
		case <-exited:
		case <-deadline:
			t.Errorf("endpoints %s did not stop within %s of its context's end", command, stopWithin)
			return
		}
		hostsMu.Lock()
		defer hostsMu.Unlock()
		for _, c := range hostsClosed {
			select {
			case <-c:
			case <-deadline:
				t.Errorf("a compilation of endpoints %s still ran %s after its context's end", command, stopWithin)
				return
			}
		}
	})
	start := time.Now()
	addr = waitForWithin(t, startTimeout, stdout, regexp.MustCompile(`listening on (http://\S+)`), done)
	if took := time.Since(start); took > 10*time.Second {
		t.Logf("endpoints %s took %s to listen", command, took.Round(time.Millisecond))
	}
	if !waitUntil(t, 30*time.Second, func() bool { return ready.all(watching...) }) {
		t.Fatalf("the watchers %q were not all set up within 30 s:\n%s\n%s", watching, stdout.String(), stderr.String())
	}
	return addr, ctx, cancel, stdout, stderr, done
}

// httpGet GETs url and returns the status and the body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
