package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/config"
	assdk "github.com/wasmendpoints/endpoints/guest-sdk/assemblyscript"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// TestNewEveryLanguage scaffolds an app in C, AssemblyScript and Rust with
// `endpoints new --lang`, builds it, serves it and calls its route; the
// token `endpoints token` mints for it verifies against the key set its
// endpoints.json configures, and the document declares that scheme.
func TestNewEveryLanguage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lang, tool string
		files      []string // besides endpoints.json, README.md and the keys
		slow       bool
	}{
		{"c", "clang", []string{"server/api/hello.get.c", "compile_flags.txt", "vendor/endpoints-c/endpoints.h", "vendor/endpoints-c/endpoints_db.h", "vendor/endpoints-c/README.md"}, false},
		{"as", "npm", []string{"server/api/hello.get.ts", "package.json", "tsconfig.json", "vendor/endpoints-assemblyscript/index.ts", "vendor/endpoints-assemblyscript/README.md"}, true},
		{"rs", "rustc", []string{"server/api/hello.get.rs", "Cargo.toml", "vendor/endpoints-rust/src/lib.rs", "vendor/endpoints-rust/Cargo.toml", "vendor/endpoints-rust/README.md"}, true},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			if tt.slow && testing.Short() {
				t.Skip("-short: this compiler takes seconds")
			}
			needTool(t, tt.tool)
			app := filepath.Join(t.TempDir(), "notes-"+tt.lang)
			code, out, errOut := runCLI("new", "--lang", tt.lang, app)
			if code != exitOK {
				t.Fatalf("endpoints new --lang %s = %d\n%s\n%s", tt.lang, code, out, errOut)
			}
			for _, f := range append([]string{"endpoints.json", "README.md", devKeyFile, devJWKSFile}, tt.files...) {
				if _, err := os.Stat(filepath.Join(app, filepath.FromSlash(f))); err != nil {
					t.Errorf("endpoints new --lang %s wrote no %s: %v", tt.lang, f, err)
				}
			}
			// new route finds the app's language by itself.
			for _, route := range []string{"GET /api/things/:id", "POST /api/things"} {
				if code, out, errOut := runCLI("new", "route", app, route); code != exitOK {
					t.Fatalf("endpoints new route %s = %d\n%s\n%s", route, code, out, errOut)
				}
			}
			if code, out, errOut := runCLI("build", app); code != exitOK {
				t.Fatalf("endpoints build = %d\n%s\n%s", code, out, errOut)
			}
			addr, _, cancel, _, stderr, done := startCLI(t, "serve", app)
			for _, r := range []struct {
				path   string
				status int
				body   string
			}{
				{"/api/hello?name=Ada", 200, `{"message":"Hello, Ada!"}`},
				{"/api/hello?name=%22Ada%22", 200, `{"message":"Hello, \"Ada\"!"}`},
				{"/api/hello", 200, `{"message":"Hello, world!"}`},
				{"/api/hello?name=", 400, `"path":["name"]`},
				{"/api/things/42", 200, `{"id":"42"}`},
				{"/api/things/%22x%22", 200, `{"id":"\"x\""}`},
				{"POST /api/things", 200, `{"message":"POST /api/things"}`},
			} {
				method, path, ok := strings.Cut(r.path, " ")
				if !ok {
					method, path = "GET", r.path
				}
				req, err := http.NewRequest(method, addr+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != r.status || !strings.Contains(string(body), r.body) {
					t.Errorf("GET %s = %d %s, want %d %s", r.path, res.StatusCode, body, r.status, r.body)
				}
			}
			cancel()
			select {
			case code := <-done:
				if code != exitOK {
					t.Errorf("serve exited %d\n%s", code, stderr.String())
				}
			case <-time.After(stopWithin):
				t.Fatalf("serve did not stop within %s", stopWithin)
			}
			code, out, errOut = runCLI("openapi", app)
			var doc struct {
				Components struct {
					SecuritySchemes map[string]struct{ Type, Scheme string }
				}
			}
			err := json.Unmarshal([]byte(out), &doc)
			if s := doc.Components.SecuritySchemes["bearer"]; code != exitOK || err != nil || s.Type != "http" || s.Scheme != "bearer" {
				t.Errorf("the document's securitySchemes = %+v (%d, %v, %s); want the bearer scheme endpoints.json configures", doc.Components.SecuritySchemes, code, err, errOut)
			}
			checkDevToken(t, app)
			switch tt.lang {
			case "rs":
				checkCargo(t, app)
			case "c":
				checkCompileFlags(t, app)
			}
		})
	}
}

