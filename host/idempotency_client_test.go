package host_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/redis"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// clientsApp is the counting handler at POST /api/orders behind four
// alternatives: a bearer JWT ("bearer"), an API key ("partners", whose
// one key "alice-key" has the subject alice), a token a verifier
// middleware checks ("token": X-Token "good" is alice) and no credential
// at all. It returns the app and its options, and the Authorization header
// of a token for each subject it is asked for.
func clientsApp(t *testing.T) (*app, host.Options, func(sub string) []string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv := jose.JSONWebKey{Key: key, KeyID: "k1", Use: "sig", Algorithm: "ES256"}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{priv.Public()}})
	privJSON, _ := json.Marshal(priv)
	bearer := func(sub string) []string {
		token, err := auth.MintDevToken(privJSON, map[string]any{"sub": sub, "exp": time.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return []string{"Authorization", "Bearer " + token}
	}
	sum := sha256.Sum256([]byte("alice-key"))
	endpointsJSON := fmt.Sprintf(`{"security":{
		"bearer":{"jwt":{"jwks":"auth/jwks.json"}},
		"partners":{"apiKey":{"keys":[{"sha256":%q,"subject":"alice"}]}}}}`, hex.EncodeToString(sum[:]))
	m := countingHandler(0, 201, false)
	m.contract = strings.Replace(m.contract, `"idempotency"`, `"security": [{"bearer":[]},{"partners":[]},{"token":[]},{}], "idempotency"`, 1)
	a := newApp(t).wat("server/api/orders.post.wasm", m).
		file("auth/jwks.json", jwks).
		file("endpoints.json", []byte(endpointsJSON)).
		middleware("auth", tokenVerifier)
	opts := host.Options{Mode: host.Development, OpenAPI: config.OpenAPI{Document: []byte(`{"components":{"securitySchemes":{
		"bearer":{"type":"http","scheme":"bearer"},
		"partners":{"type":"apiKey","in":"header","name":"X-API-Key"},
		"token":{"type":"apiKey","in":"header","name":"X-Token","x-endpoints-verifier":"auth"}}}}`)}}
	opts.Storage.Namespace = "shop"
	return a, opts, bearer
}

// TestIdempotencyKeyIsTheClients is issue 23's attack on the wire: Bob
// sends the Idempotency-Key (and the body) Alice used. He must run his own
// request, not be replayed her answer, and must not learn that her key is
// taken (422) when his body differs. A record is the verified principal's
// (scheme and subject), so the same subject under another scheme is
// another client too; anonymous requests share a key's record. It runs on
// the memory store, on Redis, and on two hosts sharing one Redis server,
// where the requests alternate between the hosts.
func TestIdempotencyKeyIsTheClients(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		hosts func(t *testing.T, a *app, opts host.Options) (first, second *httptest.Server, store storage.Store)
	}{
		{"memory", func(t *testing.T, a *app, opts host.Options) (*httptest.Server, *httptest.Server, storage.Store) {
			opts.Store = storage.NewMemory(storage.MemoryOptions{})
			t.Cleanup(func() { opts.Store.Close() })
			srv, _ := a.serve(opts)
			return srv, srv, opts.Store
		}},
		{"redis", func(t *testing.T, a *app, opts host.Options) (*httptest.Server, *httptest.Server, storage.Store) {
			url, _, _ := storagetest.StartRedis(t)
			opts.Store = redisStore(t, url)
			srv, _ := a.serve(opts)
			return srv, srv, opts.Store
		}},
		{"two hosts on one redis", func(t *testing.T, a *app, opts host.Options) (*httptest.Server, *httptest.Server, storage.Store) {
			url, _, _ := storagetest.StartRedis(t)
			opts.Store = redisStore(t, url)
			first, _ := a.serve(opts)
			opts.Store = redisStore(t, url)
			second, _ := a.serve(opts)
			return first, second, opts.Store
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, opts, bearer := clientsApp(t)
			first, second, store := tt.hosts(t, a, opts)
			alice, bob := bearer("alice"), bearer("bob")
			steps := []struct {
				name         string
				srv          *httptest.Server
				client       []string
				key, body    string
				wantBody     string
				wantReplayed bool
			}{
				{"alice's first request runs", first, alice, "a-1", `{"item":"pen"}`, `{"run":1}`, false},
				{"bob with alice's key and body runs his own", second, bob, "a-1", `{"item":"pen"}`, `{"run":2}`, false},
				{"alice's retry on the other host replays hers", second, alice, "a-1", `{"item":"pen"}`, `{"run":1}`, true},
				{"bob's retry replays his", first, bob, "a-1", `{"item":"pen"}`, `{"run":2}`, true},
				{"alice's second key runs", first, alice, "a-2", `{"item":"pen"}`, `{"run":3}`, false},
				{"bob with alice's key and another body runs, no 422", second, bob, "a-2", `{"item":"ink"}`, `{"run":4}`, false},
				{"alice's API key is another client than her token", first, []string{"X-API-Key", "alice-key"}, "a-1", `{"item":"pen"}`, `{"run":5}`, false},
				{"a verifier middleware's alice is another client again", second, []string{"X-Token", "good"}, "a-1", `{"item":"pen"}`, `{"run":6}`, false},
				{"the middleware's alice retries", first, []string{"X-Token", "good"}, "a-1", `{"item":"pen"}`, `{"run":6}`, true},
				{"an anonymous request with alice's key runs", second, nil, "a-1", `{"item":"pen"}`, `{"run":7}`, false},
				{"anonymous requests share a key's record", first, nil, "a-1", `{"item":"pen"}`, `{"run":7}`, true},
			}
			for _, s := range steps {
				res := do(t, s.srv, "POST", "/api/orders", s.body, append([]string{"Content-Type", "application/json", "Idempotency-Key", s.key}, s.client...)...)
				replayed := res.header.Get("Idempotent-Replayed") == "true"
				if res.status != 201 || res.body != s.wantBody || replayed != s.wantReplayed {
					t.Errorf("%s: %d %s replayed=%v, want 201 %s replayed=%v", s.name, res.status, res.body, replayed, s.wantBody, s.wantReplayed)
				}
			}
			if got := runs(t, store, "shop"); got != "7" {
				t.Errorf("the handler ran %s times, want 7", got)
			}
		})
	}
}

// redisStore opens a Redis store of the namespace "shop" at url, closed
// when the test ends.
func redisStore(t *testing.T, url string) storage.Store {
	t.Helper()
	s, err := redis.New(url, "shop")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
