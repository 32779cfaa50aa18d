package host_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/apikeys"
)

// TestGuestsCannotMintAPIKeys is issue 23's attack by a guest: a route
// kv_sets apikeys/<sha256> with an admin scope, then the key it made up is
// presented to a route that requires that scope of a "store": true API
// key. Stored keys live in the host's namespace of the app, so the key is
// refused, and a key the operator stores (Host.PutAPIKey) is accepted but
// invisible to the guest's kv_get. On the memory store and on Redis.
func TestGuestsCannotMintAPIKeys(t *testing.T) {
	t.Parallel()
	minted, operator := "minted-by-a-guest", apikeys.New()
	record := `{"subject":"mallory","scopes":["admin"]}`
	object := `{"responses":{"200":{"schema":{"type":"object"}}}}`
	mint := watModule{contract: object,
		handle: fmt.Sprintf(`(drop (call $kv_set (i32.const 3000) (i32.const %d) (i32.const 3200) (i32.const %d) (i32.const 0)))
    (drop (call $write (i32.const 3400) (i32.const 2))) (i32.const 0)`, len(apikeys.Prefix)+64, len(record)),
		extra: fmt.Sprintf("  (data (i32.const 3000) %q)\n  (data (i32.const 3200) \"%s\")\n  (data (i32.const 3400) \"{}\")\n",
			apikeys.Prefix+apikeys.Sum(minted), watString(record))}
	peek := watModule{contract: object,
		handle: fmt.Sprintf(`(local.set $n (call $kv_get (i32.const 3000) (i32.const %d) (i32.const 65536) (i32.const 1024)))
    (if (i32.lt_s (local.get $n) (i32.const 0))
      (then (drop (call $write (i32.const 3200) (i32.const 15))))
      (else (drop (call $write (i32.const 3300) (i32.const 14)))))
    (i32.const 0)`, len(apikeys.Prefix)+64),
		extra: fmt.Sprintf("  (data (i32.const 3000) %q)\n  (data (i32.const 3200) \"%s\")\n  (data (i32.const 3300) \"%s\")\n",
			apikeys.Prefix+apikeys.Sum(operator), watString(`{"found":false}`), watString(`{"found":true}`))}
	admin := watModule{contract: `{"security":[{"partners":["admin"]}],"responses":{"200":{"schema":{"type":"object"}}}}`,
		handle: `(drop (call $write (i32.const 3000) (i32.const 2))) (i32.const 0)`,
		extra:  "  (data (i32.const 3000) \"{}\")\n"}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			store := st.open(t)
			t.Cleanup(func() { store.Close() })
			h, _ := newApp(t).wat("server/api/mint.post.wasm", mint).wat("server/api/peek.get.wasm", peek).
				wat("server/api/admin.get.wasm", admin).
				file("endpoints.json", []byte(`{"security":{"partners":{"apiKey":{"store":true}}}}`)).
				host(host.Options{Mode: host.Development, Store: store, Storage: config.Storage{Namespace: "shop"},
					OpenAPI: config.OpenAPI{Document: []byte(`{"components":{"securitySchemes":{"partners":{"type":"apiKey","in":"header","name":"X-API-Key"}}}}`)}})
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			ctx := context.Background()

			if res := do(t, srv, "POST", "/api/mint", ""); res.status != 200 {
				t.Fatalf("POST /api/mint = %d %s", res.status, res.body)
			}
			if v, ok, err := store.Get(ctx, "shop", apikeys.Prefix+apikeys.Sum(minted)); err != nil || !ok || string(v) != record {
				t.Fatalf("the guest's kv_set did not write its record: %q, %v, %v", v, ok, err)
			}
			if res := do(t, srv, "GET", "/api/admin", "", "X-API-Key", minted); res.status != 401 {
				t.Errorf("the key a guest minted = %d %s, want 401", res.status, res.body)
			}

			if err := h.PutAPIKey(ctx, host.APIKey{SHA256: apikeys.Sum(operator), Subject: "ops", Scopes: []string{"admin"}}); err != nil {
				t.Fatal(err)
			}
			if res := do(t, srv, "GET", "/api/admin", "", "X-API-Key", operator); res.status != 200 {
				t.Errorf("the operator's key = %d %s, want 200", res.status, res.body)
			}
			if res := do(t, srv, "GET", "/api/peek", ""); res.body != `{"found":false}` {
				t.Errorf("a guest's kv_get of the operator's record = %d %s, want it not found", res.status, res.body)
			}
			if ok, err := h.DeleteAPIKey(ctx, apikeys.Sum(operator)); !ok || err != nil {
				t.Errorf("DeleteAPIKey = %v, %v; want true, nil", ok, err)
			}
			if res := do(t, srv, "GET", "/api/admin", "", "X-API-Key", operator); res.status != 401 {
				t.Errorf("the deleted key = %d %s, want 401", res.status, res.body)
			}
		})
	}
}
