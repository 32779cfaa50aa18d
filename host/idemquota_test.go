package host_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/poll"
	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/redis"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// TestOneClientCannotStarveAnother floods idempotent POSTs from one client
// address over real TCP (issue 23, item 3): each with a fresh key, whose
// record is kept for the replay window and never evicted early. Without a
// share per client, the flood filled the records' budget and every other
// client's idempotent POST answered 503 until the flood's records expired
// (24 h by default). With it, the flooding client gets 429
// IDEMPOTENCY_CLIENT_QUOTA (nothing runs) and the other client 201; once
// the flood's records expire, their share comes back.
func TestOneClientCannotStarveAnother(t *testing.T) {
	t.Parallel()
	const replay = 2 * time.Second
	idem := config.Idempotency{Replay: config.Duration(replay)}
	for _, c := range []struct {
		name  string
		store func(t *testing.T) (storage.Store, config.Storage)
	}{
		{"memory", func(t *testing.T) (storage.Store, config.Storage) {
			// A 64 KiB budget: a client's default share, a sixteenth,
			// is 4 KiB, a few records.
			st := config.Storage{Namespace: "shop", IdempotencyBytes: 64 << 10}
			return storage.NewMemory(storage.MemoryOptions{IdempotencyBytes: st.IdempotencyBytes}), st
		}},
		{"redis", func(t *testing.T) (storage.Store, config.Storage) {
			url, _, _ := storagetest.StartRedis(t)
			s, err := redis.New(url, "shop")
			if err != nil {
				t.Fatal(err)
			}
			return s, config.Storage{Namespace: "shop", Driver: config.DriverRedis, URL: url, IdempotencyClientBytes: 4 << 10}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			store, st := c.store(t)
			t.Cleanup(func() { store.Close() })
			srv, _ := newApp(t).
				wat("server/api/orders.post.wasm", countingModulo()).
				serve(host.Options{Mode: host.Production, Store: store, Storage: st, Idempotency: idem})
			flooder, good := fromAddress(t, "127.0.0.2"), fromAddress(t, "127.0.0.3")

			// The flooder's fresh keys, until it is refused.
			var refused response
			for i := range 2000 {
				res := postOrder(t, flooder, srv, fmt.Sprintf("flood-%d", i))
				if res.status != 201 {
					refused = res
					break
				}
			}
			// Another client is not starved, and holds a share of its own.
			for i := range 3 {
				if res := postOrder(t, good, srv, fmt.Sprintf("good-%d", i)); res.status != 201 {
					t.Fatalf("the other client's POST %d once the flooder was refused: got %d %s, want 201", i, res.status, res.body)
				}
			}
			before := runs(t, store, "shop")
			wantClientQuota(t, refused, replay)
			if res := postOrder(t, flooder, srv, "one-more"); res.status != 429 {
				t.Errorf("the flooder's next key: got %d %s, want 429", res.status, res.body)
			}
			if after := runs(t, store, "shop"); after != before {
				t.Errorf("the handler ran %s times before the refusal, %s after; want no run", before, after)
			}
			// A retry of a key the flooder holds is replayed, not refused.
			if res := postOrder(t, flooder, srv, "flood-0"); res.status != 201 || res.header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("the flooder's retry of its first key: got %d %v %s, want the replay", res.status, res.header, res.body)
			}

			// Once the flood's replay window ends, its share comes back.
			if !poll.Until(4*replay, func() bool { return postOrder(t, flooder, srv, "after-the-window").status == 201 }) {
				t.Errorf("the flooder's new key after its records' replay window: still refused %v after it ended", 3*replay)
			}
		})
	}
}

// wantClientQuota checks a 429 IDEMPOTENCY_CLIENT_QUOTA whose Retry-After
// is at most the replay window (when the client's first record expires).
func wantClientQuota(t *testing.T, res response, replay time.Duration) {
	t.Helper()
	if res.status != 429 || problemCode(t, res) != "IDEMPOTENCY_CLIENT_QUOTA" {
		t.Fatalf("the flooder's refusal: got %d %s, want 429 IDEMPOTENCY_CLIENT_QUOTA", res.status, res.body)
	}
	retry, err := strconv.Atoi(res.header.Get("Retry-After"))
	if err != nil || retry < 1 || time.Duration(retry)*time.Second > replay {
		t.Errorf("Retry-After = %q, want 1 to %v in seconds (until its first record expires)", res.header.Get("Retry-After"), replay)
	}
	if !strings.Contains(res.body, "nothing ran") {
		t.Errorf("the refusal's detail: %s, want it to say that nothing ran", res.body)
	}
}

// fromAddress is an HTTP client whose connections come from the loopback
// address ip (any of 127.0.0.0/8 on Linux), so the host sees another
// client address than the default client's.
func fromAddress(t testing.TB, ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}, MaxIdleConnsPerHost: 16}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// postOrder sends an idempotent POST /api/orders with key from client.
func postOrder(t testing.TB, client *http.Client, srv *httptest.Server, key string) response {
	t.Helper()
	req, err := http.NewRequest("POST", srv.URL+"/api/orders", strings.NewReader(`{"item":"pen"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST /api/orders: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("POST /api/orders: reading the body: %v", err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

// TestStorageBudgetsFromEndpointsJSON checks that endpoints.json's storage
// budgets reach the store and the clients' shares: only maxBytes did, and
// "idempotencyBytes", "kvBytes" and "rateLimitBytes" in the file were
// ignored.
func TestStorageBudgetsFromEndpointsJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, storage string }{
		// The share is a sixteenth of the records' budget: 4 KiB.
		{"idempotencyBytes", `{"idempotencyBytes": 65536}`},
		{"idempotencyClientBytes", `{"idempotencyClientBytes": 4096}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newApp(t).
				file("endpoints.json", []byte(`{"storage": `+c.storage+`}`)).
				wat("server/api/orders.post.wasm", countingModulo()).
				serve(host.Options{Mode: host.Production})
			client := fromAddress(t, "127.0.0.4")
			// A few records of about 800 bytes fit in 4 KiB; with the
			// default share (1.5 MiB), 200 do.
			for i := range 200 {
				if res := postOrder(t, client, srv, fmt.Sprintf("k-%d", i)); res.status == 429 {
					return
				} else if res.status != 201 {
					t.Fatalf("POST %d: got %d %s, want 201 or 429", i, res.status, res.body)
				}
			}
			t.Errorf("200 records of one client fit in a share of 4 KiB: the file's %s was not applied", c.storage)
		})
	}
}
