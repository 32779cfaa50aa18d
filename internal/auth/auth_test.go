package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/wasmendpoints/endpoints/internal/auth"
)

var bearer = auth.Scheme{Name: "bearer", Type: "http", HTTPScheme: "bearer"}

// keyPair is a private JWK to sign with and its public half.
type keyPair struct{ private, public jose.JSONWebKey }

func newKeys(t testing.TB) map[string]keyPair {
	t.Helper()
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	out := map[string]keyPair{}
	for kid, k := range map[string]any{"rsa": rsaKey, "ec": ecKey, "ed": edKey} {
		priv := jose.JSONWebKey{Key: k, KeyID: kid, Use: "sig"}
		out[kid] = keyPair{priv, priv.Public()}
	}
	return out
}

func jwkJSON(t testing.TB, k jose.JSONWebKey) []byte {
	b, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jwksJSON(t testing.TB, keys ...jose.JSONWebKey) []byte {
	b, err := json.Marshal(jose.JSONWebKeySet{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mint(t testing.TB, k jose.JSONWebKey, claims map[string]any) string {
	t.Helper()
	tok, err := auth.MintDevToken(jwkJSON(t, k), claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// signRaw signs payload as it is, which MintDevToken (a map) cannot: a
// claim named twice.
func signRaw(t testing.TB, k jose.JSONWebKey, payload string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func withBearer(token string) *http.Request {
	r := httptest.NewRequest("GET", "/api/x", nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// appWith writes files into a temporary app directory.
func appWith(t testing.TB, files map[string][]byte) string {
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestJWT(t *testing.T) {
	keys := newKeys(t)
	dir := appWith(t, map[string][]byte{"auth/jwks.json": jwksJSON(t, keys["rsa"].public, keys["ec"].public, keys["ed"].public)})
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/jwks.json", Issuer: "https://users.example", Audience: auth.Audience{"users-api"}}},
		auth.Env{AppDir: dir, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	good := func(extra map[string]any) map[string]any {
		c := map[string]any{"iss": "https://users.example", "aud": "users-api", "sub": "alice", "exp": now.Add(time.Hour).Unix(), "scope": "users:read users:write"}
		for k, x := range extra {
			if x == nil {
				delete(c, k)
			} else {
				c[k] = x
			}
		}
		return c
	}
	// An HS256 token whose secret is the RSA public key's bytes: the
	// algorithm confusion attack.
	rsaPub := keys["rsa"].public.Key.(*rsa.PublicKey)
	confused := mint(t, jose.JSONWebKey{Key: rsaPub.N.Bytes(), KeyID: "rsa", Algorithm: "HS256"}, good(nil))
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	body, _ := json.Marshal(good(nil))
	none := header + "." + base64.RawURLEncoding.EncodeToString(body) + "."
	other := newKeys(t)["ec"]

	tests := []struct {
		name, token string
		wantSub     string
		wantReason  string // "" with wantSub "": missing
	}{
		{"RS256", mint(t, keys["rsa"].private, good(nil)), "alice", ""},
		{"ES256", mint(t, keys["ec"].private, good(nil)), "alice", ""},
		{"EdDSA", mint(t, keys["ed"].private, good(nil)), "alice", ""},
		{"no token", "", "", ""},
		{"expired beyond the leeway", mint(t, keys["ec"].private, good(map[string]any{"exp": now.Add(-time.Minute).Unix()})), "", "the token expired at 2026-11-23T11:59:00Z"},
		{"expired within the leeway", mint(t, keys["ec"].private, good(map[string]any{"exp": now.Add(-10 * time.Second).Unix()})), "alice", ""},
		{"not valid yet", mint(t, keys["ec"].private, good(map[string]any{"nbf": now.Add(time.Hour).Unix()})), "", "the token is not valid before 2026-11-23T13:00:00Z"},
		{"another issuer", mint(t, keys["ec"].private, good(map[string]any{"iss": "https://evil.example"})), "", "the token's issuer (iss) is not accepted"},
		{"another audience", mint(t, keys["ec"].private, good(map[string]any{"aud": "billing"})), "", "the token is not for this API (its audience, aud, is not accepted)"},
		{"no expiry", mint(t, keys["ec"].private, good(map[string]any{"exp": nil})), "", "the token has no expiry (exp)"},
		{"alg none", none, "", "the token is not a JWT signed with RS256, ES256, EdDSA"},
		{"HS256 with the RSA public key as secret", confused, "", "the token is not a JWT signed with RS256, ES256, EdDSA"},
		{"a key the set does not hold", mint(t, jose.JSONWebKey{Key: other.private.Key, KeyID: "stranger"}, good(nil)), "", `the token is signed with key "stranger", which the key set does not hold`},
		{"a known kid with a forged signature", mint(t, jose.JSONWebKey{Key: other.private.Key, KeyID: "ec"}, good(nil)), "", "the token's signature does not verify"},
		{"not a JWT", "hello", "", "the token is not a JWT signed with RS256, ES256, EdDSA"},
		{"too long", strings.Repeat("a", 9000), "", "the token is longer than 8192 bytes"},
		{"a claim named twice", signRaw(t, keys["ec"].private, `{"sub":"alice","exp":`+fmt.Sprint(now.Add(time.Hour).Unix())+`,"sub":"admin"}`), "", "the token's claims name a member twice"},
		{"a claim named twice in another case", signRaw(t, keys["ec"].private, `{"sub":"alice","SUB":"admin","exp":`+fmt.Sprint(now.Add(time.Hour).Unix())+`,"scope":"users:read users:write","iss":"https://users.example","aud":"users-api"}`), "alice", ""},
		{"a registered claim of the wrong type", mint(t, keys["ec"].private, good(map[string]any{"jti": 7})), "", "the token's registered claims (iss, sub, aud, exp, nbf, iat, jti) have the wrong types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := v.Verify(context.Background(), withBearer(tt.token))
			var f *auth.Failure
			switch {
			case tt.wantSub != "":
				if err != nil || p.Subject != tt.wantSub {
					t.Fatalf("Verify = %v, %v; want subject %s", p, err, tt.wantSub)
				}
				if strings.Join(p.Scopes, " ") != "users:read users:write" || !json.Valid(p.Claims) {
					t.Errorf("scopes %q, claims %s: want the token's", p.Scopes, p.Claims)
				}
			case !errors.As(err, &f):
				t.Fatalf("Verify = %v, %v; want a *Failure", p, err)
			case tt.wantReason == "" && !f.Missing:
				t.Errorf("failure %q, want missing", f.Reason)
			case tt.wantReason != "" && f.Reason != tt.wantReason:
				t.Errorf("reason = %q\nwant     %q", f.Reason, tt.wantReason)
			}
		})
	}
	t.Run("a verified token is cached, and still expires", func(t *testing.T) {
		tok := mint(t, keys["ec"].private, good(nil))
		for range 2 {
			if p, err := v.Verify(context.Background(), withBearer(tok)); err != nil || p.Subject != "alice" {
				t.Fatalf("Verify = %v, %v", p, err)
			}
		}
		saved := now
		defer func() { now = saved }()
		now = now.Add(2 * time.Hour)
		var f *auth.Failure
		if _, err := v.Verify(context.Background(), withBearer(tok)); !errors.As(err, &f) || !strings.Contains(f.Reason, "expired") {
			t.Errorf("two hours later: %v, want expired", err)
		}
	})
	t.Run("challenges", func(t *testing.T) {
		if got, want := v.Challenge(nil), `Bearer realm="bearer"`; got != want {
			t.Errorf("Challenge(nil) = %s, want %s", got, want)
		}
		if got, want := v.Challenge(&auth.Failure{Reason: `bad "x"`}), `Bearer realm="bearer", error="invalid_token", error_description="bad \"x\""`; got != want {
			t.Errorf("Challenge = %s, want %s", got, want)
		}
		if got, want := auth.InsufficientScopeChallenge(bearer, []string{"a", "b"}), `Bearer realm="bearer", error="insufficient_scope", scope="a b"`; got != want {
			t.Errorf("InsufficientScopeChallenge = %s, want %s", got, want)
		}
	})
}

func TestJWTSecretFromTheEnvironment(t *testing.T) {
	secret := strings.Repeat("s", 32)
	env := auth.Env{Getenv: func(k string) string {
		if k == "JWT_SECRET" {
			return secret
		}
		return ""
	}}
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{Secret: &auth.Secret{Env: "JWT_SECRET"}}}, env)
	if err != nil {
		t.Fatal(err)
	}
	tok := mint(t, jose.JSONWebKey{Key: []byte(secret), Algorithm: "HS256"}, map[string]any{"sub": "svc", "exp": time.Now().Add(time.Minute).Unix(), "scp": []string{"a"}})
	if p, err := v.Verify(context.Background(), withBearer(tok)); err != nil || p.Subject != "svc" || len(p.Scopes) != 1 {
		t.Errorf("Verify = %v, %v; want svc with scope a (from scp)", p, err)
	}
	if _, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{Secret: &auth.Secret{Env: "SHORT"}}}, auth.Env{Getenv: func(string) string { return "short" }}); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Errorf("a short secret: error = %v", err)
	}
}

// TestJWTSecretFromAFile: a jwt secret's file (as Docker and Kubernetes
// mount secrets, with the newline `echo` leaves) verifies the tokens of
// its key; its environment variable, when set, comes first; a file that
// does not exist is left to the deployment (an *auth.UnsetError naming
// the member and the file); a short or unreadable one is an error naming
// both.
func TestJWTSecretFromAFile(t *testing.T) {
	secret := strings.Repeat("f", 40)
	fromEnv := strings.Repeat("e", 32)
	app := t.TempDir()
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mounted := write("jwt", secret+"\n")
	crlf := write("jwt-crlf", secret+"\r\n")
	short := write("short", "short\n")
	if err := os.MkdirAll(filepath.Join(app, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "auth", "jwt-secret"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "absent")
	tests := []struct {
		name   string
		secret auth.Secret
		env    string // JWT_SECRET's value
		key    string // the key tokens verify with; "" for an error
		want   string // the error
		unset  bool
	}{
		{name: "a mounted file", secret: auth.Secret{File: mounted}, key: secret},
		{name: "a file with CRLF", secret: auth.Secret{File: crlf}, key: secret},
		{name: "a file of the app", secret: auth.Secret{File: "auth/jwt-secret"}, key: secret},
		{name: "the variable unset, the file", secret: auth.Secret{Env: "JWT_SECRET", File: mounted}, key: secret},
		{name: "the variable first", secret: auth.Secret{Env: "JWT_SECRET", File: mounted}, env: fromEnv, key: fromEnv},
		{name: "a file that does not exist", secret: auth.Secret{File: missing}, unset: true,
			want: "security.bearer.jwt.secret: the file " + missing + " does not exist: mount the HS256 key there, at least 32 bytes"},
		{name: "neither", secret: auth.Secret{Env: "JWT_SECRET", File: missing}, unset: true,
			want: "security.bearer.jwt.secret: the environment variable JWT_SECRET is not set and the file " + missing + " does not exist: give the HS256 key in either, at least 32 bytes"},
		{name: "a short file", secret: auth.Secret{File: short},
			want: "security.bearer.jwt.secret: the file " + short + " holds 5 bytes; an HS256 key needs at least 32"},
		{name: "a directory", secret: auth.Secret{File: dir},
			want: "security.bearer.jwt.secret: " + dir + ": not a regular file (a directory)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := auth.Env{AppDir: app, Getenv: func(k string) string {
				if k == "JWT_SECRET" {
					return tt.env
				}
				return ""
			}}
			v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{Secret: &tt.secret}}, env)
			if tt.key == "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("New = %v, want %q", err, tt.want)
				}
				u, unset := errors.AsType[*auth.UnsetError](err)
				if unset != tt.unset {
					t.Fatalf("New's error is an UnsetError: %v, want %v", unset, tt.unset)
				}
				if unset && (u.Setting != "security.bearer.jwt.secret" || u.File != tt.secret.File || !strings.Contains(u.Source(), "the file "+tt.secret.File)) {
					t.Errorf("UnsetError names %s (%s), want security.bearer.jwt.secret and the file %s", u.Setting, u.Source(), tt.secret.File)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			claims := map[string]any{"sub": "svc", "exp": time.Now().Add(time.Minute).Unix()}
			if p, err := v.Verify(context.Background(), withBearer(mint(t, jose.JSONWebKey{Key: []byte(tt.key), Algorithm: "HS256"}, claims))); err != nil || p.Subject != "svc" {
				t.Errorf("a token of the key: Verify = %v, %v; want svc", p, err)
			}
			// The file's bytes as they are, newline and all; or, where
			// the variable wins, the file's key.
			other := secret + "\n"
			if tt.key == fromEnv {
				other = secret
			}
			if _, err := v.Verify(context.Background(), withBearer(mint(t, jose.JSONWebKey{Key: []byte(other), Algorithm: "HS256"}, claims))); err == nil {
				t.Errorf("a token of another key (%q) verifies", other)
			}
		})
	}
}

func TestJWKSURL(t *testing.T) {
	keys := newKeys(t)
	var served atomic.Pointer[[]byte]
	first := jwksJSON(t, keys["ec"].public)
	served.Store(&first)
	var fetches atomic.Int32
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write(*served.Load())
	}))
	defer srv.Close()
	now := time.Now()
	clock := func() time.Time { return now }
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: srv.URL, Refresh: auth.Duration(time.Hour)}}, auth.Env{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	<-auth.Loaded(v)
	claims := map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()}
	if p, err := v.Verify(context.Background(), withBearer(mint(t, keys["ec"].private, claims))); err != nil || p.Subject != "alice" {
		t.Fatalf("Verify = %v, %v", p, err)
	}
	// The provider rotates: a new kid is fetched once it is seen, but at
	// most every 30 s.
	rotated := jwksJSON(t, keys["ec"].public, keys["ed"].public)
	served.Store(&rotated)
	now = now.Add(31 * time.Second)
	if p, err := v.Verify(context.Background(), withBearer(mint(t, keys["ed"].private, claims))); err != nil || p.Subject != "alice" {
		t.Fatalf("after rotation: Verify = %v, %v", p, err)
	}
	before := fetches.Load()
	for range 20 {
		v.Verify(context.Background(), withBearer(mint(t, jose.JSONWebKey{Key: keys["rsa"].private.Key, KeyID: "random"}, claims)))
	}
	if got := fetches.Load() - before; got != 0 {
		t.Errorf("20 tokens with an unknown kid fetched the set %d times within 30 s, want 0", got)
	}
	// Down: the last good keys keep serving.
	down.Store(true)
	now = now.Add(time.Minute)
	if p, err := v.Verify(context.Background(), withBearer(mint(t, keys["ed"].private, claims))); err != nil || p.Subject != "alice" {
		t.Errorf("provider down: Verify = %v, %v; want the cached keys to serve", p, err)
	}
}

