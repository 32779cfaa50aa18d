package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// deployedApp builds an app whose route GET /api/orders requires the
// bearer scheme, verified as endpoints.json's security (without devKey)
// says, and returns its directory.
func deployedApp(t *testing.T, security string, files map[string]string) string {
	t.Helper()
	all := map[string]string{
		"endpoints.json":            `{"security": ` + security + `}`,
		"server/api/orders.get.wat": endpointWAT(`{"security":[{"bearer":[]}]}`),
	}
	for name, data := range files {
		all[name] = data
	}
	app := writeApp(t, all)
	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build = %d:\n%s\n%s", code, out, errOut)
	}
	return app
}

// serveApp starts the app as `endpoints serve` does (production; no
// database to migrate) and returns the host.
func serveApp(t *testing.T, app string) *host.Host {
	t.Helper()
	h, err := host.New(t.Context(), app, host.Options{Mode: host.Production, Logger: slog.New(slog.DiscardHandler), SkipMigrations: true})
	if err != nil {
		t.Fatalf("serve's load of the app: %v", err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

// authorized reports whether h lets a GET /api/orders with the bearer
// token in (the route's answer), or refuses it with 401.
func authorized(t *testing.T, h http.Handler, token string) bool {
	t.Helper()
	req := httptest.NewRequest("GET", "/api/orders", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	switch w.Code {
	case http.StatusUnauthorized:
		return false
	case http.StatusOK:
		return true
	}
	t.Fatalf("GET /api/orders = %d %s, want 200 or 401", w.Code, w.Body)
	return false
}

// mintWith runs `endpoints token` with args and returns the token.
func mintWith(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"token", "--sub", "alice"}, args...)...)
	if code != exitOK {
		t.Fatalf("token %q = %d: %s", args, code, errOut)
	}
	return strings.TrimSpace(out)
}

// readKeySet reads a JSON Web Key Set file.
func readKeySet(t *testing.T, path string) jose.JSONWebKeySet {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return set
}

// TestKeygenWritesADeploymentPair: `endpoints keygen --key FILE --jwks
// FILE` writes a pair outside any app, for each algorithm: the private
// key readable by its owner alone, the key set holding its public half
// only, under one kid. A token `endpoints token --key` mints with it
// verifies on a host whose key set is that file (mounted into the app),
// with the issuer and audience of the app's configuration; a token of the
// app's development key does not.
func TestKeygenWritesADeploymentPair(t *testing.T) {
	t.Parallel()
	security := `{"bearer": {"jwt": {"jwks": "auth/deployment-jwks.json", "issuer": "https://users.example", "audience": "users-api"}}}`
	for _, alg := range auth.KeyAlgorithms {
		t.Run(alg, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			keyFile, jwksFile := filepath.Join(dir, "private", "users.jwk"), filepath.Join(dir, "secrets", "users-jwks.json")
			code, out, errOut := runCLI("keygen", "--key", keyFile, "--jwks", jwksFile, "--alg", alg)
			if code != exitOK || !strings.Contains(out, "endpoints token --key "+keyFile) {
				t.Fatalf("keygen = %d\n%s\n%s", code, out, errOut)
			}
			if info, err := os.Stat(keyFile); err != nil || info.Mode().Perm() != 0o600 {
				t.Fatalf("the private key: %v, want mode 0600", err)
			}
			var private jose.JSONWebKey
			if b, err := os.ReadFile(keyFile); err != nil || json.Unmarshal(b, &private) != nil || private.IsPublic() || private.Algorithm != alg || private.KeyID == "" {
				t.Fatalf("the private key file holds %+v (%v): want a private %s key with a kid", private, err, alg)
			}
			set := readKeySet(t, jwksFile)
			if len(set.Keys) != 1 || !set.Keys[0].IsPublic() || set.Keys[0].KeyID != private.KeyID || set.Keys[0].Algorithm != alg {
				t.Fatalf("the key set holds %+v; want the public half of the private key, kid %s", set.Keys, private.KeyID)
			}

			jwks, _ := os.ReadFile(jwksFile)
			devKey, devJWKS := newDevPair(t)
			app := deployedApp(t, security, map[string]string{"auth/deployment-jwks.json": string(jwks), "auth/jwks.json": devJWKS})
			h := serveApp(t, app)
			if !authorized(t, h, mintWith(t, "--key", keyFile, app)) {
				t.Error("a token signed with the private key keygen wrote (issuer and audience the app's) was refused by the host verifying with its key set")
			}
			if authorized(t, h, mintWith(t, "--key", keyFile, "--iss", "https://users.example", "--aud", "users-api")) != true {
				t.Error("a token of the key signed without an app, --iss and --aud given, was refused")
			}
			if authorized(t, h, mintWith(t, "--key", keyFile)) {
				t.Error("a token without the issuer and audience the scheme requires was accepted")
			}
			devFile := filepath.Join(dir, "dev.jwk")
			if err := os.WriteFile(devFile, []byte(devKey), 0o600); err != nil {
				t.Fatal(err)
			}
			if authorized(t, h, mintWith(t, "--key", devFile, app)) {
				t.Error("a token of another key was accepted")
			}
			if authorized(t, h, "") {
				t.Error("no token was accepted")
			}
		})
	}
}

