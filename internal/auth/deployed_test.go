package auth_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/auth"
)

// TestProductionRefusesTheDevelopmentKeySetDeployed starts jwt schemes as
// a deployment would: the image carries the key set but not the private
// development key beside it, which anyone with the repository has.
func TestProductionRefusesTheDevelopmentKeySetDeployed(t *testing.T) {
	keys := newKeys(t)
	set := jwksJSON(t, keys["ec"].public)
	private := jwkJSON(t, keys["ec"].private)
	tests := []struct {
		name       string
		files      map[string][]byte
		cfg        auth.JWTConfig
		production bool
		wantErr    string
	}{
		{"deployed without the dev key", map[string][]byte{"auth/jwks.json": set}, auth.JWTConfig{JWKS: "auth/jwks.json", DevKey: "auth/dev.jwk"}, true,
			`security.bearer.jwt: the development signing key auth/dev.jwk is not in the app, so this is a deployment, and auth/jwks.json is its development key set`},
		{"the error says what to set", map[string][]byte{"auth/jwks.json": set}, auth.JWTConfig{JWKS: "auth/jwks.json", DevKey: "auth/dev.jwk"}, true,
			`has no "devKey" and takes its keys from your identity provider ("jwksUrl": "https://...")`},
		{"a checkout with the dev key serves", map[string][]byte{"auth/jwks.json": set, "auth/dev.jwk": private}, auth.JWTConfig{JWKS: "auth/jwks.json", DevKey: "auth/dev.jwk"}, true, ""},
		{"development keeps the key set", map[string][]byte{"auth/jwks.json": set}, auth.JWTConfig{JWKS: "auth/jwks.json", DevKey: "auth/dev.jwk"}, false, ""},
		{"production keys without devKey", map[string][]byte{"auth/jwks.json": set}, auth.JWTConfig{JWKS: "auth/jwks.json"}, true, ""},
		{"a devKey outside the app", map[string][]byte{"auth/jwks.json": set}, auth.JWTConfig{JWKS: "auth/jwks.json", DevKey: "../dev.jwk"}, true,
			`security.bearer.jwt.devKey: "../dev.jwk": want a path inside the app`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := appWith(t, tt.files)
			cfg := tt.cfg
			v, err := auth.New(bearer, auth.Config{JWT: &cfg}, auth.Env{AppDir: dir, Production: tt.production})
			if err == nil {
				v.Close()
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("New: %v, want an error holding %q", err, tt.wantErr)
			}
		})
	}
}