func TestJWKSURLNeverReached(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }))
	defer srv.Close()
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: srv.URL}}, auth.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	keys := newKeys(t)
	_, err = v.Verify(context.Background(), withBearer(mint(t, keys["ec"].private, map[string]any{"sub": "a", "exp": time.Now().Add(time.Hour).Unix()})))
	if !errors.Is(err, auth.ErrUnavailable) {
		t.Errorf("Verify = %v, want an error wrapping ErrUnavailable", err)
	}
}

func TestConfigErrors(t *testing.T) {
	keys := newKeys(t)
	dir := appWith(t, map[string][]byte{"auth/private.json": jwksJSON(t, keys["ec"].private), "auth/jwks.json": jwksJSON(t, keys["ec"].public)})
	apiKey := auth.Scheme{Name: "partners", Type: "apiKey", In: "header", ParamName: "X-API-Key"}
	basic := auth.Scheme{Name: "admin", Type: "http", HTTPScheme: "basic"}
	tests := []struct {
		name   string
		scheme auth.Scheme
		cfg    auth.Config
		want   string
	}{
		{"a bearer scheme configured as basic", bearer, auth.Config{Basic: &auth.BasicConfig{}}, `security.bearer: the scheme is http bearer, which takes {"jwt": {...}}; got basic`},
		{"no key source", bearer, auth.Config{JWT: &auth.JWTConfig{}}, `security.bearer.jwt: give exactly one of "jwks"`},
		{"a JWKS URL over plain http", bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: "http://idp.example/jwks.json"}}, `security.bearer.jwt.jwksUrl: "http://idp.example/jwks.json": want an https URL`},
		{"a JWKS URL that is no URL", bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: "idp.example/jwks.json"}}, `want an https URL`},
		{"a key file outside the app", bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "../jwks.json"}}, `security.bearer.jwt.jwks: "../jwks.json": want a path inside the app`},
		{"a missing key file", bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/nope.json"}}, `security.bearer.jwt.jwks: auth/nope.json does not exist in the app`},
		{"private keys in the set", bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/private.json"}}, `keys[0] is a private key: publish the public half only`},
		{"an unknown algorithm", bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/jwks.json", Algorithms: []string{"none"}}}, `security.bearer.jwt.algorithms[0]: "none"`},
		{"a bad key hash", apiKey, auth.Config{APIKey: &auth.APIKeyConfig{Keys: []auth.APIKey{{SHA256: "abc"}}}}, `security.partners.apiKey.keys[0].sha256: want 64 hexadecimal characters`},
		{"no keys at all", apiKey, auth.Config{APIKey: &auth.APIKeyConfig{}}, `security.partners.apiKey: list "keys" or set "store": true`},
		{"a bad bcrypt hash", basic, auth.Config{Basic: &auth.BasicConfig{Users: map[string]auth.BasicUser{"alice": {Bcrypt: "plain"}}}}, `security.admin.basic.users.alice.bcrypt: not a bcrypt hash`},
		{"mutual TLS", auth.Scheme{Name: "mtls", Type: "mutualTLS"}, auth.Config{}, `no built-in verifier for a "mutualTLS" scheme`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := auth.New(tt.scheme, tt.cfg, auth.Env{AppDir: dir})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New error = %v\nwant it to contain %s", err, tt.want)
			}
		})
	}
}

