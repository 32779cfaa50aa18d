package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// writeFiles writes files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		file := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// inModule reports whether dir or a directory above it holds a go.mod.
func inModule(dir string) bool {
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return true
		}
		if filepath.Dir(dir) == dir {
			return false
		}
	}
}

func TestNewArgumentErrors(t *testing.T) {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"full/notes.txt":                       "x",
		"file.txt":                             "x",
		"other/go.mod":                         "module example.com/other\n",
		"nomodule/x.txt":                       "x",
		"app/go.mod":                           "module app\n",
		"app/handlers/hello/main.go":           "//endpoints:route GET /api/hello\npackage main\n\nfunc main() {}\n",
		"app/handlers/get-things-id/notes.txt": "x",
	})
	app := filepath.Join(tmp, "app")
	fresh := filepath.Join(tmp, "fresh")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
		skip       bool // the case needs what the machine cannot give
	}{
		{"new without APP", []string{"new"}, exitUsage, "want exactly one APP directory, got 0 arguments", false},
		{"new with two APPs", []string{"new", "a", "b"}, exitUsage, "got 2 arguments", false},
		{"--sdk without a value", []string{"new", fresh, "--sdk"}, exitUsage, "flag needs an argument: -sdk", false},
		{"unknown flag", []string{"new", "--force", fresh}, exitUsage, "flag provided but not defined: -force", false},
		{"--sdk that is no checkout", []string{"new", "--sdk", filepath.Join(tmp, "full"), fresh}, exitUsage, "not a checkout of github.com/wasmendpoints/endpoints", false},
		{"--sdk of another module", []string{"new", "--sdk", filepath.Join(tmp, "other"), fresh}, exitUsage, "go.mod there is module example.com/other, want github.com/wasmendpoints/endpoints", false},
		{"APP that is not empty", []string{"new", filepath.Join(tmp, "full")}, exitError, "exists and is not empty (it holds notes.txt)", false},
		{"APP that is a file", []string{"new", filepath.Join(tmp, "file.txt")}, exitError, "exists and is not a directory", false},
		{"route without a route", []string{"new", "route", app}, exitUsage, "want APP and a route such as 'GET /api/things/:id', got 1 arguments", false},
		{"route without anything", []string{"new", "route"}, exitUsage, "got 0 arguments", false},
		{"unknown method", []string{"new", "route", app, "FETCH /api/things"}, exitUsage, `method "FETCH" is not one of`, false},
		{"path without a slash", []string{"new", "route", app, "GET api/things"}, exitUsage, "want METHOD /path", false},
		{"no path", []string{"new", "route", app, "GET"}, exitUsage, "want METHOD /path", false},
		{"every method", []string{"new", "route", app, "* /api/things"}, exitUsage, "name one method", false},
		{"catch-all segment", []string{"new", "route", app, "GET /api/files/**:path"}, exitUsage, "cannot sit on an optional (:name?) or catch-all (**:name) segment", false},
		{"catch-all: what to write instead", []string{"new", "route", app, "GET /api/files/**:path"}, exitUsage, "a catch-all serves a plain route, which new route does not write: in Go, a main package with the line //endpoints:route GET /api/files/**:path that calls endpoints.HandleRaw", false},
		{"unnamed catch-all", []string{"new", "route", app, "GET /api/files/**"}, exitUsage, `segment "**": a catch-all is named: /api/files/**:path`, false},
		{"optional segment", []string{"new", "route", app, "GET /api/things/:id?"}, exitUsage, "cannot sit on an optional", false},
		{"parameter name that is no identifier", []string{"new", "route", app, "GET /api/things/:1d"}, exitUsage, `parameter name "1d" must be letters, digits and _`, false},
		{"parameter inside a segment", []string{"new", "route", app, "GET /api/things/x:id"}, exitUsage, "a parameter is a whole segment", false},
		{"app that does not exist", []string{"new", "route", filepath.Join(tmp, "none"), "GET /api/things"}, exitError, "does not exist: create it with endpoints new", false},
		{"app that is a file", []string{"new", "route", filepath.Join(tmp, "file.txt"), "GET /api/things"}, exitError, "is not a directory", false},
		{"app outside a Go module", []string{"new", "route", filepath.Join(tmp, "nomodule"), "GET /api/things"}, exitError, "is not in a Go module", inModule(tmp)},
		{"route the app serves already", []string{"new", "route", app, "get /api/hello"}, exitError, "GET /api/hello is already served by " + filepath.Join(app, "handlers", "hello"), false},
		{"package directory that exists", []string{"new", "route", app, "GET /api/things/:id"}, exitError, filepath.Join(app, "handlers", "get-things-id") + " already exists", false},
		{"--dir outside the app", []string{"new", "route", "--dir", "../elsewhere", app, "GET /api/things"}, exitUsage, `--dir: "../elsewhere": want a directory inside the app`, false},
		{"--dir the build skips", []string{"new", "route", "--dir", "handlers/_draft/get-things", app, "GET /api/things"}, exitUsage, `endpoints build never looks in "_draft"`, false},
		{"--dir that exists", []string{"new", "route", "--dir", "handlers/get-things-id", app, "GET /api/things"}, exitError, filepath.Join(app, "handlers", "get-things-id") + " already exists", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip {
				t.Skip("the temporary directory is inside a Go module")
			}
			code, out, errOut := runCLI(tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("endpoints %q = %d\nstdout: %s\nstderr: %s\nwant %d and stderr containing %q", tt.args, code, out, errOut, tt.wantCode, tt.wantStderr)
			}
			if _, err := os.Stat(fresh); err == nil {
				t.Errorf("endpoints %q failed but created %s", tt.args, fresh)
			}
			if _, err := os.Stat(filepath.Join(app, "handlers", "get-things", "main.go")); err == nil {
				t.Errorf("endpoints %q failed but created a route", tt.args)
			}
		})
	}
}

