package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRefusesAPatternThatMatchesNoRoute: an entry of
// routes.config.json that matches no route (left behind by a deleted
// route) is only a warning under dev, but serve refuses to start with it:
// check fails on it, naming the entry, and passes once it is gone.
func TestCheckRefusesAPatternThatMatchesNoRoute(t *testing.T) {
	requireWat2wasm(t)
	app := t.TempDir()
	src := helloWAT(t)
	write := func(rel, data string) {
		p := filepath.Join(app, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("server/api/hello.get.wat", string(src))
	write("server/routes.config.json", `{"routes": {"/api/gone": {"responses": {"503": {"description": "Busy"}}}}}`)
	cache := t.TempDir()
	code, _, errOut := runCLI("check", app, "--cache-dir", cache)
	for _, want := range []string{"1 entry(ies) match no route", `server/routes.config.json: /routes/~1api~1gone: pattern "/api/gone"`} {
		if code != exitError || !strings.Contains(errOut, want) {
			t.Errorf("check with a pattern that matches no route = %d, want exit 1 and %q in:\n%s", code, want, errOut)
		}
	}
	write("server/routes.config.json", `{"routes": {"/api/hello": {"responses": {"503": {"description": "Busy"}}}}}`)
	if code, out, errOut := runCLI("check", app, "--cache-dir", cache); code != exitOK {
		t.Errorf("check once the pattern matches = %d\n%s\n%s", code, out, errOut)
	}
	// A rate limit's pattern too: a typo left the route unlimited, and
	// check said ok.
	write("endpoints.json", `{"rateLimits": {"hello": {"routes": ["/api/helo"], "limit": 5, "window": "1m"}}}`)
	code, _, errOut = runCLI("check", app, "--cache-dir", cache)
	for _, want := range []string{"1 entry(ies) match no route", `endpoints.json: /rateLimits/hello/routes/0: pattern "/api/helo" matches no route of the app`} {
		if code != exitError || !strings.Contains(errOut, want) {
			t.Errorf("check with a rate limit pattern that matches no route = %d, want exit 1 and %q in:\n%s", code, want, errOut)
		}
	}
}

// TestCommandsRefuseABrokenVerifier: a verifier serve would refuse (a
// JWKS URL over plain http to another host) fails check, build, openapi
// and routes too, naming the member's JSON pointer, not only serve when
// it builds the verifier.
func TestCommandsRefuseABrokenVerifier(t *testing.T) {
	requireWat2wasm(t)
	app := t.TempDir()
	src := helloWAT(t)
	if err := os.MkdirAll(filepath.Join(app, "server", "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "server", "api", "hello.get.wat"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "endpoints.json"), []byte(`{"security": {"bearer": {"jwt": {"jwksUrl": "http://idp.example/jwks.json"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for _, cmd := range []string{"check", "build", "openapi", "routes"} {
		code, _, errOut := runCLI(cmd, app, "--cache-dir", cache)
		if want := `endpoints.json: /security/bearer/jwt/jwksUrl: "http://idp.example/jwks.json": want an https URL`; code != exitError || !strings.Contains(errOut, want) {
			t.Errorf("%s = %d, want exit 1 and %q in:\n%s", cmd, code, want, errOut)
		}
	}
}

// helloWAT is the WAT source of the host's hello test route (GET
// /api/hello), for tests that build an app of it.
func helloWAT(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "host", "testdata", "hello", "server", "api", "hello.get.wat"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestCheckNamesItselfInTheBuildsErrors: check builds the app first, and
// a build that fails says so under the command the user ran, "endpoints
// check:", not "endpoints build:", whether a module does not compile or
// the app's build command fails.
func TestCheckNamesItselfInTheBuildsErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"a module that does not compile", map[string]string{"server/api/hello.get.wat": "(module (func"},
			"\nendpoints check: "},
		{"a build command that fails", map[string]string{"endpoints.json": `{"build": {"command": "exit 3"}}`},
			"\nendpoints check: build command `exit 3` (endpoints.json /build/command) exited with code 3"},
		{"an endpoints.json that does not parse", map[string]string{"endpoints.json": `{"build": `},
			"endpoints check: endpoints.json: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := writeApp(t, tt.files)
			code, out, errOut := runCLI("check", app, "--cache-dir", t.TempDir())
			if code != exitError || !strings.Contains(errOut, tt.want) {
				t.Errorf("check = %d, want %d and %q in its errors:\n%s\n%s", code, exitError, tt.want, out, errOut)
			}
			if strings.Contains(errOut, "endpoints build:") {
				t.Errorf("check's errors name build, a command the user did not run:\n%s", errOut)
			}
		})
	}
}