// checkCargo runs cargo check on the examples of a Rust app's Cargo.toml,
// offline, as rust-analyzer does: the routes and the vendored SDK must
// resolve. Skipped without cargo (builds never need it).
func checkCargo(t *testing.T, app string) {
	t.Helper()
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("cargo is required in CI")
		}
		t.Log("cargo not installed: Cargo.toml not checked")
		return
	}
	cmd := exec.CommandContext(t.Context(), cargo, "check", "--offline", "--quiet", "--examples")
	cmd.Dir = app
	cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cargo check --offline --examples in the new app: %v\n%s", err, out)
	}
}

// checkCompileFlags compiles every C source of app's server directory as
// clangd does for an editor: with the flags of its compile_flags.txt,
// whose -I names the vendored SDK, syntax only, any warning an error. The
// vendored headers must all be there, and compile without a warning.
func checkCompileFlags(t *testing.T, app string) {
	t.Helper()
	flags, err := os.ReadFile(filepath.Join(app, "compile_flags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	err = filepath.WalkDir(filepath.Join(app, "server"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".c") {
			rel, _ := filepath.Rel(app, path)
			sources = append(sources, rel)
		}
		return err
	})
	if err != nil || len(sources) == 0 {
		t.Fatalf("the C sources of %s: %v (%d found)", app, err, len(sources))
	}
	args := append(append([]string{"-fsyntax-only", "-Werror"}, strings.Fields(string(flags))...), sources...)
	cmd := exec.CommandContext(t.Context(), "clang", args...)
	cmd.Dir = app
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("clang %s, as clangd compiles the app's sources with its compile_flags.txt: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// checkDevToken mints a token for app with `endpoints token` and verifies
// it as the host does, with the bearer scheme of the app's endpoints.json.
func checkDevToken(t *testing.T, app string) {
	t.Helper()
	code, token, errOut := runCLI("token", app, "--sub", "alice", "--scope", "notes:write")
	if code != exitOK {
		t.Fatalf("endpoints token = %d\n%s", code, errOut)
	}
	cfg, err := config.Load(app)
	if err != nil {
		t.Fatal(err)
	}
	var c auth.Config
	if err := jsonv2.Unmarshal(cfg.Security["bearer"], &c); err != nil {
		t.Fatal(err)
	}
	v, err := auth.New(auth.Scheme{Name: "bearer", Type: "http", HTTPScheme: "bearer"}, c, auth.Env{AppDir: app})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(token))
	p, err := v.Verify(t.Context(), req)
	if err != nil || p.Subject != "alice" || len(p.Scopes) != 1 || p.Scopes[0] != "notes:write" {
		t.Errorf("the minted token verifies as %+v, %v; want alice with notes:write", p, err)
	}
}