// TestNewRouteDir: --dir writes the route's package where it says, and
// the line that says so names the bundle endpoints.json's "goBundles"
// gives that directory. Without it, a route of a 60-route app grouped in
// bundles by directory landed in handlers/ and the app's default bundle.
func TestNewRouteDir(t *testing.T) {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"app/go.mod":         "module app\n",
		"app/endpoints.json": `{"build": {"goBundles": {"users": ["handlers/users/**"]}}}`,
	})
	app := filepath.Join(tmp, "app")
	code, out, errOut := runCLI("new", "route", "--dir", "handlers/users/get-avatar/", app, "GET /api/users/:id/avatar")
	if code != exitOK {
		t.Fatalf("new route --dir = %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"main.go", "main_test.go"} {
		if _, err := os.Stat(filepath.Join(app, "handlers", "users", "get-avatar", f)); err != nil {
			t.Errorf("new route --dir did not write %s: %v", f, err)
		}
	}
	if want := "served by the app's Go bundle server/bundles/users.wasm"; !strings.Contains(out, want) || !strings.Contains(out, "cd "+app+" && go test ./handlers/users/get-avatar\n") {
		t.Errorf("stdout = %s, want it to say %q and how to test the package", out, want)
	}
}

// TestNewRouteTestCommand: the command new route prints to test the new
// package runs as printed from where new route ran. Run in the app
// itself (APP "."), it said "go test ./handlers/get-things in ..", which
// reads as the parent directory.
func TestNewRouteTestCommand(t *testing.T) {
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{"app/go.mod": "module app\n"})
	tests := []struct {
		name, dir, app, want string
	}{
		{"from the app", "app", ".", "\n  go test ./handlers/get-things\n"},
		{"from its parent", "", "app", "\n  cd app && go test ./handlers/get-things-id\n"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(filepath.Join(tmp, tt.dir))
			route := []string{"GET /api/things", "GET /api/things/:id"}[i]
			code, out, errOut := runCLI("new", "route", tt.app, route)
			if code != exitOK {
				t.Fatalf("new route %s = %d\n%s%s", tt.app, code, out, errOut)
			}
			if !strings.Contains(out, tt.want) || strings.Contains(out, " in ..") {
				t.Errorf("new route %s printed:\n%s\nwant the command %q", tt.app, out, strings.TrimSpace(tt.want))
			}
		})
	}
}

// TestNewRouteCurlCommand: the curl command new route prints calls the
// new route. It printed "curl -i URL" for every method, a GET, which for
// PATCH /api/things/:id reached the app's GET route of that path, or a 405.
func TestNewRouteCurlCommand(t *testing.T) {
	tests := []struct {
		lang, route, want string
	}{
		{"go", "PATCH /api/things/:id", "\n  curl -i -X PATCH http://127.0.0.1:3000/api/things/1\n"},
		{"go", "GET /api/things/:id", "\n  curl -i http://127.0.0.1:3000/api/things/1\n"},
		{"go", "HEAD /api/things", "\n  curl -I http://127.0.0.1:3000/api/things\n"},
		{"c", "DELETE /api/things/:id", "\n  curl -i -X DELETE http://127.0.0.1:3000/api/things/1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.lang+" "+tt.route, func(t *testing.T) {
			tmp := t.TempDir()
			files := map[string]string{"app/go.mod": "module app\n"}
			if tt.lang == "c" {
				files = map[string]string{"app/compile_flags.txt": "-Ivendor/endpoints\n", "app/endpoints.json": "{}"}
			}
			writeFiles(t, tmp, files)
			code, out, errOut := runCLI("new", "route", filepath.Join(tmp, "app"), tt.route)
			if code != exitOK {
				t.Fatalf("new route %s = %d\n%s%s", tt.route, code, out, errOut)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("new route %s printed:\n%s\nwant the command %q", tt.route, out, strings.TrimSpace(tt.want))
			}
		})
	}
}

