package host_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/storage"
)

// TestHostileClientsCannotFillTheStore floods the memory store over real
// TCP (issue 23, item 3): ~1,150 requests with a 60 KB rate-limit key once
// filled a 64 MiB store for good, after which every rate-limited route
// answered 500 and every idempotent POST 503; and one client's answers
// evicted another's record inside its replay window, so its retry ran
// twice. Both fail on the store with one budget.
func TestHostileClientsCannotFillTheStore(t *testing.T) {
	t.Parallel()
	const ct = "application/json"

	t.Run("long rate-limit keys leave the limits and idempotent POSTs working", func(t *testing.T) {
		srv, _ := newApp(t).
			file("endpoints.json", []byte(`{"storage": {"maxBytes": 1048576}, "server": {"maxHeaderBytes": 65536},
				"rateLimits": {"orders": {"routes": ["/api/orders"], "limit": 3, "window": "1m", "key": "header:X-Client"}}}`)).
			wat("server/api/orders.post.wasm", countingModulo()).
			serve(host.Options{Mode: host.Production})
		// 60 KB keys (an app that raised server.maxHeaderBytes to 64 KiB
		// takes them), each a new client: without hashing, 17 of them fill
		// the store's megabyte. They come from another address than
		// alice's: past that address's share of the Idempotency-Key
		// records, they get 429 IDEMPOTENCY_CLIENT_QUOTA once their
		// buckets are taken.
		junk := fromAddress(t, "127.0.0.2")
		for i := range 60 {
			client := fmt.Sprintf("%d-%s", i, strings.Repeat("x", 60<<10))
			req, _ := http.NewRequest("POST", srv.URL+"/api/orders", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", ct)
			req.Header.Set("X-Client", client)
			req.Header.Set("Idempotency-Key", fmt.Sprintf("junk-%d", i))
			res, err := junk.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			quota := res.StatusCode == 429 && strings.Contains(string(body), "IDEMPOTENCY_CLIENT_QUOTA")
			if res.StatusCode != 201 && !quota || res.Header.Get("RateLimit") == "" {
				t.Fatalf("junk request %d: got %d %v %s, want 201 or its address's 429 IDEMPOTENCY_CLIENT_QUOTA, with RateLimit (a new client with tokens)", i, res.StatusCode, res.Header, body)
			}
		}
		first := do(t, srv, "POST", "/api/orders", `{"item":"pen"}`, "Content-Type", ct, "X-Client", "alice", "Idempotency-Key", "k-1")
		if first.status != 201 || first.header.Get("RateLimit") == "" {
			t.Fatalf("a real client after the flood: got %d %v %s, want 201 with RateLimit", first.status, first.header, first.body)
		}
		again := do(t, srv, "POST", "/api/orders", `{"item":"pen"}`, "Content-Type", ct, "X-Client", "alice", "Idempotency-Key", "k-1")
		if again.status != 201 || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("its retry: got %d %s replayed=%q, want the first answer %s replayed", again.status, again.body, again.header.Get("Idempotent-Replayed"), first.body)
		}
		for i := range 2 {
			do(t, srv, "POST", "/api/orders", `{}`, "Content-Type", ct, "X-Client", "alice", "Idempotency-Key", fmt.Sprintf("k-%d", i+2))
		}
		if res := do(t, srv, "POST", "/api/orders", `{}`, "Content-Type", ct, "X-Client", "alice", "Idempotency-Key", "k-9"); res.status != 429 {
			t.Errorf("alice's fifth request: got %d %s, want 429 (her bucket still counts)", res.status, res.body)
		}
	})

	t.Run("a guest filling its key-value data leaves idempotent POSTs working", func(t *testing.T) {
		store := storage.NewMemory(storage.MemoryOptions{MaxBytes: 1 << 20})
		t.Cleanup(func() { store.Close() })
		srv, _ := newApp(t).
			wat("server/api/orders.post.wasm", countingModulo()).
			wat("server/api/fill.post.wasm", kvFiller).
			serve(host.Options{Mode: host.Production, Store: store, Storage: config.Storage{Namespace: "shop"}})
		first := do(t, srv, "POST", "/api/orders", `{"item":"pen"}`, "Content-Type", ct, "Idempotency-Key", "before")
		if first.status != 201 {
			t.Fatalf("first POST: got %d %s", first.status, first.body)
		}
		if res := do(t, srv, "POST", "/api/fill", ""); res.status != 200 || res.header.Get("X-Refused") != "yes" {
			t.Fatalf("filling the key-value store: got %d %v %s, want 200 once a kv_set was refused", res.status, res.header, res.body)
		}
		before := runs(t, store, "shop")
		again := do(t, srv, "POST", "/api/orders", `{"item":"pen"}`, "Content-Type", ct, "Idempotency-Key", "before")
		if again.status != 201 || again.body != first.body || again.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("the retry after the fill: got %d %s replayed=%q, want %s replayed", again.status, again.body, again.header.Get("Idempotent-Replayed"), first.body)
		}
		if after := runs(t, store, "shop"); after != before {
			t.Errorf("the handler ran %s times before the retry, %s after; want no run", before, after)
		}
		if res := do(t, srv, "POST", "/api/orders", `{"item":"ink"}`, "Content-Type", ct, "Idempotency-Key", "after"); res.status != 201 {
			t.Errorf("a new idempotent POST after the fill: got %d %s, want 201", res.status, res.body)
		}
	})

	t.Run("a completed record is kept for its replay window", func(t *testing.T) {
		store := storage.NewMemory(storage.MemoryOptions{MaxBytes: 256 << 10})
		t.Cleanup(func() { store.Close() })
		srv, _ := newApp(t).
			wat("server/api/orders.post.wasm", countingModulo()).
			serve(host.Options{Mode: host.Production, Store: store, Storage: config.Storage{Namespace: "shop"}})
		victim := do(t, srv, "POST", "/api/orders", `{"item":"pen"}`, "Content-Type", ct, "Idempotency-Key", "victim")
		if victim.status != 201 {
			t.Fatalf("victim: got %d %s", victim.status, victim.body)
		}
		// Another client's POSTs until the records' budget is full: the
		// store refuses new keys (503) instead of evicting the victim's.
		refused := false
		for i := range 3000 {
			res := do(t, srv, "POST", "/api/orders", `{"item":"`+strings.Repeat("y", 200)+`"}`, "Content-Type", ct, "Idempotency-Key", fmt.Sprintf("flood-%d-%s", i, strings.Repeat("z", 200)))
			if res.status == 503 {
				if !strings.Contains(res.body, "IDEMPOTENCY_STORE_UNAVAILABLE") || !strings.Contains(res.body, "full of answers kept for replay") || res.header.Get("Retry-After") == "" {
					t.Errorf("the refusal: got %v %s, want IDEMPOTENCY_STORE_UNAVAILABLE saying the store is full, with Retry-After", res.header, res.body)
				}
				refused = true
				break
			}
			if res.status != 201 {
				t.Fatalf("flood request %d: got %d %s", i, res.status, res.body)
			}
		}
		if !refused {
			t.Fatal("3000 records fit in a 256 KiB store; want 503 before")
		}
		before := runs(t, store, "shop")
		again := do(t, srv, "POST", "/api/orders", `{"item":"pen"}`, "Content-Type", ct, "Idempotency-Key", "victim")
		if again.status != 201 || again.body != victim.body || again.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("the victim's retry: got %d %s replayed=%q, want %s replayed (the handler must not run twice)", again.status, again.body, again.header.Get("Idempotent-Replayed"), victim.body)
		}
		if after := runs(t, store, "shop"); after != before {
			t.Errorf("the handler ran %s times before the victim's retry, %s after; want no run", before, after)
		}
	})
}

