package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesAMissingVariableBeforeLoading: serve of an app whose
// required variable has no value fails naming the variable and where it
// was looked for, and says nothing of modules loaded or ready before: a
// user who reads "ready" expects the server to start.
func TestServeRefusesAMissingVariableBeforeLoading(t *testing.T) {
	t.Parallel()
	app := writeApp(t, map[string]string{
		"endpoints.json":             `{"variables":{"webhookSecret":{"env":"ENDPOINTS_TEST_UNSET_WEBHOOK_SECRET","file":"secrets/webhook"}}}`,
		"server/api/orders.post.wat": endpointWAT(`{}`),
		"server/api/orders.get.wat":  endpointWAT(`{}`),
	})
	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runCLI("serve", app, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir())
	if code != exitError {
		t.Fatalf("serve = %d, want %d\n%s\n%s", code, exitError, out, errOut)
	}
	for _, want := range []string{"/variables/webhookSecret", "environment variable ENDPOINTS_TEST_UNSET_WEBHOOK_SECRET is unset or empty", "secrets/webhook does not exist"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("serve's error does not say %q:\n%s", want, errOut)
		}
	}
	for _, said := range []string{"loaded 1/", "loaded 2/", "compiled", "ready", "every route runs compiled code"} {
		if strings.Contains(out+errOut, said) {
			t.Errorf("serve said %q before failing on the variable:\n%s\n%s", said, out, errOut)
		}
	}
}

// TestServeRefusesABadSettingBeforeLoading: serve of an app whose
// settings name a file that is not there (an outbound CA file, the docs
// page's assets directory, a security scheme's key set file, given in
// endpoints.json or by an override) fails naming the setting, the
// override that set it and what to do, and says nothing of modules
// loaded or ready before, nor applies a migration: each was found after
// the route modules loaded, the key set file after the migrations too.
func TestServeRefusesABadSettingBeforeLoading(t *testing.T) {
	t.Parallel()
	guarded := endpointWAT(`{"security":[{"bearer":[]}]}`)
	const jwks = `{"keys":[{"kty":"oct","k":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY","alg":"HS256","kid":"a"}]}`
	const good = `{"databases": {"main": {"path": "data/app.db"}}, "security": {"bearer": {"jwt": {"jwks": "auth/jwks.json"}}}`
	tests := []struct {
		name     string
		settings string // the members endpoints.json has besides good's
		set      []string
		want     []string
	}{
		{"an outbound CA file that is missing", `"outbound": {"allowedHosts": ["https://api.example.com"], "caFile": "certs/ca.pem"}`, nil,
			[]string{"endpoints.json: /outbound/caFile: ", "certs/ca.pem does not exist: put there the PEM certificates"}},
		{"an outbound CA file an override names", "", []string{"--set", "outbound.caFile=certs/ca.pem"},
			[]string{"endpoints.json: /outbound/caFile: ", "certs/ca.pem does not exist", "(/outbound/caFile set by --set outbound.caFile)"}},
		{"a docs assets directory that is missing", `"openApi": {"enabled": true, "docs": {"assets": "public/scalar"}}`, nil,
			[]string{`endpoints.json: /openApi/docs/assets: "public/scalar": `, "public/scalar does not exist; put the reference's build there"}},
		{"a key set file the deployment's security names", "", []string{"--set", `security={"bearer": {"jwt": {"jwks": "secrets/jwks.json"}}}`},
			[]string{"endpoints.json: /security/bearer/jwt/jwks: secrets/jwks.json does not exist in the app", "(/security set by --set security)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			app := writeApp(t, map[string]string{
				"endpoints.json":                  good + "}",
				"auth/jwks.json":                  jwks,
				"server/api/orders.get.wat":       guarded,
				"server/migrations/001-users.sql": "CREATE TABLE users (id INTEGER PRIMARY KEY);\n",
			})
			if code, out, errOut := runCLI("build", app); code != exitOK {
				t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
			}
			if tt.settings != "" {
				// Changed where the app is served.
				if err := os.WriteFile(filepath.Join(app, "endpoints.json"), []byte(good+", "+tt.settings+"}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"serve", app, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir()}, tt.set...)
			code, out, errOut := runCLI(args...)
			if code != exitError {
				t.Fatalf("serve = %d, want %d\n%s\n%s", code, exitError, out, errOut)
			}
			for _, want := range tt.want {
				if !strings.Contains(errOut, want) {
					t.Errorf("serve's error does not say %q:\n%s", want, errOut)
				}
			}
			for _, said := range []string{"loaded 1/", "loaded " + app, "ready 1/", "migration applied", "every route runs compiled code"} {
				if strings.Contains(out+errOut, said) {
					t.Errorf("serve said %q before failing on the setting:\n%s\n%s", said, out, errOut)
				}
			}
			if _, err := os.Stat(filepath.Join(app, "data", "app.db")); err == nil {
				t.Errorf("serve made the database data/app.db before failing on the setting")
			}
		})
	}
}