func TestNewRouteData(t *testing.T) {
	tests := []struct {
		route                       string
		wantName, wantType, wantTag string
		wantSummary, wantURL        string
		wantBody                    string
		wantFields                  []string
	}{
		{"GET /api/things/:id", "get-things-id", "GetThingsIDResponse", "things", "Get things by id", "/api/things/1", `{"id":"1"}`, []string{"ID"}},
		{"POST /api/users/:user_id/posts/:body", "post-users-user_id-posts-body", "PostUsersUserIDPostsBodyResponse", "users",
			"Post users posts by user_id and body", "/api/users/1/posts/2", `{"user_id":"1","body":"2"}`, []string{"UserID", "BodyParam"}},
		{"DELETE /api", "delete-index", "DeleteIndexResponse", "", "Delete root", "/api", `{"message":"DELETE /api"}`, nil},
		{"GET /health", "get-health", "GetHealthResponse", "health", "Get health", "/health", `{"message":"GET /health"}`, nil},
		{"GET /", "get-index", "GetIndexResponse", "", "Get root", "/", `{"message":"GET /"}`, nil},
		{"PUT /api/pairs/:x_y/:xY", "put-pairs-x_y-xy", "PutPairsXYXyResponse", "pairs", "Put pairs by x_y and xY", "/api/pairs/1/2", `{"x_y":"1","xY":"2"}`, []string{"XY", "XY2"}},
	}
	for _, tt := range tests {
		t.Run(tt.route, func(t *testing.T) {
			rf, err := parseNewRoute(tt.route)
			if err != nil {
				t.Fatal(err)
			}
			d := newRouteData(rf)
			var fields []string
			for _, p := range d.Params {
				fields = append(fields, p.Field)
			}
			got := []string{d.Name, d.Type, d.Tag, d.Summary, d.URL, d.WantBody}
			want := []string{tt.wantName, tt.wantType, tt.wantTag, tt.wantSummary, tt.wantURL, tt.wantBody}
			if !slices.Equal(got, want) || !slices.Equal(fields, tt.wantFields) {
				t.Errorf("newRouteData(%s) = %q, fields %q\nwant %q, fields %q", tt.route, got, fields, want, tt.wantFields)
			}
		})
	}
}

func TestModuleNameAndTitle(t *testing.T) {
	tests := []struct {
		dir, wantModule, wantTitle string
	}{
		{"shop", "shop", "Shop API"},
		{"my_shop", "my_shop", "My Shop API"},
		{"My Shop!", "my-shop", "My Shop API"},
		{"api.v2", "api.v2", "Api V2 API"},
		{".hidden-", "hidden", "Hidden API"},
		{"---", "app", "App API"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			if got := moduleName(tt.dir); got != tt.wantModule {
				t.Errorf("moduleName(%q) = %q, want %q", tt.dir, got, tt.wantModule)
			}
			if got := appTitle(tt.dir); got != tt.wantTitle {
				t.Errorf("appTitle(%q) = %q, want %q", tt.dir, got, tt.wantTitle)
			}
		})
	}
}

// TestNewRouteTemplatesRender checks that every scaffolded route maps back
// to the module its directive names.
func TestNewRouteTemplatesRender(t *testing.T) {
	for _, route := range []string{"GET /api/things/:id", "DELETE /api", "PATCH /api/a/:b/c/:d"} {
		t.Run(route, func(t *testing.T) {
			rf, err := parseNewRoute(route)
			if err != nil {
				t.Fatal(err)
			}
			src, err := render("route/main.go", newRouteData(rf))
			if err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`(?m)^//endpoints:route (.+)$`).FindSubmatch(src)
			if m == nil {
				t.Fatalf("no directive in:\n%s", src)
			}
			back, err := routefile.FromRoute(string(m[1]))
			if err != nil || back.File != rf.File {
				t.Errorf("directive %q maps to %q (%v), want %q", m[1], back.File, err, rf.File)
			}
		})
	}
}

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
}

