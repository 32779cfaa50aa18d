package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestNotAnApp: a directory that is not an app is an error naming it, not
// "ok: 0 routes".
func TestNotAnApp(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"check", "routes", "openapi", "build", "serve"} {
		code, out, errOut := runCLI(cmd, dir)
		if code != exitError || !strings.Contains(errOut, "is not an Endpoints app") || strings.Contains(out, "ok:") {
			t.Errorf("%s on an empty directory = %d\n%s\n%s; want an error saying it is not an app", cmd, code, out, errOut)
		}
	}
}

// TestUnbuiltApp: on a fresh clone (sources, no modules) the commands that
// load modules as they are say to build first.
func TestUnbuiltApp(t *testing.T) {
	app := cApp(t)
	for _, cmd := range []string{"routes", "openapi", "serve", "check --no-build"} {
		args := append(strings.Fields(cmd), app)
		code, _, errOut := runCLI(args...)
		if code != exitError || !strings.Contains(errOut, "not built yet") || !strings.Contains(errOut, "run `endpoints build "+app+"` first") || !strings.Contains(errOut, "server/api/users/[id].get.wasm (from server/api/users/[id].get.c)") {
			t.Errorf("%s on an unbuilt app = %d\n%s; want it to say which modules are missing and to build first", cmd, code, errOut)
		}
	}
}

