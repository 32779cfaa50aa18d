package host_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/storage"
)

// TestKeyValueStore drives the Go SDK's endpoints.KV through the real
// host, on each store: the guest of guest-sdk/go/testdata/kv runs the KV
// method its query names.
func TestKeyValueStore(t *testing.T) {
	t.Parallel()
	wasm := filepath.Join(t.TempDir(), "kv.get.wasm")
	if err := guestbuild.Go(context.Background(), "../guest-sdk/go/testdata/kv", wasm); err != nil {
		t.Fatal(err)
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			store := st.open(t)
			t.Cleanup(func() { store.Close() })
			srv, _ := newApp(t).copyModule("server/api/kv.get.wasm", wasm).
				serve(host.Options{Mode: host.Development, Store: store, Storage: config.Storage{Namespace: "kv-test"}})
			get := func(query string) string {
				t.Helper()
				res := do(t, srv, "GET", "/api/kv?"+query, "")
				return fmt.Sprintf("%d %s", res.status, res.body)
			}
			for _, tt := range []struct{ query, want string }{
				{"op=init", `200 {"found":true,"value":"endpoints: KV.Get \"boot\": host function kv_get: not available outside a request (-6)"}`},
				{"op=get&key=users/1", `200 {}`},
				{"op=set&key=users/1&value=Ada", `200 {}`},
				{"op=set&key=users/2&value=Grace", `200 {}`},
				{"op=set&key=orders/1&value=pen", `200 {}`},
				{"op=get&key=users/1", `200 {"found":true,"value":"Ada"}`},
				{"op=keys&key=users/", `200 {"keys":["users/1","users/2"]}`},
				{"op=delete&key=users/1", `200 {"found":true}`},
				{"op=delete&key=users/1", `200 {}`},
				{"op=keys&key=users/", `200 {"keys":["users/2"]}`},
				{"op=incr&key=next&delta=5", `200 {"n":5}`},
				{"op=incr&key=next&delta=-2", `200 {"n":3}`},
				{"op=incr&key=users/2&delta=1", `500 {"statusCode":500,"statusMessage":"Internal Server Error"}`},
				{"op=set&key=session&value=s&ttl=1000", `200 {}`},
				{"op=get&key=session", `200 {"found":true,"value":"s"}`},
			} {
				if got := get(tt.query); got != tt.want {
					t.Errorf("%s: got %s\nwant %s", tt.query, got, tt.want)
				}
			}
			// The host namespaces the data: the store holds it under the
			// app's namespace.
			if v, ok, err := store.Get(context.Background(), "kv-test", "users/2"); err != nil || !ok || string(v) != "Grace" {
				t.Errorf("store.Get(kv-test, users/2) = %q, %v, %v", v, ok, err)
			}
			var got string
			if !afterExpiry(t, store, time.Second, func() bool { got = get("op=get&key=session"); return got == `200 {}` }) {
				t.Errorf("after its TTL the session is %s, want gone", got)
			}
		})
	}
	t.Run("a store that is down answers 503", func(t *testing.T) {
		srv, logs := newApp(t).copyModule("server/api/kv.get.wasm", wasm).
			serve(host.Options{Mode: host.Development, Store: downKV{storage.NewMemory(storage.MemoryOptions{})}})
		res := do(t, srv, "GET", "/api/kv?op=get&key=x", "")
		if res.status != 503 || !strings.Contains(logs.String(), "the key-value store failed") {
			t.Errorf("got %d %s; log:\n%s", res.status, res.body, logs)
		}
	})
}

// downKV is a store whose key-value half cannot be reached.
type downKV struct{ storage.Store }

func (downKV) Get(context.Context, string, string) ([]byte, bool, error) { return nil, false, errDown }