func TestAPIKey(t *testing.T) {
	sum := func(k string) string { s := sha256.Sum256([]byte(k)); return hex.EncodeToString(s[:]) }
	store := map[string][]byte{sum("stored-key"): []byte(`{"subject":"partner","scopes":["orders:write"]}`), sum("broken"): []byte(`[]`)}
	storeDown := false
	env := auth.Env{Logger: slog.New(slog.DiscardHandler), LookupKey: func(ctx context.Context, h string) ([]byte, bool, error) {
		if storeDown {
			return nil, false, errors.New("connection refused")
		}
		v, ok := store[h]
		return v, ok, nil
	}}
	for _, in := range []string{"header", "query", "cookie"} {
		t.Run(in, func(t *testing.T) {
			v, err := auth.New(auth.Scheme{Name: "key", Type: "apiKey", In: in, ParamName: "api_key"},
				auth.Config{APIKey: &auth.APIKeyConfig{Keys: []auth.APIKey{{SHA256: sum("s3cret"), Subject: "ci", Scopes: []string{"read"}}}, Store: true}}, env)
			if err != nil {
				t.Fatal(err)
			}
			req := func(key string) *http.Request {
				r := httptest.NewRequest("GET", "/api/x", nil)
				switch {
				case key == "":
				case in == "header":
					r.Header.Set("api_key", key)
				case in == "query":
					r = httptest.NewRequest("GET", "/api/x?api_key="+key, nil)
				default:
					r.AddCookie(&http.Cookie{Name: "api_key", Value: key})
				}
				return r
			}
			if p, err := v.Verify(context.Background(), req("s3cret")); err != nil || p.Subject != "ci" || p.Scopes[0] != "read" {
				t.Errorf("a configured key: %v, %v", p, err)
			}
			if p, err := v.Verify(context.Background(), req("stored-key")); err != nil || p.Subject != "partner" {
				t.Errorf("a stored key: %v, %v", p, err)
			}
			var f *auth.Failure
			if _, err := v.Verify(context.Background(), req("")); !errors.As(err, &f) || !f.Missing {
				t.Errorf("no key: %v, want missing", err)
			}
			if _, err := v.Verify(context.Background(), req("guess")); !errors.As(err, &f) || f.Reason != "the API key is not known" {
				t.Errorf("an unknown key: %v", err)
			}
			if _, err := v.Verify(context.Background(), req("broken")); !errors.As(err, &f) || f.Reason != "the API key's entry is malformed" {
				t.Errorf("a malformed entry: %v", err)
			}
			storeDown = true
			defer func() { storeDown = false }()
			if _, err := v.Verify(context.Background(), req("guess")); !errors.Is(err, auth.ErrUnavailable) {
				t.Errorf("store down: %v, want ErrUnavailable", err)
			}
			if p, err := v.Verify(context.Background(), req("s3cret")); err != nil || p.Subject != "ci" {
				t.Errorf("store down, a configured key: %v, %v; want it still accepted", p, err)
			}
		})
	}
}

