package host_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestConfiguredSchemesDeclareThemselves: an app without a runtime
// declaration (any language) declares a security scheme by configuring its
// verifier in endpoints.json; the document gets the scheme, with the
// scopes its operations require, and the host enforces it. A document
// that declares the scheme otherwise than the verifier checks fails the
// load.
func TestConfiguredSchemesDeclareThemselves(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv := jose.JSONWebKey{Key: key, KeyID: "k1", Use: "sig"}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{priv.Public()}})
	privJSON, _ := json.Marshal(priv)
	mint := func(scope string) string {
		tok, err := auth.MintDevToken(privJSON, map[string]any{"sub": "alice", "iss": "https://notes.example", "exp": time.Now().Add(time.Hour).Unix(), "scope": scope})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	answer, write := watWrite(2048, `{"ok":true}`)
	endpoint := watModule{contract: `{"responses":{"200":{"schema":{"type":"object"}}},"security":[{"bearer":["notes:read"]},{"partners":[]}]}`,
		handle: write + " (i32.const 0)", extra: answer}
	config := `{"security":{"bearer":{"jwt":{"jwks":"auth/jwks.json","issuer":"https://notes.example"}},
		"partners":{"apiKey":{"name":"X-Partner-Key","keys":[{"sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","subject":"ci"}]}}}}`
	newNotes := func(fragment string) *app {
		a := newApp(t).wat("server/api/notes.get.wasm", endpoint).file("auth/jwks.json", jwks).file("endpoints.json", []byte(config))
		if fragment != "" {
			a = a.watSource("server/endpoints/runtime.wasm", runtimeWAT(fragment, ""))
		}
		return a
	}

	h, _ := newNotes("").host(host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
	var doc openapi.Document
	if err := json.Unmarshal(h.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	bearer, partners := doc.Components.SecuritySchemes["bearer"], doc.Components.SecuritySchemes["partners"]
	if bearer == nil || bearer.Type != "http" || bearer.Scheme != "bearer" || bearer.BearerFormat != "JWT" ||
		!strings.Contains(bearer.Description, "https://notes.example") || !strings.Contains(bearer.Description, "notes:read") {
		t.Errorf("securitySchemes.bearer = %+v, want an http bearer JWT scheme naming its issuer and the scope notes:read", bearer)
	}
	if partners == nil || partners.Type != "apiKey" || partners.In != "header" || partners.Name != "X-Partner-Key" {
		t.Errorf("securitySchemes.partners = %+v, want an apiKey scheme in the header X-Partner-Key", partners)
	}
	for _, tt := range []struct {
		name   string
		header []string
		status int
	}{
		{"no credential", nil, 401},
		{"a token with the scope", []string{"Authorization", "Bearer " + mint("notes:read")}, 200},
		{"a token without it", []string{"Authorization", "Bearer " + mint("other")}, 403},
		{"the API key in the configured header", []string{"X-Partner-Key", "test"}, 200},
		{"the API key in the default header", []string{"X-API-Key", "test"}, 401},
	} {
		req := httptest.NewRequest("GET", "/api/notes", nil)
		if tt.header != nil {
			req.Header.Set(tt.header[0], tt.header[1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.status {
			t.Errorf("%s: status %d, want %d: %s", tt.name, rec.Code, tt.status, rec.Body)
		}
	}

	// A runtime declaration that describes the scheme further wins.
	h, _ = newNotes(`{"openApi":{"document":{"components":{"securitySchemes":{"bearer":{"type":"http","scheme":"bearer","description":"Tokens from the notes IdP."}}}}}}`).
		host(host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
	doc = openapi.Document{}
	if err := json.Unmarshal(h.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Components.SecuritySchemes["bearer"]; got == nil || got.Description != "Tokens from the notes IdP." {
		t.Errorf("securitySchemes.bearer = %+v, want the runtime declaration's", got)
	}

	// One that declares it as another kind of scheme fails the load.
	for _, tt := range []struct{ fragment, want string }{
		{`{"openApi":{"document":{"components":{"securitySchemes":{"bearer":{"type":"apiKey","in":"header","name":"X-Token"}}}}}}`,
			`security.bearer: the document declares the scheme as apiKey, but the verifier configured here checks http bearer or oauth2 or openIdConnect schemes`},
		{`{"openApi":{"document":{"components":{"securitySchemes":{"partners":{"type":"apiKey","in":"query","name":"key"}}}}}}`,
			`security.partners: apiKey says in "", name "X-Partner-Key", but the document declares the key in "query", name "key"`},
	} {
		a := newNotes(tt.fragment)
		_, err := host.New(t.Context(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t)})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("host.New error = %v\nwant it to contain %s", err, tt.want)
		}
	}
}
