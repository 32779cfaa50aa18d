package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/auth"
)

// TestToken mints a token for examples/users and has the verifier the
// host would build from the app's configuration accept it, scopes and all.
func TestToken(t *testing.T) {
	app := filepath.Join("..", "..", "examples", "users")
	code, out, errOut := runCLI("token", app, "--sub", "alice", "--scope", "users:write", "--scope", "orders:write")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	v, err := auth.New(auth.Scheme{Name: "bearer", Type: "http", HTTPScheme: "bearer"},
		auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/jwks.json", Issuer: "https://users.example", Audience: auth.Audience{"users-api"}}},
		auth.Env{AppDir: app})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/api/users", nil)
	r.Header.Set("Authorization", "Bearer "+strings.TrimSpace(out))
	p, err := v.Verify(context.Background(), r)
	if err != nil || p.Subject != "alice" || strings.Join(p.Scopes, " ") != "users:write orders:write" {
		t.Errorf("Verify = %+v, %v; want alice with both scopes", p, err)
	}
}

func TestTokenErrors(t *testing.T) {
	noKey := t.TempDir()
	os.WriteFile(filepath.Join(noKey, "endpoints.json"), []byte(`{"security":{"bearer":{"jwt":{"jwks":"auth/jwks.json"}}}}`), 0o644)
	apiKeyOnly := t.TempDir()
	os.WriteFile(filepath.Join(apiKeyOnly, "endpoints.json"), []byte(`{"security":{"partners":{"apiKey":{"keys":[{"sha256":"`+strings.Repeat("ab", 32)+`","subject":"ci"}]}}}}`), 0o644)
	noSecurity := t.TempDir()
	os.WriteFile(filepath.Join(noSecurity, "endpoints.json"), []byte(`{}`), 0o644)
	twoKeys := t.TempDir()
	os.WriteFile(filepath.Join(twoKeys, "endpoints.json"), []byte(`{"security":{"a":{"jwt":{"jwks":"auth/jwks.json","devKey":"auth/k.jwk"}},"b":{"jwt":{"jwks":"auth/jwks.json","devKey":"auth/k.jwk"}}}}`), 0o644)
	short := filepath.Join(t.TempDir(), "jwt")
	os.WriteFile(short, []byte("short\n"), 0o600)
	private, _, _, err := auth.NewKey("ES256", "k")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "k.jwk")
	if err := os.WriteFile(keyFile, private, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		// A secret the host would refuse signs nothing.
		{"a short secret file", []string{"token", "--sub", "a", "--secret-file", short}, "endpoints token: --secret-file: the file " + short + " holds 5 bytes; an HS256 key needs at least 32"},
		{"a key and a secret", []string{"token", "--sub", "a", "--secret-file", short, "--key", short}, "--key and --secret-file both name what to sign with; give one"},
		{"no subject", []string{"token", filepath.Join("..", "..", "examples", "users")}, "--sub is required"},
		// It said "want one security scheme with jwt devKey, found 0 ();
		// name one with --scheme", which no --scheme could satisfy.
		{"no dev key", []string{"token", noKey, "--sub", "a"}, "no security scheme has a jwt.devKey to sign development tokens with (configured: bearer); add a jwt scheme to \"security\", such as \"bearer\": {\"jwt\": {\"jwks\": \"auth/jwks.json\", \"devKey\": \"auth/dev-signing-key.jwk\"}} (endpoints keygen writes both files)"},
		{"API keys only", []string{"token", apiKeyOnly, "--sub", "a"}, "no security scheme has a jwt.devKey to sign development tokens with (configured: partners); add"},
		{"no security", []string{"token", noSecurity, "--sub", "a"}, "(configured: none); add"},
		{"two dev keys", []string{"token", twoKeys, "--sub", "a"}, "2 security schemes have a jwt.devKey (a, b); name the one to sign with: --scheme NAME"},
		// It said "security.nope has no jwt.devKey", of a scheme the app
		// does not have.
		{"an unknown scheme", []string{"token", filepath.Join("..", "..", "examples", "users"), "--sub", "a", "--scheme", "nope"}, "--scheme nope: the app configures no security scheme of that name (configured: bearer, partners); the schemes with a jwt.devKey to sign with: bearer"},
		// It signed a token without the scheme's issuer and audience,
		// saying nothing of --scheme.
		{"a scheme without APP", []string{"token", "--key", keyFile, "--sub", "a", "--scheme", "bearer"}, "--scheme bearer names a security scheme of APP, whose issuer and audience the token takes: give APP"},
		{"a scheme without a dev key", []string{"token", noKey, "--sub", "a", "--scheme", "bearer"}, "security.bearer has no jwt.devKey: add the path of a private JWK to sign development tokens with (endpoints keygen writes one); the schemes with one: none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(tt.args...)
			if code == exitOK || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want a failure saying %q", code, errOut, tt.want)
			}
		})
	}
}

// TestTokenSecretFileWarnsOfAKeySetScheme: --secret-file with an app
// whose scheme verifies with a key set signs, but warns that a host so
// configured refuses the HS256 token.
func TestTokenSecretFileWarnsOfAKeySetScheme(t *testing.T) {
	file := filepath.Join(t.TempDir(), "jwt")
	if err := os.WriteFile(file, []byte(strings.Repeat("s", 44)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("token", filepath.Join("..", "..", "examples", "users"), "--sub", "a", "--secret-file", file, "--scheme", "bearer")
	if want := `security.bearer.jwt verifies with a key set, not a "secret"`; code != exitOK || strings.Count(strings.TrimSpace(out), ".") != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want a token and a warning saying %q", code, out, errOut, want)
	}
}