func TestBasic(t *testing.T) {
	hash, _ := bcrypt.GenerateFromPassword([]byte("correct horse"), bcrypt.MinCost)
	v, err := auth.New(auth.Scheme{Name: "admin", Type: "http", HTTPScheme: "basic"},
		auth.Config{Basic: &auth.BasicConfig{Users: map[string]auth.BasicUser{"alice": {Bcrypt: string(hash), Scopes: []string{"admin"}}}}}, auth.Env{})
	if err != nil {
		t.Fatal(err)
	}
	req := func(user, pass string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		if user != "" {
			r.SetBasicAuth(user, pass)
		}
		return r
	}
	for range 2 { // the second time from the cache
		if p, err := v.Verify(context.Background(), req("alice", "correct horse")); err != nil || p.Subject != "alice" || p.Scopes[0] != "admin" {
			t.Errorf("the right password: %v, %v", p, err)
		}
	}
	var f *auth.Failure
	for _, c := range [][2]string{{"alice", "wrong"}, {"mallory", "correct horse"}} {
		if _, err := v.Verify(context.Background(), req(c[0], c[1])); !errors.As(err, &f) || f.Reason != "the user name or password is wrong" {
			t.Errorf("%s/%s: %v", c[0], c[1], err)
		}
	}
	if _, err := v.Verify(context.Background(), req("", "")); !errors.As(err, &f) || !f.Missing {
		t.Errorf("none: %v, want missing", err)
	}
	if got, want := v.Challenge(nil), `Basic realm="admin", charset="UTF-8"`; got != want {
		t.Errorf("Challenge = %s, want %s", got, want)
	}
}

