package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestUnserved: what a failed build leaves serving is said per module: its
// previous file when there is one, else every route it builds, counted for
// a bundle.
func TestUnserved(t *testing.T) {
	route := func(module string) guestbuild.Source { return guestbuild.Source{Module: module} }
	bundle := guestbuild.Source{Module: "server/bundles/go.wasm", Routes: []guestbuild.Source{
		route("server/api/a.get.wasm"), route("server/api/b.get.wasm"), route("server/middleware/10-log.wasm"),
	}}
	lone := guestbuild.Source{Module: "server/bundles/admin.wasm", Routes: []guestbuild.Source{route("server/api/admin.get.wasm")}}
	for _, tc := range []struct {
		name   string
		source guestbuild.Source
		exists bool
		want   string
	}{
		{"a bundle never built", bundle, false, "server/bundles/go.wasm has no previous version: its 2 routes, 1 middleware do not serve until a saved fix builds it"},
		{"a bundle of one route never built", lone, false, "server/bundles/admin.wasm has no previous version: its 1 route does not serve until a saved fix builds it"},
		{"a module never built", route("server/api/x.get.wasm"), false, "server/api/x.get.wasm has no previous version: its route does not serve until a saved fix builds it"},
		{"a bundle built before", bundle, true, "the previous version of server/bundles/go.wasm keeps serving"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := t.TempDir()
			if tc.exists {
				writeFiles(t, app, map[string]string{tc.source.Module: "\x00asm"})
			}
			if got := unserved(app, tc.source); got != tc.want {
				t.Errorf("unserved = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDevSaysABrokenBundleServesNothing: when the app's one Go bundle does
// not compile as dev starts (a package its routes share does not: dev
// leaves out a route package alone that does not compile), dev says that
// none of its routes serve, not that "the other routes serve"; a later
// failed rebuild says the same until a build succeeded, and from then on
// that the previous version keeps serving.
func TestDevSaysABrokenBundleServesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	needGo(t)
	app := filepath.Join(t.TempDir(), "broken")
	if code, out, errOut := runCLI("new", app); code != exitOK {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	route := filepath.Join(app, "handlers", "hello", "main.go")
	code, err := os.ReadFile(route)
	if err != nil {
		t.Fatal(err)
	}
	const sdk = `import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"`
	if !strings.Contains(string(code), sdk) {
		t.Fatalf("%s does not import the SDK as this test expects", route)
	}
	good := "package shared\n"
	writeFiles(t, app, map[string]string{
		"handlers/hello/main.go": strings.Replace(string(code), sdk, sdk+"\n\nimport _ \"broken/shared\"", 1),
		"shared/shared.go":       good,
	})
	src := filepath.Join(app, "shared", "shared.go")
	save := func(text string) {
		t.Helper()
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save(string(good) + "\nvar broken int = \"not an int\"\n")
	_, _, _, stdout, _, done := startCLI(t, "dev", app, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	out := stdout.String()
	if strings.Contains(out, "the other routes serve") || !strings.Contains(out, "server/bundles/go.wasm has no previous version: its 1 route does not serve until a saved fix builds it") {
		t.Errorf("dev's start with its one bundle broken:\n%s\nwant it to say the bundle's route does not serve", out)
	}
	save(string(good) + "\nvar stillBroken int = \"not an int\"\n")
	waitFor(t, stdout, regexp.MustCompile(`(build of server/bundles/go\.wasm failed; server/bundles/go\.wasm has no previous version)`), done)
	save(string(good))
	waitFor(t, stdout, regexp.MustCompile(`reloaded in \S+: (added server/bundles/go\.wasm)`), done)
	save(string(good) + "\nvar brokenAgain int = \"not an int\"\n")
	waitFor(t, stdout, regexp.MustCompile(`(build of server/bundles/go\.wasm failed; the previous version of server/bundles/go\.wasm keeps serving)`), done)
}

// TestFailedBuildsNote: the routes of the sources whose last build failed
// are named at their paths, a bundle's each with the bundle; a build that
// succeeds ends its module's, and so does its source's deletion (keep);
// nil knows of none.
func TestFailedBuildsNote(t *testing.T) {
	route := func(module string) guestbuild.Source { return guestbuild.Source{Module: module} }
	bundle := guestbuild.Source{Module: "server/bundles/go.wasm", Routes: []guestbuild.Source{
		route("server/api/users/[id].get.wasm"), route("server/middleware/10-log.wasm"),
	}}
	var f failedBuilds
	if got := f.Note("/api/users/7"); got != "" {
		t.Errorf("before any build: Note = %q, want none", got)
	}
	f.note(bundle, true)
	f.note(route("server/routes/health.get.wasm"), true)
	f.note(route("server/api/ok.get.wasm"), false)
	for _, tc := range []struct{ path, want string }{
		{"/api/users/7", "the route GET /api/users/:id of server/bundles/go.wasm did not build: see the build's error above"},
		{"/health", "the route GET /health of server/routes/health.get.wasm did not build: see the build's error above"},
		{"/api/ok", ""},
	} {
		if got := f.Note(tc.path); got != tc.want {
			t.Errorf("Note(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	f.keep([]guestbuild.Source{bundle}) // health's source deleted
	if got := f.Note("/health"); got != "" {
		t.Errorf("after its source went: Note = %q, want none", got)
	}
	if got := f.Note("/api/users/7"); got == "" {
		t.Errorf("a source that stays: its note went")
	}
	f.note(bundle, false)
	if got := f.Note("/api/users/7"); got != "" {
		t.Errorf("after the bundle built: Note = %q, want none", got)
	}
	var none *failedBuilds
	none.note(bundle, true)
	if got := none.Note("/api/users/7"); got != "" {
		t.Errorf("nil: Note = %q, want none", got)
	}
}

// TestDevNotFoundNamesARouteThatDidNotBuild: under endpoints dev, a 404 at
// the path of a route whose source did not build, with no previous module
// serving, says so (data.unserved), naming the route and its module; a
// saved fix serves it.
func TestDevNotFoundNamesARouteThatDidNotBuild(t *testing.T) {
	t.Parallel()
	hello, app, addr, stdout, stderr := devWithABrokenRoute(t)
	status, body := httpGet(t, addr+"/api/greet")
	var answer struct{ Data map[string]string }
	_ = json.Unmarshal([]byte(body), &answer)
	if want := "the route GET /api/greet of server/api/greet.get.wasm did not build: see the build's error above"; status != 404 || answer.Data["unserved"] != want {
		t.Fatalf("GET /api/greet = %d %s, want a 404 whose data.unserved is %q\n%s\n%s", status, body, want, stdout.String(), stderr.String())
	}
	writeFiles(t, app, map[string]string{"server/api/greet.get.wat": string(hello)})
	if !waitUntil(t, 30*time.Second, func() bool { s, _ := httpGet(t, addr+"/api/greet"); return s == 200 }) {
		t.Errorf("the fix was not served:\n%s\n%s", stdout.String(), stderr.String())
	}
}

// TestDevForgetsAFailedBuildOfADeletedSource: a source whose build failed,
// deleted under endpoints dev, no longer has its route named at a 404:
// no source builds it any more. Its note stayed, naming a route that is
// not the app's.
func TestDevForgetsAFailedBuildOfADeletedSource(t *testing.T) {
	t.Parallel()
	hello, app, addr, stdout, stderr := devWithABrokenRoute(t)
	if status, body := httpGet(t, addr+"/api/greet"); status != 404 || !strings.Contains(body, "did not build") {
		t.Fatalf("GET /api/greet = %d %s, want a 404 naming the failed build\n%s\n%s", status, body, stdout.String(), stderr.String())
	}
	// The broken source deleted, then another route saved: once that
	// one serves, dev has read the sources since the deletion.
	if err := os.Remove(filepath.Join(app, "server", "api", "greet.get.wat")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, app, map[string]string{"server/routes/other.get.wat": string(hello)})
	if !waitUntil(t, 30*time.Second, func() bool { s, _ := httpGet(t, addr+"/other"); return s == 200 }) {
		t.Fatalf("the new route was not served:\n%s\n%s", stdout.String(), stderr.String())
	}
	if status, body := httpGet(t, addr+"/api/greet"); status != 404 || strings.Contains(body, "unserved") {
		t.Errorf("GET /api/greet after its source was deleted = %d %s, want a bare 404", status, body)
	}
}

// devWithABrokenRoute runs endpoints dev on an app of the hello route at
// /ok and a source of GET /api/greet that does not build, until it
// watches; it returns the hello route's source, the app, dev's address
// and output.
func devWithABrokenRoute(t *testing.T) (hello []byte, app, addr string, stdout, stderr *syncBuffer) {
	t.Helper()
	needTool(t, "wat2wasm")
	hello = helloWAT(t)
	app = t.TempDir()
	writeFiles(t, app, map[string]string{
		"server/routes/ok.get.wat": string(hello),
		"server/api/greet.get.wat": "(module this is not WAT",
	})
	addr, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources")
	waitFor(t, stdout, regexp.MustCompile(`(watching) `), done)
	return hello, app, addr, stdout, stderr
}