// TestCheckBuildsFirst: check compiles the sources, so a source that no
// longer compiles fails it even though an old module is there; with
// --no-build it checks the old module and says loudly that it is stale.
func TestCheckBuildsFirst(t *testing.T) {
	app := cApp(t)
	if code, out, errOut := runCLI("check", app, "--cache-dir", t.TempDir()); code != exitOK || !strings.Contains(out, "ok: 2 routes") {
		t.Fatalf("check on a good app = %d\n%s\n%s", code, out, errOut)
	}
	src := filepath.Join(app, "server", "api", "users", "[id].get.c")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(orig, "\nthis is not C\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	// The module must look older than the source, whatever the clock's
	// resolution.
	module := filepath.Join(app, "server", "api", "users", "[id].get.wasm")
	fi, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(module, fi.ModTime().Add(-1e9), fi.ModTime().Add(-1e9)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("check", app, "--cache-dir", t.TempDir())
	if code != exitError || !strings.Contains(errOut, "[id].get.c") || strings.Contains(out, "ok:") {
		t.Errorf("check with a broken source = %d\n%s\n%s; want the compile error", code, out, errOut)
	}
	code, out, errOut = runCLI("check", "--no-build", app, "--cache-dir", t.TempDir())
	if code != exitOK || !strings.Contains(errOut, "warning: server/api/users/[id].get.wasm is older than its source server/api/users/[id].get.c") {
		t.Errorf("check --no-build with a stale module = %d\n%s\n%s; want ok and a warning", code, out, errOut)
	}
}

// TestDevAddrFailsBeforeBuilding: a busy --addr is reported before any
// source is built.
func TestDevAddrFailsBeforeBuilding(t *testing.T) {
	app := cApp(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, out, errOut := runCLI("dev", app, "--addr", ln.Addr().String())
	if code != exitError || !strings.Contains(errOut, "--addr "+ln.Addr().String()) || strings.Contains(out, "building") {
		t.Errorf("dev on a busy address = %d\n%s\n%s; want the address error before any build", code, out, errOut)
	}
}

// TestDevServesWhatBuilt: a route that fails to compile at start is
// reported, and the others serve.
func TestDevServesWhatBuilt(t *testing.T) {
	app := cApp(t)
	broken := filepath.Join(app, "server", "api", "broken.get.c")
	if err := os.WriteFile(broken, []byte("this is not C\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _, _, stdout, stderr, _ := startCLI(t, "dev", app)
	if status, body := httpGet(t, addr+"/api/users/2"); status != 200 || !strings.Contains(body, "Grace Hopper") {
		t.Errorf("a good route beside a broken one = %d %s", status, body)
	}
	if !strings.Contains(stderr.String(), "FAIL server/api/broken.get.wasm") || !strings.Contains(stderr.String(), "broken.get.c") {
		t.Errorf("the broken route was not reported:\n%s\n%s", stdout.String(), stderr.String())
	}
}

// TestDevFollowsAddedAndRemovedSources: a route source added while dev
// runs, in a new directory, is built and served; deleting it removes the
// route.
func TestDevFollowsAddedAndRemovedSources(t *testing.T) {
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	addr, _, _, stdout, _, done := startCLI(t, "dev", app)
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	health, err := os.ReadFile(filepath.Join(app, "server", "routes", "health.get.c"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(app, "server", "routes", "nested", "deeper")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "ping.get.c")
	if err := os.WriteFile(src, health, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, stdout, regexp.MustCompile(`reloaded in \S+: (added server/routes/nested/deeper/ping\.get\.wasm)`), done)
	if status, _ := httpGet(t, addr+"/nested/deeper/ping"); status != 200 {
		t.Errorf("GET the added route = %d, want 200", status)
	}
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	waitFor(t, stdout, regexp.MustCompile(`(removed server/routes/nested/deeper/ping\.get\.wasm: its source)`), done)
	waitFor(t, stdout, regexp.MustCompile(`reloaded in \S+: (removed server/routes/nested/deeper/ping\.get\.wasm)`), done)
	if status, _ := httpGet(t, addr+"/nested/deeper/ping"); status != 404 {
		t.Errorf("GET the removed route = %d, want 404", status)
	}
}

// TestWatchSourcesBuildsWhatWasSavedBeforeItWatched: a source saved after
// the start's build began but before the watches were set up sends no
// event; watchSources still builds it, in a new directory too.
func TestWatchSourcesBuildsWhatWasSavedBeforeItWatched(t *testing.T) {
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-time.Second)
	health, err := os.ReadFile(filepath.Join(app, "server", "routes", "health.get.c"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(app, "server", "routes", "late")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ping.get.c"), health, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out, stopped := &syncBuffer{}, make(chan int, 1)
	go func() {
		_ = watchSources(ctx, app, nil, nil, newConsole(out, false, false), since, nil)
		stopped <- 0
	}()
	defer func() { cancel(); <-stopped }()
	waitFor(t, out, regexp.MustCompile(`(built server/routes/late/ping\.get\.wasm) from`), stopped)
	if _, err := os.Stat(filepath.Join(dir, "ping.get.wasm")); err != nil {
		t.Errorf("the module was not written: %v", err)
	}
}

// TestWatchSourcesSaysWhatItBuilds: a save's rebuild is announced when it
// begins, not only when it ends, since an AssemblyScript or Go build is
// silent for seconds to tens of seconds (a journey saw 28 s of nothing
// after adding a route, and took the new route for unseen).
func TestWatchSourcesSaysWhatItBuilds(t *testing.T) {
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	health, err := os.ReadFile(filepath.Join(app, "server", "routes", "health.get.c"))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(app, "server", "routes", "pong.get.c")
	if err := os.WriteFile(src, health, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out, stopped := &syncBuffer{}, make(chan int, 1)
	go func() {
		_ = watchSources(ctx, app, nil, nil, newConsole(out, false, false), time.Now().Add(-time.Second), nil)
		stopped <- 0
	}()
	defer func() { cancel(); <-stopped }()
	waitFor(t, out, regexp.MustCompile(`(built server/routes/pong\.get\.wasm) from`), stopped)
	text := out.String()
	announced := strings.Index(text, "building server/routes/pong.get.wasm from server/routes/pong.get.c\n")
	built := strings.Index(text, "built server/routes/pong.get.wasm")
	if announced < 0 || announced > built {
		t.Errorf("the rebuild was not announced before its end:\n%s", text)
	}
}

// TestBuildPrecompiles: build --cache-dir compiles every module into the
// cache, so that serve with that cache has nothing left to compile; serve
// without it answers at once (routes from their contract sections, code
// loading in the background) and says when every route runs compiled code.
func TestBuildPrecompiles(t *testing.T) {
	app := cApp(t)
	cache := t.TempDir()
	code, out, errOut := runCLI("build", app, "--cache-dir", cache)
	if code != exitOK || !strings.Contains(out, "compiled "+app+" (2 routes) into "+cache) || !strings.Contains(out, "loaded 2/2") {
		t.Fatalf("build --cache-dir = %d\n%s\n%s", code, out, errOut)
	}
	serve := func(cacheDir string) (*syncBuffer, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		stdout, stderr, done := &syncBuffer{}, &syncBuffer{}, make(chan int, 1)
		go func() {
			done <- run(ctx, []string{"serve", app, "--addr", "127.0.0.1:0", "--cache-dir", cacheDir}, stdout, stderr)
		}()
		addr := waitFor(t, stdout, regexp.MustCompile(`listening on (http://\S+)`), done)
		if status, _ := httpGet(t, addr+"/api/users/2"); status != 200 {
			t.Errorf("GET /api/users/2 = %d", status)
		}
		return stdout, func() { cancel(); <-done }
	}
	warm, stop := serve(cache)
	stop()
	if strings.Contains(warm.String(), "compiled 1/") {
		t.Errorf("serve with the precompiled cache compiled again:\n%s", warm)
	}
	cold, stop := serve(t.TempDir())
	waitFor(t, cold, regexp.MustCompile(`((?:ready|compiled) 2/2 \S+ in \S+: every route runs compiled code)`), nil)
	stop()
}
