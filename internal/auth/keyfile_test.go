package auth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/wasmendpoints/endpoints/internal/auth"
)

// fakeClock is the verifier's clock, moved by the test: the checks of a
// key file are due by it, so no test waits for them.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) add(d time.Duration) { c.ns.Add(int64(d)) }

// logBuffer collects what a verifier logs.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// replaceFile swaps data in at path as Kubernetes updates a mounted
// Secret and `mv new path` does: a new file renamed over the old one.
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// verifies fails the test unless tok verifies (want true) or is refused
// with a reason containing refusal (want false).
func verifies(t *testing.T, v auth.Verifier, what, tok string, want bool, refusal string) {
	t.Helper()
	p, err := v.Verify(context.Background(), withBearer(tok))
	if want {
		if err != nil || p.Subject != "svc" {
			t.Errorf("%s: Verify = %v, %v; want it to verify", what, p, err)
		}
		return
	}
	f, ok := errors.AsType[*auth.Failure](err)
	if !ok || !strings.Contains(f.Reason, refusal) {
		t.Errorf("%s: Verify = %v, %v; want a refusal saying %q", what, p, err, refusal)
	}
}

// TestJWKSFileRotatedWhileServing: a key set file replaced under a
// verifier that serves is read again once its check is due (a second on
// the verifier's clock): a key added verifies, a key removed is refused,
// even for a token verified (and cached) before; a file that became
// invalid or was removed keeps the last good keys and logs a warning
// naming the file, once per change. It was read at start only: the new
// key was refused and the removed one accepted until a restart.
func TestJWKSFileRotatedWhileServing(t *testing.T) {
	keys := newKeys(t)
	old := keys["ec"]
	fresh := newKeys(t)
	fresh["ec"] = withKid(fresh["ec"], "new")
	later := withKid(fresh["ed"], "later")
	app := appWith(t, map[string][]byte{"auth/jwks.json": jwksJSON(t, old.public)})
	path := filepath.Join(app, "auth", "jwks.json")
	clock := newFakeClock()
	var logs logBuffer
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/jwks.json"}},
		auth.Env{AppDir: app, Now: clock.now, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	claims := map[string]any{"sub": "svc", "exp": time.Now().Add(time.Hour).Unix()}
	oldTok, newTok, laterTok := mint(t, old.private, claims), mint(t, fresh["ec"].private, claims), mint(t, later.private, claims)
	verifies(t, v, "the old key's token at start", oldTok, true, "")

	// keygen --add: the set gains a key.
	replaceFile(t, path, jwksJSON(t, old.public, fresh["ec"].public))
	clock.add(time.Second)
	verifies(t, v, "the new key's token once the set gained it", newTok, true, "")
	verifies(t, v, "the old key's token while the set still has it", oldTok, true, "")

	// The old key removed once its tokens expired.
	replaceFile(t, path, jwksJSON(t, fresh["ec"].public))
	clock.add(time.Second)
	verifies(t, v, "the old key's token once the set lost it", oldTok, false, `signed with key "ec", which the key set does not hold`)
	verifies(t, v, "the new key's token", newTok, true, "")

	// Broken files keep the last good keys, and say so.
	for _, tt := range []struct {
		name   string
		change func()
		want   string // in the warning
	}{
		{"invalid", func() { replaceFile(t, path, []byte(`{"keys": [`)) }, "not a JSON Web Key Set"},
		{"a private key", func() { replaceFile(t, path, jwksJSON(t, fresh["ec"].private)) }, "keys[0] is a private key"},
		{"removed", func() { os.Remove(path) }, "does not exist in the app"},
	} {
		before := strings.Count(logs.String(), "level=WARN")
		tt.change()
		clock.add(time.Second)
		verifies(t, v, "the new key's token with the file "+tt.name, newTok, true, "")
		clock.add(time.Second)
		verifies(t, v, "the new key's token at the next check", newTok, true, "")
		warned := logs.String()
		if n := strings.Count(warned, "level=WARN") - before; n != 1 {
			t.Errorf("the file %s: %d warnings, want 1 (one per change):\n%s", tt.name, n, warned)
		}
		if !strings.Contains(warned, "file=auth/jwks.json") || !strings.Contains(warned, tt.want) {
			t.Errorf("the file %s: the log does not name auth/jwks.json and %q:\n%s", tt.name, tt.want, warned)
		}
	}

	// A good file again, of another algorithm: accepted as the start
	// would have, and the last good keys are replaced.
	replaceFile(t, path, jwksJSON(t, later.public))
	clock.add(time.Second)
	verifies(t, v, "an EdDSA token once the set holds its key alone", laterTok, true, "")
	verifies(t, v, "the ES256 key's token once the set lost it", newTok, false, "")
}

// TestJWKSFileUnknownKidReadsItAgain: a key set rewritten in place with
// its size and modification time as they were (which its stat cannot
// tell) is read again for a token naming a kid the keys lack, at most
// every 30 s as a jwksUrl is fetched: the operator's new key verifies
// without a restart.
func TestJWKSFileUnknownKidReadsItAgain(t *testing.T) {
	one := withKid(newKeys(t)["ec"], "k1")
	two := withKid(newKeys(t)["ec"], "k2")
	app := appWith(t, map[string][]byte{"auth/jwks.json": jwksJSON(t, one.public)})
	path := filepath.Join(app, "auth", "jwks.json")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{JWKS: "auth/jwks.json"}}, auth.Env{AppDir: app, Now: clock.now, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	claims := map[string]any{"sub": "svc", "exp": time.Now().Add(time.Hour).Unix()}
	twoTok := mint(t, two.private, claims)

	same := jwksJSON(t, two.public)
	if int64(len(same)) != st.Size() {
		t.Fatalf("the new set is %d bytes, the old %d: the test needs the same size", len(same), st.Size())
	}
	if err := os.WriteFile(path, same, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	clock.add(time.Second)
	verifies(t, v, "k2's token within 30 s of the start", twoTok, false, `which the key set does not hold`)
	clock.add(29 * time.Second)
	verifies(t, v, "k2's token 30 s after the start", twoTok, true, "")
}

// TestJWTSecretFileRotatedWhileServing: an HS256 secret file replaced
// under a verifier that serves is read again once its check is due: a
// token of the new secret verifies, one of the old is refused; a new
// content too short keeps the last good secret and warns, naming the
// file. It was read at start only.
func TestJWTSecretFileRotatedWhileServing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users-jwt")
	oldSecret, newSecret := strings.Repeat("o", 40), strings.Repeat("n", 40)
	if err := os.WriteFile(path, []byte(oldSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	var logs logBuffer
	v, err := auth.New(bearer, auth.Config{JWT: &auth.JWTConfig{Secret: &auth.Secret{File: path}}},
		auth.Env{Now: clock.now, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	claims := map[string]any{"sub": "svc", "exp": time.Now().Add(time.Hour).Unix()}
	hs := func(s string) string { return mint(t, jose.JSONWebKey{Key: []byte(s), Algorithm: "HS256"}, claims) }
	oldTok, newTok := hs(oldSecret), hs(newSecret)
	verifies(t, v, "the old secret's token at start", oldTok, true, "")

	replaceFile(t, path, []byte(newSecret+"\n"))
	clock.add(time.Second)
	verifies(t, v, "the new secret's token", newTok, true, "")
	verifies(t, v, "the old secret's token", oldTok, false, "signature does not verify")

	replaceFile(t, path, []byte("short\n"))
	clock.add(time.Second)
	verifies(t, v, "the new secret's token with the file too short", newTok, true, "")
	if warned := logs.String(); !strings.Contains(warned, "level=WARN") || !strings.Contains(warned, "file="+path) ||
		!strings.Contains(warned, "holds 5 bytes; an HS256 key needs at least 32") {
		t.Errorf("the log does not warn of %s holding 5 bytes:\n%s", path, warned)
	}
}

func withKid(k keyPair, kid string) keyPair {
	k.private.KeyID, k.public.KeyID = kid, kid
	return k
}