func TestNewTidyFailureIsExplained(t *testing.T) {
	needGo(t)
	t.Setenv("GOPROXY", "off") // no published SDK can be found
	released := checkoutOfThisBuild
	checkoutOfThisBuild = func() string { return "" } // as a released build, which has no checkout
	t.Cleanup(func() { checkoutOfThisBuild = released })
	app := filepath.Join(t.TempDir(), "offline")
	code, out, errOut := runCLI("new", app)
	for _, want := range []string{"go mod tidy in " + app, "module lookup disabled by GOPROXY=off", "endpoints new --sdk DIR " + app} {
		if code != exitError || !strings.Contains(errOut, want) {
			t.Errorf("endpoints new with no reachable SDK = %d, want 1 and %q in:\n%s", code, want, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(app, "handlers", "hello", "main.go")); err != nil || !strings.Contains(out, "go.mod") {
		t.Errorf("the files should stay written and listed: %v\n%s", err, out)
	}
}

// TestNewBuildsAndServes scaffolds an app against this checkout, adds a
// route, runs the app's own tests, builds it and serves it.
func TestNewBuildsAndServes(t *testing.T) {
	t.Parallel()
	needGo(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(t.TempDir(), "My Shop")
	// Without --sdk: a development build uses the checkout it was built
	// from.
	code, out, errOut := runCLI("new", app)
	if code != exitOK || !strings.Contains(out, "using the Endpoints checkout at "+root) {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"module my-shop", filepath.Join(app, "handlers", "hello", "main_test.go"), filepath.Join(app, "go.sum"), "endpoints dev " + app} {
		if !strings.Contains(out, want) {
			t.Errorf("endpoints new printed no %q:\n%s", want, out)
		}
	}
	goMod, _ := os.ReadFile(filepath.Join(app, "go.mod"))
	if !strings.Contains(string(goMod), "replace github.com/wasmendpoints/endpoints => "+root+"\n") {
		t.Errorf("go.mod has no replace line for %s:\n%s", root, goMod)
	}
	if doc, _ := os.ReadFile(filepath.Join(app, "endpoints.json")); !strings.Contains(string(doc), `"title": "My Shop API"`) {
		t.Errorf("endpoints.json = %s, want the title My Shop API", doc)
	}

	code, out, errOut = runCLI("new", "route", app, "GET /api/things/:id")
	if code != exitOK || !strings.Contains(out, "server/api/things/[id].get.wasm") {
		t.Fatalf("endpoints new route = %d\n%s\n%s", code, out, errOut)
	}

	cmd := exec.Command("go", "test", "./...")
	cmd.Dir = app
	testOut, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test ./... in the new app: %v\n%s", err, testOut)
	}
	for _, pkg := range []string{"my-shop/handlers/hello", "my-shop/handlers/get-things-id"} {
		if !regexp.MustCompile(`(?m)^ok\s+` + regexp.QuoteMeta(pkg) + `\s`).Match(testOut) {
			t.Errorf("go test ./... ran no tests of %s:\n%s", pkg, testOut)
		}
	}

	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("endpoints build = %d\n%s\n%s", code, out, errOut)
	}
	// A minute for a request, not 10 s: the first waits for the code of
	// the app's Go module, which under the race detector on a loaded
	// machine took longer than 10 s to load (503, no instance).
	addr, _, cancel, _, stderr, done := startCLIFlags(t, "serve", app, []string{"--set", "limits.timeout=60s"})
	requests := []struct {
		name, path string
		wantStatus int
		wantBody   string
	}{
		{"hello by name", "/api/hello?name=Ada", 200, `{"message":"Hello, Ada!"}`},
		{"hello applies the default", "/api/hello", 200, `{"message":"Hello, world!"}`},
		{"hello refuses an empty name", "/api/hello?name=", 400, `"path":["name"]`},
		{"the new route", "/api/things/42", 200, `{"id":"42"}`},
	}
	for _, tt := range requests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := http.Get(addr + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tt.wantStatus || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("GET %s = %d %s, want %d %s", tt.path, res.StatusCode, body, tt.wantStatus, tt.wantBody)
			}
		})
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d, want 0\n%s", code, stderr.String())
		}
	case <-time.After(stopWithin):
		t.Fatalf("serve did not stop within %s of its context's end", stopWithin)
	}
	checkDevToken(t, app)
}