// TestRateLimitKeyHeaderCostsTheHostNoCopy checks that a long rate-limit
// header costs the host its hash, not a copy: the heap bytes the host
// allocates serving an idempotent, rate-limited POST with a 60 KB X-Client
// are within 4 KiB of those with a 5-byte one (measured: about 400
// bytes). Converting the value to []byte to hash it cost 60 KB a request;
// net/http's own reading of the header (about 5x its bytes) is outside
// this measure, as the requests are served without a connection. Not
// parallel: it reads the process's allocation count.
func TestRateLimitKeyHeaderCostsTheHostNoCopy(t *testing.T) {
	h, _ := newApp(t).
		file("endpoints.json", []byte(`{"server": {"maxHeaderBytes": 65536},
			"rateLimits": {"orders": {"routes": ["/api/orders"], "limit": 1000000, "window": "1m", "key": "header:X-Client"}}}`)).
		wat("server/api/orders.post.wasm", countingModulo()).
		host(host.Options{Mode: host.Production, Logger: discardLogger()})
	var n int
	serve := func(client string) {
		n++
		req := httptest.NewRequest("POST", "/api/orders", strings.NewReader(`{"item":"pen"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Client", client)
		req.Header.Set("Idempotency-Key", "k-"+strconv.Itoa(n))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 201 {
			t.Fatalf("got %d %s, want 201", rec.Code, rec.Body)
		}
	}
	// bytesPerRequest is the least of three rounds' heap bytes per request,
	// so that another goroutine's work in one round does not count.
	bytesPerRequest := func(client string) uint64 {
		const perRound = 100
		least := uint64(math.MaxUint64)
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range perRound {
				serve(client)
			}
			runtime.ReadMemStats(&after)
			least = min(least, (after.TotalAlloc-before.TotalAlloc)/perRound)
		}
		return least
	}
	long := strings.Repeat("x", 60<<10)
	serve("warm")
	short, big := bytesPerRequest("alice"), bytesPerRequest(long)
	t.Logf("heap bytes a request: %d with a 5-byte X-Client, %d with a 60 KB one", short, big)
	if big > short+4096 {
		t.Errorf("a 60 KB X-Client costs the host %d heap bytes a request, a 5-byte one %d: want at most 4 KiB more (the value copied?)", big, short)
	}
}

func TestRateLimitKeysAreBounded(t *testing.T) {
	long := strings.Repeat("x", 60<<10)
	sum := sha256.Sum256([]byte(long))
	for _, c := range []struct {
		name, value, want string
	}{
		{"short values are kept", "alice", "hdr:alice"},
		{"64 bytes are kept", strings.Repeat("a", 64), "hdr:" + strings.Repeat("a", 64)},
		{"65 bytes are hashed", strings.Repeat("a", 65), "hdr#" + hexSHA256(strings.Repeat("a", 65))},
		{"a 60 KB value is hashed", long, "hdr#" + hex.EncodeToString(sum[:])},
		{"a value that looks like a hash stays apart from it", "#" + hexSHA256(strings.Repeat("a", 65))[:63], "hdr:#" + hexSHA256(strings.Repeat("a", 65))[:63]},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := host.BoundKey("hdr", c.value); got != c.want {
				t.Errorf("boundKey(hdr, %.20q...) = %.80q, want %.80q", c.value, got, c.want)
			}
		})
	}
}

// BenchmarkBoundKey measures the host's own work per request that grows
// with a 60 KB rate-limit key: its SHA-256 (boundKey), beside the same hash
// of the string converted to []byte, which allocated and copied 60 KB per
// request (issue 23: the flood's p99 came from its bytes, not its keys).
func BenchmarkBoundKey(b *testing.B) {
	value := strings.Repeat("x", 60<<10)
	b.Run("host", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			host.BoundKey("hdr", value)
		}
	})
	b.Run("converted", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(value)))
		for b.Loop() {
			hexSHA256(value)
		}
	})
}

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// countingModulo is countingHandler that answers {"run":N} with N its runs
// modulo 10, so that it answers valid JSON however often it runs.
func countingModulo() watModule {
	m := countingHandler(0, 201, false)
	m.handle = strings.Replace(m.handle, `(i32.wrap_i64 (i64.load (i32.const 3100)))`,
		`(i32.wrap_i64 (i64.rem_u (i64.load (i32.const 3100)) (i64.const 10)))`, 1)
	return m
}

// kvFiller sets 8 KiB values under new keys until kv_set fails (at most
// 10,000), then answers 200 with X-Refused: yes when one did.
var kvFiller = watModule{
	handle: `(block $full
      (loop $next
        (i32.store (i32.const 4000) (local.get $n))
        (br_if $full (call $kv_set (i32.const 4000) (i32.const 4) (i32.const 8192) (i32.const 8192) (i32.const 0)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br_if $next (i32.lt_u (local.get $n) (i32.const 10000)))))
    (if (i32.lt_u (local.get $n) (i32.const 10000))
      (then (drop (call $set_header (i32.const 4100) (i32.const 9) (i32.const 4110) (i32.const 3)))))
    (drop (call $set_status (i32.const 200)))
    (i32.const 0)`,
	extra: `  (data (i32.const 4100) "X-Refused")
  (data (i32.const 4110) "yes")
`,
}
