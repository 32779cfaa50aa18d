package schemedoc

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

func TestDerive(t *testing.T) {
	for _, tt := range []struct {
		name   string
		cfg    auth.Config
		scopes []string
		want   openapi.SecurityScheme
		desc   []string // the description holds each
		err    string
	}{
		{name: "jwt", cfg: auth.Config{JWT: &auth.JWTConfig{JWKS: "k.json", Issuer: "https://idp.example", Audience: auth.Audience{"notes"}}},
			scopes: []string{"notes:read", "notes:write"},
			want:   openapi.SecurityScheme{Type: "http", Scheme: "bearer", BearerFormat: "JWT"},
			desc:   []string{"Authorization: Bearer", "https://idp.example", "audience notes", "scope claim): notes:read, notes:write"}},
		{name: "jwt with its scopes claim", cfg: auth.Config{JWT: &auth.JWTConfig{JWKS: "k.json", ScopesClaim: "permissions"}}, scopes: []string{"a"},
			want: openapi.SecurityScheme{Type: "http", Scheme: "bearer", BearerFormat: "JWT"}, desc: []string{"permissions claim): a"}},
		{name: "basic", cfg: auth.Config{Basic: &auth.BasicConfig{}},
			want: openapi.SecurityScheme{Type: "http", Scheme: "basic"}, desc: []string{"RFC 7617"}},
		{name: "apiKey by default", cfg: auth.Config{APIKey: &auth.APIKeyConfig{Store: true}},
			want: openapi.SecurityScheme{Type: "apiKey", In: "header", Name: "X-API-Key"}, desc: []string{"header X-API-Key"}},
		{name: "apiKey in a query parameter", cfg: auth.Config{APIKey: &auth.APIKeyConfig{In: "query", Name: "key"}}, scopes: []string{"x"},
			want: openapi.SecurityScheme{Type: "apiKey", In: "query", Name: "key"}, desc: []string{"query key", "per key): x"}},
		{name: "apiKey in a body", cfg: auth.Config{APIKey: &auth.APIKeyConfig{In: "body"}}, err: `apiKey.in: want "header", "query" or "cookie", got "body"`},
		{name: "two verifiers", cfg: auth.Config{APIKey: &auth.APIKeyConfig{}, Basic: &auth.BasicConfig{}}, err: `exactly one of "jwt", "apiKey" or "basic"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Derive(tt.cfg, tt.scopes)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Derive error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			desc := got.Description
			got.Description = ""
			if got.Type != tt.want.Type || got.Scheme != tt.want.Scheme || got.BearerFormat != tt.want.BearerFormat || got.In != tt.want.In || got.Name != tt.want.Name {
				t.Errorf("Derive = %+v, want %+v", got, tt.want)
			}
			for _, d := range tt.desc {
				if !strings.Contains(desc, d) {
					t.Errorf("description %q does not hold %q", desc, d)
				}
			}
		})
	}
}

func TestApply(t *testing.T) {
	jwt := auth.Config{JWT: &auth.JWTConfig{JWKS: "k.json"}}
	for _, tt := range []struct {
		name     string
		declared *openapi.SecurityScheme
		cfg      auth.Config
		err      string
	}{
		{name: "declared by the configuration alone", cfg: jwt},
		{name: "an oauth2 scheme verified as jwt", declared: &openapi.SecurityScheme{Type: "oauth2"}, cfg: jwt},
		{name: "http Bearer in capitals", declared: &openapi.SecurityScheme{Type: "http", Scheme: "Bearer"}, cfg: jwt},
		{name: "basic declared, jwt configured", declared: &openapi.SecurityScheme{Type: "http", Scheme: "basic"}, cfg: jwt,
			err: "endpoints.json: security.s: the document declares the scheme as http basic, but the verifier configured here checks http bearer or oauth2 or openIdConnect schemes"},
		{name: "apiKey in another header", declared: &openapi.SecurityScheme{Type: "apiKey", In: "header", Name: "X-Key"},
			cfg: auth.Config{APIKey: &auth.APIKeyConfig{Name: "X-Other"}}, err: `apiKey says in "", name "X-Other", but the document declares the key in "header", name "X-Key"`},
		{name: "apiKey where the document says", declared: &openapi.SecurityScheme{Type: "apiKey", In: "cookie", Name: "k"},
			cfg: auth.Config{APIKey: &auth.APIKeyConfig{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := &openapi.Document{}
			if tt.declared != nil {
				doc.Components = &openapi.Components{SecuritySchemes: map[string]*openapi.SecurityScheme{"s": tt.declared}}
			}
			err := Apply(doc, map[string]auth.Config{"s": tt.cfg}, "endpoints.json")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Apply error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := doc.Components.SecuritySchemes["s"]
			if tt.declared != nil && got != tt.declared {
				t.Errorf("the declared scheme was replaced by %+v", got)
			}
			if tt.declared == nil && (got == nil || got.Scheme != "bearer") {
				t.Errorf("securitySchemes.s = %+v, want the derived bearer scheme", got)
			}
		})
	}
}
