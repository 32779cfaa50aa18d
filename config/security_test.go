package config_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
)

// bcryptHash is a bcrypt hash (of "secret", cost 4) for the basic
// verifiers below.
const bcryptHash = "$2a$04$DbFf2Epo4QvyMQ.T2TVVw.nspXfhFj5dCMZoZJX4Hiru7ShBEIu6O"

// TestParseChecksSecurityMembers: every command that reads
// endpoints.json refuses a verifier that serve would refuse when it
// builds it, naming the member's JSON pointer and what was expected,
// without reading a key file or fetching a URL.
func TestParseChecksSecurityMembers(t *testing.T) {
	tests := []struct{ name, security, want string }{
		{"a JWKS URL over plain http", `{"bearer": {"jwt": {"jwksUrl": "http://idp.example/jwks.json"}}}`,
			`/security/bearer/jwt/jwksUrl: "http://idp.example/jwks.json": want an https URL (plain http only for a loopback address`},
		{"a JWKS URL that is no URL", `{"bearer": {"jwt": {"jwksUrl": "idp.example/jwks.json"}}}`, `/security/bearer/jwt/jwksUrl: "idp.example/jwks.json": want an https URL`},
		{"a key set file outside the app", `{"bearer": {"jwt": {"jwks": "../keys/jwks.json"}}}`, `/security/bearer/jwt/jwks: "../keys/jwks.json": want a path inside the app`},
		{"an absolute key set file", `{"bearer": {"jwt": {"jwks": "/etc/jwks.json"}}}`, `/security/bearer/jwt/jwks: "/etc/jwks.json": want a path inside the app`},
		{"a secret naming no variable", `{"bearer": {"jwt": {"secret": {}}}}`, `/security/bearer/jwt/secret: want {"env": "NAME"}`},
		{"a secret file outside the app", `{"bearer": {"jwt": {"secret": {"file": "../secrets/jwt"}}}}`,
			`/security/bearer/jwt/secret/file: "../secrets/jwt": want an absolute path, such as "/run/secrets/jwt" (where Docker and Kubernetes mount secrets), or a path inside the app`},
		{"a secret file that is no string", `{"bearer": {"jwt": {"secret": {"file": 1}}}}`, `/security/bearer/jwt/secret/file`},
		{"a secret of an unknown form", `{"bearer": {"jwt": {"secret": {"path": "/run/secrets/jwt"}}}}`, `/security/bearer/jwt/secret`},
		{"two key sources", `{"bearer": {"jwt": {"jwks": "auth/jwks.json", "jwksUrl": "https://idp.example/jwks.json"}}}`, `/security/bearer/jwt: give exactly one of "jwks"`},
		{"a refresh without a URL", `{"bearer": {"jwt": {"jwks": "auth/jwks.json", "refresh": "5m"}}}`, `/security/bearer/jwt/refresh: applies to a key set fetched from "jwksUrl" only`},
		{"a fetch timeout without a URL", `{"bearer": {"jwt": {"secret": {"env": "K"}, "timeout": "5s"}}}`, `/security/bearer/jwt/timeout: applies to a key set fetched from "jwksUrl" only`},
		{"an unknown algorithm", `{"bearer": {"jwt": {"jwks": "auth/jwks.json", "algorithms": ["RS256", "none"]}}}`, `/security/bearer/jwt/algorithms/1: "none": want one of HS256, RS256, ES256, EdDSA`},
		{"a secret with RS256", `{"bearer": {"jwt": {"secret": {"env": "K"}, "algorithms": ["RS256"]}}}`, `/security/bearer/jwt/algorithms: a "secret" is an HS256 key`},
		{"an empty audience", `{"bearer": {"jwt": {"jwks": "auth/jwks.json", "audience": ["api", ""]}}}`, `/security/bearer/jwt/audience/1: an empty audience matches no token`},
		{"a dev key outside the app", `{"bearer": {"jwt": {"jwks": "auth/jwks.json", "devKey": "../dev.jwk"}}}`, `/security/bearer/jwt/devKey: "../dev.jwk": want a path inside the app`},
		{"an apiKey in the body", `{"partners": {"apiKey": {"store": true, "in": "body"}}}`, `/security/partners/apiKey/in: "body": want "header" (the default), "query" or "cookie"`},
		{"an apiKey header name with a space", `{"partners": {"apiKey": {"store": true, "name": "X Key"}}}`, `/security/partners/apiKey/name: "X Key": a header or cookie name is a token`},
		{"a key hash too short", `{"partners": {"apiKey": {"keys": [{"sha256": "abc"}]}}}`, `/security/partners/apiKey/keys/0/sha256: want 64 hexadecimal characters`},
		{"no key at all", `{"partners": {"apiKey": {}}}`, `/security/partners/apiKey: list "keys" or set "store": true`},
		{"basic without users", `{"admin": {"basic": {"users": {}}}}`, `/security/admin/basic/users: list at least one user`},
		{"a user name with a colon", `{"admin": {"basic": {"users": {"a:b": {"bcrypt": "` + bcryptHash + `"}}}}}`, `/security/admin/basic/users: "a:b": a user name is not empty and holds no ':'`},
		{"a password in clear", `{"admin": {"basic": {"users": {"alice": {"bcrypt": "hunter2"}}}}}`, `/security/admin/basic/users/alice/bcrypt: not a bcrypt hash`},
		{"no verifier", `{"bearer": {}}`, `/security/bearer: give exactly one verifier`},
		{"a scheme name escaped in the pointer", `{"a/b": {"jwt": {"secret": {}}}}`, `/security/a~1b/jwt/secret: want {"env": "NAME"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse(config.File, []byte(`{"security": `+tt.security+`}`))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %v\nwant it to contain %s", err, tt.want)
			}
		})
	}
}

// TestParseAcceptsGoodSecurity: what a verifier accepts parses, the
// checks needing I/O (the key file, the URL, the secret's variable) left
// to the host.
func TestParseAcceptsGoodSecurity(t *testing.T) {
	for _, security := range []string{
		`{"bearer": {"jwt": {"jwks": "auth/jwks.json", "issuer": "https://users.example", "audience": "api", "algorithms": ["ES256"]}}}`,
		`{"bearer": {"jwt": {"jwksUrl": "https://idp.example/.well-known/jwks.json", "refresh": "5m", "timeout": "2s"}}}`,
		`{"bearer": {"jwt": {"jwksUrl": "http://127.0.0.1:8080/jwks.json"}}}`,
		`{"bearer": {"jwt": {"jwksUrl": "http://localhost:8080/jwks.json"}}}`,
		`{"bearer": {"jwt": {"secret": {"env": "USERS_JWT_SECRET"}, "algorithms": ["HS256"]}}}`,
		`{"bearer": {"jwt": {"secret": {"file": "/run/secrets/users-jwt"}}}}`,
		`{"bearer": {"jwt": {"secret": {"file": "auth/jwt-secret"}}}}`,
		`{"bearer": {"jwt": {"secret": {"env": "USERS_JWT_SECRET", "file": "/run/secrets/users-jwt"}}}}`,
		`{"partners": {"apiKey": {"keys": [{"sha256": "` + strings.Repeat("ab", 32) + `", "subject": "acme"}], "in": "query", "name": "api key"}}}`,
		`{"partners": {"apiKey": {"store": true, "in": "cookie", "name": "session_key"}}}`,
		`{"admin": {"basic": {"users": {"alice": {"bcrypt": "` + bcryptHash + `", "scopes": ["admin"]}}, "realm": "ops"}}}`,
	} {
		if _, err := config.Parse(config.File, []byte(`{"security": `+security+`}`)); err != nil {
			t.Errorf("Parse(%s): %v", security, err)
		}
	}
}

// TestParseKeepsDecodedEdges: what Parse decoded and checked of "security"
// and "cors" is what the host builds from (App.Verifiers,
// App.CORSPolicy), overrides included; absent members give none.
func TestParseKeepsDecodedEdges(t *testing.T) {
	for _, tc := range []struct {
		name      string
		file      string
		overrides []config.Override
		schemes   []string
		others    []string
		cors      bool
	}{
		{name: "none", file: `{}`, others: []string{"bearer"}},
		{name: "no file", others: []string{"bearer"}},
		{name: "both", file: `{"security": {"bearer": {"jwt": {"jwks": "auth/jwks.json"}}, "ops": {"basic": {"users": {"alice": {"bcrypt": "` + bcryptHash + `"}}}}},
			"cors": {"allowOrigins": ["http://localhost:5173"]}}`, schemes: []string{"bearer", "ops"}, others: []string{"partners"}, cors: true},
		{name: "set by an override", file: `{}`, overrides: []config.Override{{Pointer: "/cors", Value: `{"allowOrigins": ["https://app.example"]}`, Source: "--set cors"}}, others: []string{"bearer"}, cors: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			if tc.file != "" {
				data = []byte(tc.file)
			}
			cfg, err := config.Parse(config.File, data, tc.overrides...)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.schemes {
				if !cfg.Verifiers().Has(s) || cfg.Verifiers().Key(s) == "" {
					t.Errorf("scheme %q: no configuration kept", s)
				}
			}
			for _, s := range tc.others {
				if cfg.Verifiers().Has(s) {
					t.Errorf("scheme %q: a configuration nobody wrote", s)
				}
			}
			if got := cfg.CORSPolicy() != nil; got != tc.cors {
				t.Errorf("CORS policy kept: %v, want %v", got, tc.cors)
			}
		})
	}
}