// newDevPair is a fresh development key pair: the private JWK and the key
// set of its public half.
func newDevPair(t *testing.T) (private, jwks string) {
	t.Helper()
	priv, pub, _, err := auth.NewKey("ES256", "dev-1")
	if err != nil {
		t.Fatal(err)
	}
	set, err := auth.KeySet(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(priv), string(set)
}

// TestKeygenAddRotatesKeys: --add adds a new key to the deployment's key
// set and keeps the old ones as written, so that a host verifying with
// the set accepts tokens of both keys: the old one's until the operator
// removes it, the new one's from then on.
func TestKeygenAddRotatesKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	oldKey, newKey, jwksFile := filepath.Join(dir, "users-1.jwk"), filepath.Join(dir, "users-2.jwk"), filepath.Join(dir, "users-jwks.json")
	if code, _, errOut := runCLI("keygen", "--key", oldKey, "--jwks", jwksFile, "--kid", "users-1"); code != exitOK {
		t.Fatalf("keygen = %d: %s", code, errOut)
	}
	before, _ := os.ReadFile(jwksFile)
	code, out, errOut := runCLI("keygen", "--key", newKey, "--jwks", jwksFile, "--add", "--alg", "EdDSA", "--kid", "users-2")
	if code != exitOK || !strings.Contains(out, "added its public key to "+jwksFile) {
		t.Fatalf("keygen --add = %d\n%s\n%s", code, out, errOut)
	}
	set := readKeySet(t, jwksFile)
	if len(set.Keys) != 2 || set.Keys[0].KeyID != "users-1" || set.Keys[1].KeyID != "users-2" || !set.Keys[1].IsPublic() {
		t.Fatalf("the key set after --add holds %+v; want users-1, then users-2's public half", set.Keys)
	}
	jwks, _ := os.ReadFile(jwksFile)
	var oldRaw, newRaw struct{ Keys []json.RawMessage }
	if json.Unmarshal(before, &oldRaw) != nil || json.Unmarshal(jwks, &newRaw) != nil {
		t.Fatal("the key sets are not JSON")
	}
	var a, b bytes.Buffer
	if json.Compact(&a, oldRaw.Keys[0]) != nil || json.Compact(&b, newRaw.Keys[0]) != nil || a.String() != b.String() {
		t.Errorf("--add rewrote the old key:\n%s\nis now\n%s", a.String(), b.String())
	}
	app := deployedApp(t, `{"bearer": {"jwt": {"jwks": "auth/deployment-jwks.json"}}}`, map[string]string{"auth/deployment-jwks.json": string(jwks)})
	h := serveApp(t, app)
	for _, k := range []string{oldKey, newKey} {
		if !authorized(t, h, mintWith(t, "--key", k, app)) {
			t.Errorf("a token of %s was refused by the host verifying with the rotated key set", filepath.Base(k))
		}
	}
}

