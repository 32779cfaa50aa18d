package main

import (
	"context"
	"encoding/json"
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

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

// rotationBound bounds a wait for a host to see a rotated key file, which
// it checks about once a second: it only turns a hang into a failure.
const rotationBound = 30 * time.Second

// serveLogged is serveApp with the host's log kept.
func serveLogged(t *testing.T, app string) (*host.Host, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	h, err := host.New(t.Context(), app, host.Options{Mode: host.Production, Logger: slog.New(slog.NewTextHandler(logs, nil)), SkipMigrations: true})
	if err != nil {
		t.Fatalf("serve's load of the app: %v", err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h, logs
}

// addresses numbers the requests of askFrom: each comes from an address
// of its own (198.18.0.0/15), or the host's budget of failed attempts per
// address would answer 429 to a test polling for a change.
var addresses atomic.Uint32

// askFrom reports whether h lets a GET /api/orders with token in (200) or
// refuses it (401), from an address no request used before.
func askFrom(t *testing.T, h http.Handler, token string) bool {
	t.Helper()
	i := addresses.Add(1)
	req := httptest.NewRequest("GET", "/api/orders", nil)
	req.RemoteAddr = fmt.Sprintf("198.18.%d.%d:40000", i>>8&0xff, i&0xff)
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK && w.Code != http.StatusUnauthorized {
		t.Fatalf("GET /api/orders = %d %s, want 200 or 401", w.Code, w.Body)
	}
	return w.Code == http.StatusOK
}

// untilAuthorized asks h with token until it lets it in (want true) or
// refuses it (want false), within rotationBound, and reports whether it
// did.
func untilAuthorized(t *testing.T, h http.Handler, token string, want bool) bool {
	t.Helper()
	return poll.Until(rotationBound, func() bool { return askFrom(t, h, token) == want })
}

// TestKeySetRotatedUnderAServingHost: the mounted key set of a serving
// host rotated as README says (keygen --add, then the old key removed)
// is seen without a restart: a token of the added key is let in, one of
// the removed key is refused, and a key set rewritten into something
// invalid is logged, naming the file, while the last good keys keep
// serving. The host read the set at start only: the new key's tokens were
// refused until a restart.
func TestKeySetRotatedUnderAServingHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	oldKey, newKey := filepath.Join(dir, "users-1.jwk"), filepath.Join(dir, "users-2.jwk")
	staging := filepath.Join(dir, "jwks.json")
	if code, _, errOut := runCLI("keygen", "--key", oldKey, "--jwks", staging, "--kid", "users-1"); code != exitOK {
		t.Fatalf("keygen = %d: %s", code, errOut)
	}
	set, _ := os.ReadFile(staging)
	app := deployedApp(t, `{"bearer": {"jwt": {"jwks": "auth/deployment-jwks.json"}}}`, map[string]string{"auth/deployment-jwks.json": string(set)})
	mounted := filepath.Join(app, "auth", "deployment-jwks.json")
	h, logs := serveLogged(t, app)
	oldTok := mintWith(t, "--key", oldKey)
	if !authorized(t, h, oldTok) {
		t.Fatal("the first key's token was refused")
	}

	if code, _, errOut := runCLI("keygen", "--key", newKey, "--jwks", mounted, "--add", "--kid", "users-2"); code != exitOK {
		t.Fatalf("keygen --add = %d: %s", code, errOut)
	}
	newTok := mintWith(t, "--key", newKey)
	if !untilAuthorized(t, h, newTok, true) {
		t.Fatalf("the added key's token is still refused %s after keygen --add", rotationBound)
	}
	if !authorized(t, h, oldTok) {
		t.Error("the first key's token was refused while the set still holds it")
	}

	// The old key removed, as README's jq line does: a new file moved
	// over the mounted one.
	var keys jose.JSONWebKeySet
	b, _ := os.ReadFile(mounted)
	if err := json.Unmarshal(b, &keys); err != nil || len(keys.Keys) != 2 {
		t.Fatalf("the key set after --add: %v, %d keys", err, len(keys.Keys))
	}
	keys.Keys = keys.Keys[1:]
	b, _ = json.Marshal(keys)
	replaceWith(t, mounted, b)
	if !untilAuthorized(t, h, oldTok, false) {
		t.Fatalf("the removed key's token is still let in %s after its removal", rotationBound)
	}

	// A key set that became invalid: requests go on (the file is
	// looked at when one is verified) until the warning is logged, each
	// let in with the last good key.
	replaceWith(t, mounted, []byte("{\"keys\": ["))
	if !poll.Until(rotationBound, func() bool {
		if !askFrom(t, h, newTok) {
			t.Fatal("the last good key's token was refused once the set became invalid")
		}
		return strings.Contains(logs.String(), "level=WARN")
	}) {
		t.Fatalf("no warning %s after the key set became invalid:\n%s", rotationBound, logs)
	}
	if warned := logs.String(); !strings.Contains(warned, "file=auth/deployment-jwks.json") || !strings.Contains(warned, "not a JSON Web Key Set") {
		t.Errorf("the warning does not name the file and what is wrong:\n%s", warned)
	}
	if !authorized(t, h, newTok) {
		t.Error("the last good key's token was refused once the set became invalid")
	}
}

// TestSecretFileRotatedUnderAServingHost: the HS256 secret file of a
// serving host replaced, as Kubernetes updates a mounted Secret, is seen
// without a restart: a token `endpoints token --secret-file` signs with
// the new file is let in, one of the old file refused. It was read at
// start only.
func TestSecretFileRotatedUnderAServingHost(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "users-jwt")
	if err := os.WriteFile(file, []byte(strings.Repeat("o", 44)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	security, _ := json.Marshal(map[string]any{"bearer": map[string]any{"jwt": map[string]any{"secret": map[string]string{"file": file}}}})
	app := deployedApp(t, string(security), nil)
	h, _ := serveLogged(t, app)
	oldTok := mintWith(t, "--secret-file", file, app)
	if !authorized(t, h, oldTok) {
		t.Fatal("a token of token --secret-file was refused")
	}
	replaceWith(t, file, []byte(strings.Repeat("n", 44)+"\n"))
	newTok := mintWith(t, "--secret-file", file)
	if !untilAuthorized(t, h, newTok, true) {
		t.Fatalf("the new secret's token is still refused %s after the file changed", rotationBound)
	}
	if authorized(t, h, oldTok) {
		t.Error("the old secret's token is let in after the file changed")
	}
}

// replaceWith moves a new file with data over path, as Kubernetes swaps
// a mounted Secret's files and `mv` does.
func replaceWith(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
