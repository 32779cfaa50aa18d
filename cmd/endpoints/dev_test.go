package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDevRebuildsAndReloadsOnSave runs `endpoints dev` on the C example,
// edits its source, and sees the new answer served without a restart; a
// source that does not compile keeps the last good version serving.
func TestDevRebuildsAndReloadsOnSave(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	// Once Host.Watch and the source watcher are set up, one save is seen.
	addr, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	// The users live in the app's database; the 404's message is the C
	// source's own text, so that is what the edits change.
	get := func() string {
		_, body := httpGet(t, addr+"/api/users/99")
		return body
	}
	if !strings.Contains(get(), "user 99 not found") {
		t.Fatalf("before the edit: %s", get())
	}
	src := filepath.Join(app, "server/api/users/[id].get.c")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(data string) {
		if err := os.WriteFile(src, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(strings.Replace(string(orig), `" not found\"}"`, `" is not here\"}"`, 1))
	served := func(want string) bool {
		return waitUntil(t, 30*time.Second, func() bool { return strings.Contains(get(), want) })
	}
	if !served("user 99 is not here") {
		t.Fatalf("the edit was not served:\n%s\n%s", stdout.String(), stderr.String())
	}
	// The lines come after the module is written and after the new table
	// serves, so they may follow the new answer: wait for them.
	for _, want := range []string{`built server/api/users/[id].get.wasm from server/api/users/[id].get.c`, `reloaded in`, `changed server/api/users/[id].get.wasm`} {
		waitFor(t, stdout, regexp.MustCompile("("+regexp.QuoteMeta(want)+")"), done)
	}
	// A broken edit: reported, and the last good version keeps serving.
	edit(string(orig) + "\nthis is not C\n")
	waitFor(t, stdout, regexp.MustCompile(`(build of server/api/users/\[id\]\.get\.wasm failed)`), done)
	if !strings.Contains(get(), "user 99 is not here") {
		t.Errorf("after a broken edit: %s, want the last good version", get())
	}
	// Fixed back to the version that serves: the same module, so nothing
	// reloads, and the build's line says the failure is over.
	edit(strings.Replace(string(orig), `" not found\"}"`, `" is not here\"}"`, 1))
	waitFor(t, stdout, regexp.MustCompile(`(built server/api/users/\[id\]\.get\.wasm from server/api/users/\[id\]\.get\.c in \S+; fixed: its previous build failed)`), done)
	edit(string(orig))
	if !served("user 99 not found") {
		t.Errorf("the fix was not served:\n%s", stdout.String())
	}
}

// TestDevRegroupsOnBuildSettings: saving endpoints.json with other Go
// bundle settings while `endpoints dev` runs rebuilds the Go routes as
// they now group ("goBundle": false: a module per route, the bundle
// removed), with no source saved; the route serves throughout.
func TestDevRegroupsOnBuildSettings(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds a Go app twice")
	}
	needGo(t)
	app := filepath.Join(t.TempDir(), "shop")
	if code, out, errOut := runCLI("new", app); code != exitOK {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	addr, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	bundle := filepath.Join(app, "server", "bundles", "go.wasm")
	if _, err := os.Stat(bundle); err != nil {
		t.Fatalf("dev built no bundle: %v\n%s", err, stdout.String())
	}
	config := filepath.Join(app, "endpoints.json")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var settings map[string]any
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatal(err)
	}
	settings["build"] = map[string]any{"goBundle": false}
	data, err = json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, stdout, regexp.MustCompile(`(built server/api/hello\.get\.wasm)`), done)
	if !waitUntil(t, 30*time.Second, func() bool { _, err := os.Stat(bundle); return err != nil }) {
		t.Errorf("the bundle stayed:\n%s\n%s", stdout.String(), stderr.String())
	}
	if !waitUntil(t, 30*time.Second, func() bool {
		status, body := httpGet(t, addr+"/api/hello?name=Ada")
		return status == 200 && strings.Contains(body, "Ada")
	}) {
		t.Errorf("GET /api/hello does not serve from its own module:\n%s\n%s", stdout.String(), stderr.String())
	}
}

// TestDevPrintsAReloadProblemOnce: an endpoints.json saved with a mistake
// while `endpoints dev` runs is said once, by the reload's report (not
// again by the source watcher, which reads the file for the build
// settings, nor by the host's log), and with no migration waiting there
// is no warning about migrations.
func TestDevPrintsAReloadProblemOnce(t *testing.T) {
	t.Parallel()
	app := helloApp(t, `{}`)
	_, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	config := filepath.Join(app, "endpoints.json")
	saveFile(t, config, `{"openApi": {"titl": "x"}}`)
	waitFor(t, stdout, regexp.MustCompile(`(1 problem\(s\))`), done)
	saveFile(t, config, `{}`)
	waitFor(t, stdout, regexp.MustCompile(`(fixed, the app on disk serves)`), done)
	out := stdout.String() + stderr.String()
	if n := strings.Count(out, `/openApi/titl: unknown key`); n != 1 {
		t.Errorf("dev printed the endpoints.json problem %d times, want once:\n%s\n%s", n, stdout.String(), stderr.String())
	}
	if strings.Contains(out, "migration") {
		t.Errorf("dev warns of migrations, though the app has none:\n%s\n%s", stdout.String(), stderr.String())
	}
}

// saveFile writes data to path as an editor saves: whole, beside it, then
// renamed over it, so that the watcher never reads it half written (a
// reload of an empty endpoints.json reports another problem than the
// test's).
func saveFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path+".part", []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".part", path); err != nil {
		t.Fatal(err)
	}
}
