package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestBuildLeavesSecurityToTheDeployment: what of an app's security the
// deployment gives (a verifier in ENDPOINTS_SECURITY for a scheme the
// document declares, a jwt secret's environment variable or file), which
// a build in CI lacks on purpose, is a warning of `endpoints build` and
// `check`, naming the setting and its variable or file: they pass.
// Serve's load without it still refuses the app, naming the same. A scheme that
// nothing declares (a route's typo) still fails the build.
func TestBuildLeavesSecurityToTheDeployment(t *testing.T) {
	t.Parallel()
	declared := runtimeWAT(`{"openApi":{"document":{"components":{"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}}}}}}`)
	tests := []struct {
		name  string
		files map[string]string
		// warn is in build's warning and serve's refusal; empty for an
		// app the build refuses, with fail in its error. refused, when
		// set, is serve's refusal instead of serve: a setting serve
		// checks before it loads anything, named by its JSON pointer.
		warn, serve, fail, refused string
	}{
		{name: "a declared scheme endpoints.json configures no verifier for", files: map[string]string{
			"server/api/orders.post.wat":   endpointWAT(`{"security":[{"bearer":[]}]}`),
			"server/endpoints/runtime.wat": declared,
		},
			warn:  "serve refuses the app unless the deployment sets security.bearer (ENDPOINTS_SECURITY): ",
			serve: `security: POST /api/orders requires security scheme "bearer": endpoints.json configures no verifier for it: add "security": {"bearer": {...}} (jwt, apiKey or basic) to endpoints.json, or give that "security" object whole in ENDPOINTS_SECURITY (--set security=...) where the app is deployed`},
		{name: "a jwt secret whose environment variable is not set", files: map[string]string{
			"endpoints.json":             `{"security":{"bearer":{"jwt":{"secret":{"env":"ENDPOINTS_TEST_UNSET_JWT_SECRET"}}}}}`,
			"server/api/orders.post.wat": endpointWAT(`{"security":[{"bearer":[]}]}`),
		},
			warn:    "serve refuses the app unless the deployment sets security.bearer.jwt.secret (ENDPOINTS_TEST_UNSET_JWT_SECRET): ",
			serve:   "security.bearer.jwt.secret: the environment variable ENDPOINTS_TEST_UNSET_JWT_SECRET is not set: set it to the HS256 key, at least 32 bytes",
			refused: "endpoints.json: /security/bearer/jwt/secret: the environment variable ENDPOINTS_TEST_UNSET_JWT_SECRET is not set: set it to the HS256 key, at least 32 bytes"},
		{name: "a jwt secret whose file does not exist", files: map[string]string{
			"endpoints.json":             `{"security":{"bearer":{"jwt":{"secret":{"file":"auth/jwt-secret"}}}}}`,
			"server/api/orders.post.wat": endpointWAT(`{"security":[{"bearer":[]}]}`),
		},
			warn:    "serve refuses the app unless the deployment sets security.bearer.jwt.secret (the file auth/jwt-secret): ",
			serve:   "security.bearer.jwt.secret: the file auth/jwt-secret does not exist: mount the HS256 key there, at least 32 bytes",
			refused: "endpoints.json: /security/bearer/jwt/secret: the file auth/jwt-secret does not exist: mount the HS256 key there, at least 32 bytes"},
		{name: "a route naming a scheme nothing declares", files: map[string]string{
			"server/api/orders.post.wat":   endpointWAT(`{"security":[{"bearr":[]}]}`),
			"server/endpoints/runtime.wat": declared,
		},
			fail: `POST /api/orders requires security scheme "bearr": neither endpoints.json nor the document declares it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := writeApp(t, tt.files)
			code, out, errOut := runCLI("build", app)
			if tt.fail != "" {
				if code != exitError || !strings.Contains(errOut, tt.fail) || strings.Contains(errOut, "warning") {
					t.Errorf("build = %d, want exit 1 and %q, no warning, in:\n%s\n%s", code, tt.fail, out, errOut)
				}
				return
			}
			if code != exitOK || !strings.Contains(errOut, "endpoints build: warning: "+tt.warn+"security: ") || !strings.Contains(errOut, tt.serve) || !strings.Contains(out, "checked the app as serve starts it") {
				t.Errorf("build = %d, want exit 0, the check's line and the warning %q ... %q in:\n%s\n%s", code, tt.warn, tt.serve, out, errOut)
			}
			// build --cache-dir (an image's build) loads the app as
			// serve does, offline: the same warning.
			code, out, errOut = runCLI("build", app, "--cache-dir", t.TempDir())
			if code != exitOK || !strings.Contains(errOut, fmt.Sprintf("msg=%q", strings.TrimSuffix(tt.warn, ": "))) {
				t.Errorf("build --cache-dir = %d, want exit 0 and the warning %q in:\n%s\n%s", code, tt.warn, out, errOut)
			}
			code, out, errOut = runCLI("check", app, "--no-build", "--cache-dir", "off")
			if code != exitOK || !strings.Contains(errOut, "endpoints check: warning: "+tt.warn) {
				t.Errorf("check = %d, want exit 0 and the warning %q in:\n%s\n%s", code, tt.warn, out, errOut)
			}
			// Serve's load (its variables resolved, as serve does; no
			// database opened) refuses the app, naming the variable.
			h, err := host.New(context.Background(), app, host.Options{Mode: host.Production, Logger: slog.New(slog.DiscardHandler), SkipMigrations: true})
			if err == nil {
				_ = h.Close(context.Background())
				t.Fatal("serve's load of the app without the deployment's setting succeeded")
			}
			refused := tt.serve
			if tt.refused != "" {
				refused = tt.refused
			}
			if !strings.Contains(err.Error(), refused) {
				t.Errorf("serve's load failed with\n%v\nwant %q", err, refused)
			}
		})
	}
}

// TestBuildTakesTheDeploymentsSecurity: given the setting the warning
// names (here by --set, as ENDPOINTS_SECURITY gives it), the build warns
// of nothing.
func TestBuildTakesTheDeploymentsSecurity(t *testing.T) {
	t.Parallel()
	app := writeApp(t, map[string]string{
		"server/api/orders.post.wat":   endpointWAT(`{"security":[{"bearer":[]}]}`),
		"server/endpoints/runtime.wat": runtimeWAT(`{"openApi":{"document":{"components":{"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}}}}}}`),
	})
	code, out, errOut := runCLI("build", app, "--set", `security={"bearer": {"jwt": {"jwksUrl": "https://idp.example/jwks.json"}}}`)
	if code != exitOK || strings.Contains(errOut, "warning") {
		t.Errorf("build with the deployment's security = %d, want 0 and no warning:\n%s\n%s", code, out, errOut)
	}
}

// TestAnOfflineLoadLetsNobodyIn: the load of build and check (offline:
// host.Options.SkipVariables) warns, rather than fails, of a verifier or
// a jwt secret the deployment gives; a host so loaded that is handed a
// request anyway (a program embedding package host with the option set)
// must still refuse it, never run the route as if it required nothing.
func TestAnOfflineLoadLetsNobodyIn(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string]string{
		"no verifier": {
			"server/api/orders.post.wat":   endpointWAT(`{"security":[{"bearer":[]}]}`),
			"server/endpoints/runtime.wat": runtimeWAT(`{"openApi":{"document":{"components":{"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}}}}}}`),
		},
		"a jwt secret unset": {
			"endpoints.json":             `{"security":{"bearer":{"jwt":{"secret":{"env":"ENDPOINTS_TEST_UNSET_JWT_SECRET"}}}}}`,
			"server/api/orders.post.wat": endpointWAT(`{"security":[{"bearer":[]}]}`),
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			app := writeApp(t, files)
			if code, out, errOut := runCLI("build", app); code != exitOK {
				t.Fatalf("build = %d:\n%s\n%s", code, out, errOut)
			}
			h, err := host.New(t.Context(), app, host.Options{Mode: host.Production, Logger: slog.New(slog.DiscardHandler), SkipVariables: true, SkipMigrations: true})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			if len(h.Warnings()) == 0 {
				t.Fatal("the offline load warns of nothing; want the setting left to the deployment")
			}
			for _, auth := range []string{"", "Bearer x.y.z"} {
				req := httptest.NewRequest("POST", "/api/orders", strings.NewReader(`{}`))
				req.Header.Set("Content-Type", "application/json")
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusUnauthorized {
					t.Errorf("POST /api/orders (Authorization %q) = %d %s, want 401", auth, w.Code, w.Body)
				}
			}
		})
	}
}