// TestKeygenRefuses: what keygen refuses, leaving every file as it was:
// a private key or a key set it would replace without --force (or --add),
// a key set --add cannot add to, a kid the set has, one file for both,
// an algorithm it makes no key pair for.
func TestKeygenRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, jwks := filepath.Join(dir, "users.jwk"), filepath.Join(dir, "users-jwks.json")
	if code, _, errOut := runCLI("keygen", "--key", key, "--jwks", jwks, "--kid", "users-1"); code != exitOK {
		t.Fatalf("keygen = %d: %s", code, errOut)
	}
	privateSet := filepath.Join(dir, "private-jwks.json")
	privateKey, _ := os.ReadFile(key)
	if err := os.WriteFile(privateSet, []byte(`{"keys": [`+string(privateKey)+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.jwk")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a private key that exists", []string{"--key", key, "--jwks", filepath.Join(dir, "other.json")}, exitError, key + " exists: its key could sign no more tokens; pass --force to replace it"},
		{"a key set that exists", []string{"--key", fresh, "--jwks", jwks}, exitError, jwks + " exists: tokens signed with its keys would stop verifying; pass --add to add the new key to it, or --force to replace it"},
		{"--add to no key set", []string{"--key", fresh, "--jwks", filepath.Join(dir, "absent.json"), "--add"}, exitError, "--add: " + filepath.Join(dir, "absent.json") + " does not exist: leave out --add to write a new key set"},
		{"--add of a kid the set has", []string{"--key", fresh, "--jwks", jwks, "--add", "--kid", "users-1"}, exitError, `the key set already has a key of kid "users-1"`},
		{"--add to a set holding a private key", []string{"--key", fresh, "--jwks", privateSet, "--add"}, exitError, "keys[0] is a private key: a key set holds public keys only"},
		{"one file for both", []string{"--key", fresh, "--jwks", fresh}, exitError, "--key and --jwks name one file"},
		{"HS256", []string{"--key", fresh, "--jwks", filepath.Join(dir, "other.json"), "--alg", "HS256"}, exitUsage, `--alg HS256: want one of ES256, EdDSA, RS256 (an HS256 key is a secret of at least 32 random bytes, which needs no key pair: "secret": {"file": ...})`},
		{"no app and no files", nil, exitUsage, "want an APP directory to write its development key pair into, or --key FILE and --jwks FILE"},
		{"no key set file", []string{"--key", fresh}, exitUsage, "or --key FILE and --jwks FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keyBefore, _ := os.ReadFile(key)
			jwksBefore, _ := os.ReadFile(jwks)
			code, _, errOut := runCLI(append([]string{"keygen"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("keygen %q = %d\n%s\nwant %d and %q", tt.args, code, errOut, tt.code, tt.want)
			}
			if _, err := os.Stat(fresh); err == nil {
				t.Errorf("a refused keygen wrote %s", fresh)
			}
			keyAfter, _ := os.ReadFile(key)
			jwksAfter, _ := os.ReadFile(jwks)
			if string(keyAfter) != string(keyBefore) || string(jwksAfter) != string(jwksBefore) {
				t.Error("a refused keygen changed the pair")
			}
		})
	}

	// --force replaces the private key, readable by its owner alone even
	// where the old file was not.
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("keygen", "--key", key, "--jwks", jwks, "--force"); code != exitOK {
		t.Fatalf("keygen --force = %d: %s", code, errOut)
	}
	if info, err := os.Stat(key); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the private key keygen --force wrote: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	if again, _ := os.ReadFile(key); string(again) == string(privateKey) {
		t.Error("keygen --force kept the old private key")
	}
}

// TestTokenWarnsOfAKeyTheSetLacks: a token signed with --key for an app
// whose key set (as configured there) lacks the key's public half is
// still minted, with a warning that a host verifying with that set
// refuses it.
func TestTokenWarnsOfAKeyTheSetLacks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, jwks := filepath.Join(dir, "users.jwk"), filepath.Join(dir, "users-jwks.json")
	if code, _, errOut := runCLI("keygen", "--key", key, "--jwks", jwks); code != exitOK {
		t.Fatalf("keygen = %d: %s", code, errOut)
	}
	_, devJWKS := newDevPair(t)
	set, _ := os.ReadFile(jwks)
	app := writeApp(t, map[string]string{
		"endpoints.json":            `{"security": {"bearer": {"jwt": {"jwks": "auth/jwks.json"}}}}`,
		"auth/jwks.json":            devJWKS,
		"auth/deployment-jwks.json": string(set),
	})
	code, out, errOut := runCLI("token", app, "--key", key, "--sub", "alice")
	if code != exitOK || out == "" || !strings.Contains(errOut, "warning: "+filepath.Join(app, "auth", "jwks.json")+" (security.bearer.jwt.jwks) holds no public key of "+key) {
		t.Errorf("token --key for a set without its key = %d\n%s\n%s\nwant a token and a warning", code, out, errOut)
	}
	code, out, errOut = runCLI("token", app, "--key", key, "--sub", "alice", "--set", `security={"bearer": {"jwt": {"jwks": "auth/deployment-jwks.json"}}}`)
	if code != exitOK || out == "" || errOut != "" {
		t.Errorf("token --key for the deployment's set = %d\n%s\n%s\nwant a token and no warning", code, out, errOut)
	}
}

// TestJWTSecretFile: a jwt secret mounted as a file (a Docker or
// Kubernetes secret, with the newline `echo` leaves) authenticates HS256
// tokens of its key on a host serving the app, and no others.
func TestJWTSecretFile(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("k", 48)
	file := filepath.Join(t.TempDir(), "users-jwt")
	if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	security, _ := json.Marshal(map[string]any{"bearer": map[string]any{"jwt": map[string]any{"secret": map[string]string{"file": file}}}})
	h := serveApp(t, deployedApp(t, string(security), nil))
	hs256 := func(key string) string {
		jwk, _ := json.Marshal(jose.JSONWebKey{Key: []byte(key), Algorithm: "HS256"})
		tok, err := auth.MintDevToken(jwk, map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if !authorized(t, h, hs256(secret)) {
		t.Error("a token of the file's key was refused")
	}
	if authorized(t, h, hs256(secret+"\n")) {
		t.Error("a token of the file's bytes, newline and all, was accepted: the newline is no part of the key")
	}
	if authorized(t, h, hs256(strings.Repeat("x", 48))) {
		t.Error("a token of another key was accepted")
	}
}