func BenchmarkVerifyJWT(b *testing.B) {
	keys := newKeys(b)
	secret := jose.JSONWebKey{Key: []byte(strings.Repeat("k", 32)), KeyID: "hs", Algorithm: "HS256", Use: "sig"}
	dir := appWith(b, map[string][]byte{"jwks.json": jwksJSON(b, keys["rsa"].public, keys["ec"].public, keys["ed"].public, secret)})
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "jwks.json"}}, auth.Env{AppDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	claims := map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix(), "scope": "users:write"}
	for _, c := range []struct {
		name string
		key  jose.JSONWebKey
	}{{"HS256", secret}, {"RS256", keys["rsa"].private}, {"ES256", keys["ec"].private}, {"EdDSA", keys["ed"].private}} {
		r := withBearer(mint(b, c.key, claims))
		// A client sends its token with every request: after the first,
		// it is found in the cache.
		b.Run(c.name+"/cached", func(b *testing.B) {
			for b.Loop() {
				if _, err := v.Verify(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The first use of each token checks its signature.
		b.Run(c.name+"/first", func(b *testing.B) {
			reqs := make([]*http.Request, b.N)
			for i := range reqs {
				cl := map[string]any{"sub": "alice", "exp": claims["exp"], "jti": fmt.Sprint(i)}
				reqs[i] = withBearer(mint(b, c.key, cl))
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := v.Verify(context.Background(), reqs[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestJWKSURLTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: srv.URL, Timeout: auth.Duration(100 * time.Millisecond)}}, auth.Env{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	keys := newKeys(t)
	start := time.Now()
	_, err = v.Verify(context.Background(), withBearer(mint(t, keys["ec"].private, map[string]any{"sub": "a", "exp": time.Now().Add(time.Hour).Unix()})))
	if !errors.Is(err, auth.ErrUnavailable) {
		t.Errorf("Verify = %v, want ErrUnavailable", err)
	}
	// The background fetch and this one each wait for the timeout at most.
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Verify took %s against a provider that never answers; the timeout is 100ms", took)
	}
}

// TestJWTSecretUnsetIsLeftToTheDeployment: a jwt secret whose environment
// variable is not set is an *auth.UnsetError naming the member and the
// variable (a build in CI lacks it on purpose, and warns); one that is
// set but too short is wrong, and another error.
func TestJWTSecretUnsetIsLeftToTheDeployment(t *testing.T) {
	tests := []struct {
		name, value string
		unset       bool
		want        string
	}{
		{"unset", "", true, "security.bearer.jwt.secret: the environment variable JWT_SECRET is not set: set it to the HS256 key, at least 32 bytes"},
		{"too short", "short", false, "security.bearer.jwt.secret: the environment variable JWT_SECRET holds 5 bytes; an HS256 key needs at least 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := auth.Env{Getenv: func(string) string { return tt.value }}
			_, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{Secret: &auth.Secret{Env: "JWT_SECRET"}}}, env)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("New = %v, want %q", err, tt.want)
			}
			u, unset := errors.AsType[*auth.UnsetError](err)
			if unset != tt.unset {
				t.Fatalf("New's error is an UnsetError: %v, want %v", unset, tt.unset)
			}
			if unset && (u.Setting != "security.bearer.jwt.secret" || u.Env != "JWT_SECRET") {
				t.Errorf("UnsetError names %s (%s), want security.bearer.jwt.secret (JWT_SECRET)", u.Setting, u.Env)
			}
		})
	}
}

// TestMayBeUnavailable: the verifiers that depend on what can be down or
// full (a JWKS URL, the store of API keys, the bounded password checks) may
// answer ErrUnavailable, so the document lists the 503 of what they guard;
// those whose keys are all in the configuration never do.
func TestMayBeUnavailable(t *testing.T) {
	hash, _ := bcrypt.GenerateFromPassword([]byte("correct horse"), bcrypt.MinCost)
	key := auth.Scheme{Name: "key", Type: "apiKey", In: "header", ParamName: "X-Api-Key"}
	keys := []auth.APIKey{{SHA256: strings.Repeat("ab", 32), Subject: "ci"}}
	lookup := func(context.Context, string) ([]byte, bool, error) { return nil, false, nil }
	secret := func(string) string { return strings.Repeat("s", 32) }
	tests := []struct {
		name   string
		scheme auth.Scheme
		cfg    auth.Config
		want   bool
	}{
		{"a JWT secret", bearer, auth.Config{JWT: &auth.JWTConfig{Secret: &auth.Secret{Env: "JWT_SECRET"}}}, false},
		{"a JWKS URL", bearer, auth.Config{JWT: &auth.JWTConfig{JWKSURL: "http://127.0.0.1:1/jwks.json"}}, true},
		{"API keys of the configuration", key, auth.Config{APIKey: &auth.APIKeyConfig{Keys: keys}}, false},
		{"API keys of the store", key, auth.Config{APIKey: &auth.APIKeyConfig{Keys: keys, Store: true}}, true},
		{"basic credentials", auth.Scheme{Name: "admin", Type: "http", HTTPScheme: "basic"},
			auth.Config{Basic: &auth.BasicConfig{Users: map[string]auth.BasicUser{"alice": {Bcrypt: string(hash)}}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := auth.New(tt.scheme, tt.cfg, auth.Env{Getenv: secret, LookupKey: lookup, Offline: true})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if got := auth.MayBeUnavailable(v); got != tt.want {
				t.Errorf("MayBeUnavailable = %v, want %v", got, tt.want)
			}
		})
	}
}