func TestKeygen(t *testing.T) {
	t.Parallel()
	app := t.TempDir()
	if err := os.WriteFile(filepath.Join(app, config.File), []byte(`{"security":{"bearer":{"jwt":{"jwks":"auth/jwks.json","devKey":"auth/dev-signing-key.jwk"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("keygen", app)
	if code != exitOK || !strings.Contains(out, "endpoints token") {
		t.Fatalf("keygen = %d\n%s\n%s", code, out, errOut)
	}
	info, err := os.Stat(filepath.Join(app, "auth", "dev-signing-key.jwk"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the private key: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	checkDevToken(t, app)

	first, _ := os.ReadFile(filepath.Join(app, "auth", "jwks.json"))
	code, _, errOut = runCLI("keygen", app)
	if code != exitError || !strings.Contains(errOut, "exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("keygen over an existing key = %d %s, want a refusal naming --force", code, errOut)
	}
	if again, _ := os.ReadFile(filepath.Join(app, "auth", "jwks.json")); string(again) != string(first) {
		t.Error("a refused keygen changed the key set")
	}
	if code, _, errOut = runCLI("keygen", "--force", app); code != exitOK {
		t.Fatalf("keygen --force = %d %s", code, errOut)
	}
	if again, _ := os.ReadFile(filepath.Join(app, "auth", "jwks.json")); string(again) == string(first) {
		t.Error("keygen --force kept the old key set")
	}
	checkDevToken(t, app)
	if code, _, errOut = runCLI("keygen", "--key", "../outside.jwk", app); code != exitError || !strings.Contains(errOut, "inside the app") {
		t.Errorf("keygen --key ../outside.jwk = %d %s, want a refusal", code, errOut)
	}
}

// TestNewREADME renders the README `endpoints new` writes in each
// language: its Layout block's descriptions line up, and it says how to
// add a route (endpoints new route) and how to store data (the main
// database, migrations, the SDK's query call).
func TestNewREADME(t *testing.T) {
	for _, tt := range []struct{ lang, query string }{
		{"go", `endpoints.DB("main")`},
		{"c", `endpoints_query("main"`},
		{"as", `new DB("main")`},
		{"rs", `Db::new("main")`},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			data := appData{Lang: tt.lang, Title: "Notes API", Module: "notes", SDKModule: sdkModule, SDKDir: "guest-sdk/go"}
			if tt.lang != "go" {
				data = withLang(data)
			}
			b, err := render("README.md", data)
			if err != nil {
				t.Fatal(err)
			}
			readme := string(b)
			for _, want := range []string{"endpoints new route . 'GET /api/things/:id'", "server/migrations/001-notes.sql", tt.query, data.SDKDir + "/README.md"} {
				if !strings.Contains(readme, want) {
					t.Errorf("the README does not say %s:\n%s", want, readme)
				}
			}
			_, layout, _ := strings.Cut(readme, "## Layout\n\n")
			layout, _, _ = strings.Cut(layout, "\n\n")
			column := -1
			for _, line := range strings.Split(layout, "\n") {
				// The description starts after the path and its padding.
				path := strings.Fields(line)[0]
				at := strings.Index(line, path) + len(path)
				at += len(line[at:]) - len(strings.TrimLeft(line[at:], " "))
				if column < 0 {
					column = at
				}
				if at != column {
					t.Errorf("the Layout line %q starts its description at column %d, the first at %d:\n%s", line, at, column, layout)
				}
			}
		})
	}
}

func TestCString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`{"a":"b\c"}`, `"{\"a\":\"b\\c\"}"`},
		{"what??=", `"what\?\?="`},
		{"tab\there", `"tab\011here"`},
		{"é1", `"\303\2511"`},
	} {
		if got := cString(tt.in); got != tt.want {
			t.Errorf("cString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAppLang(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		files map[string]string
		flag  string
		want  string
		err   string
	}{
		{"Rust", map[string]string{"Cargo.toml": "", "endpoints.json": "{}"}, "", "rs", ""},
		{"AssemblyScript", map[string]string{"package.json": "{}", "endpoints.json": "{}"}, "", "as", ""},
		{"C", map[string]string{"compile_flags.txt": "", "endpoints.json": "{}"}, "", "c", ""},
		{"Go", map[string]string{"go.mod": "module x\n", "endpoints.json": "{}"}, "", "go", ""},
		{"the flag wins", map[string]string{"Cargo.toml": ""}, "c", "c", ""},
		{"an unknown flag", nil, "zig", "", "--lang zig: want go, c, as (AssemblyScript) or rs (Rust)"},
		{"nothing to tell by", map[string]string{"endpoints.json": "{}"}, "", "", "say --lang c, as or rs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			got, err := appLang(dir, tt.flag)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("appLang error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("appLang = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestNewAssemblyScriptBuildsWithShippedSDK: an AssemblyScript app made by
// `endpoints new` builds against the SDK this program ships, as C and Rust
// apps do; its vendor/ copy is for editors only (tsconfig.json's paths), so
// an upgrade of endpoints reaches its routes. An app that installs its own
// copy (as apps made before did, through package.json) is told that its
// routes build against it when it differs.
func TestNewAssemblyScriptBuildsWithShippedSDK(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: asc takes seconds")
	}
	needTool(t, "npm")
	app := filepath.Join(t.TempDir(), "as-sdk")
	if code, out, errOut := runCLI("new", "--lang", "as", app); code != exitOK {
		t.Fatalf("endpoints new --lang as = %d\n%s\n%s", code, out, errOut)
	}
	vendored := filepath.Join(app, "vendor", "endpoints-assemblyscript", "index.ts")
	orig, err := os.ReadFile(vendored)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vendored, append(slices.Clone(orig), "\nthis is not AssemblyScript\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("build", app)
	if code != exitOK || strings.Contains(errOut, "note: the AssemblyScript routes build against") {
		t.Fatalf("build of a new app whose vendor/ copy is broken = %d, want 0 and no note (the build uses the shipped SDK)\n%s\n%s", code, out, errOut)
	}

	// An app of before: the SDK installed from vendor/ by package.json.
	if err := os.WriteFile(vendored, append(slices.Clone(orig), "\n// an older SDK\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, version, _ := strings.Cut(assdk.Compiler, "@")
	pkg := `{"private": true, "devDependencies": {"@wasmendpoints/assemblyscript": "file:vendor/endpoints-assemblyscript", "assemblyscript": "` + version + `"}}`
	if err := os.WriteFile(filepath.Join(app, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	npm := exec.Command("npm", "install", "--no-audit", "--no-fund")
	npm.Dir = app
	if b, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, b)
	}
	code, out, errOut = runCLI("build", app)
	want := `note: the AssemblyScript routes build against the SDK installed in node_modules/@wasmendpoints/assemblyscript (vendor/endpoints-assemblyscript), which is not the one this endpoints ships`
	if code != exitOK || !strings.Contains(errOut, want) {
		t.Errorf("build of an app whose installed SDK differs = %d, want 0 and %q\n%s\n%s", code, want, out, errOut)
	}
}
