package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/redis"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// countingHandler counts its runs in the key-value store under "runs" and
// answers 201 {"run":N} (N < 10), after spinning a while. With trapFirst
// its first run traps; with status it answers that status instead.
func countingHandler(spinFor, status int, trapFirst bool) watModule {
	trap := ""
	if trapFirst {
		trap = `(if (i64.eq (i64.load (i32.const 3100)) (i64.const 1)) (then unreachable))`
	}
	return watModule{
		contract: `{"request": {"body": {"schema": {"type": "object"}}},
			"responses": {"201": {"schema": {"type": "object"}}, "404": {"schema": {"type": "object"}}},
			"idempotency": {"required": true}}`,
		handle: `(drop (call $kv_incr (i32.const 3000) (i32.const 4) (i64.const 1) (i32.const 3100)))
    (i32.store8 (i32.const 3207) (i32.add (i32.const 48) (i32.wrap_i64 (i64.load (i32.const 3100)))))
    ` + trap + spin(spinFor) + `
    (drop (call $set_status (i32.const ` + itoa(status) + `)))
    (drop (call $write (i32.const 3200) (i32.const 9)))
    (i32.const 0)`,
		extra: `  (data (i32.const 3000) "runs")
  (data (i32.const 3200) "{\"run\":0}")
`,
	}
}

// runs reads how many times the counting handler ran.
func runs(t *testing.T, s storage.Store, ns string) string {
	t.Helper()
	v, _, err := s.Get(context.Background(), ns, "runs")
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// problemCode reads the code of a Problem Details answer.
func problemCode(t *testing.T, res response) string {
	t.Helper()
	if ct := res.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json (body %s)", ct, res.body)
	}
	var p host.IdempotencyProblem
	if err := json.Unmarshal([]byte(res.body), &p); err != nil {
		t.Fatalf("problem %q: %v", res.body, err)
	}
	if p.Status != res.status || p.Type == "" || p.Title == "" || p.Detail == "" {
		t.Errorf("problem %+v: want type, title, status %d and detail", p, res.status)
	}
	return p.Code
}

// stores are the stores the idempotency and key-value scenarios run on:
// each returns a fresh, empty store.
var stores = []struct {
	name string
	open func(t *testing.T) storage.Store
}{
	{"memory", func(t *testing.T) storage.Store {
		clock := &movingClock{}
		return memoryStore{storage.NewMemory(storage.MemoryOptions{Now: clock.now}), clock}
	}},
	{"redis", func(t *testing.T) storage.Store {
		url, _, _ := storagetest.StartRedis(t)
		s, err := redis.New(url, "host-test")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
}

// memoryStore is a memory store on a clock the test moves (see
// afterExpiry).
type memoryStore struct {
	*storage.Memory
	clock *movingClock
}

// movingClock reads the real time plus an offset that advance moves
// forward: what depends on real time passing (a lease that a slow handler
// outlives) still does, and an expiry comes at once when the test wants.
type movingClock struct{ offset atomic.Int64 }

func (c *movingClock) now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

func (c *movingClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// afterExpiry lets d pass for the expiries of store (stores[i].open), then
// reports whether cond holds. A memory store's clock is moved d forward
// and cond checked at once, which shows that what expires after d is
// gone at d. Redis's clock cannot be moved: cond is polled until it holds,
// for at most d plus 10 s; what the host asks of either store is the same,
// and the Redis store's own expiry is checked in storage/redis.
func afterExpiry(t *testing.T, store storage.Store, d time.Duration, cond func() bool) bool {
	t.Helper()
	if m, ok := store.(memoryStore); ok {
		m.clock.advance(d)
		return cond()
	}
	return waitFor(t, d+10*time.Second, cond)
}

// idempotentApp serves the counting handler at POST /api/orders with a
// store the test can read.
func idempotentApp(t *testing.T, open func(*testing.T) storage.Store, m watModule, opts host.Options) (*httptest.Server, storage.Store, *logBuffer) {
	t.Helper()
	store := open(t)
	t.Cleanup(func() { store.Close() })
	opts.Store = store
	opts.Storage.Namespace = "shop"
	if opts.Mode == 0 {
		opts.Mode = host.Development
	}
	srv, logs := newApp(t).wat("server/api/orders.post.wasm", m).serve(opts)
	return srv, store, logs
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			testIdempotencyKey(t, st.open)
		})
	}
}

func testIdempotencyKey(t *testing.T, open func(*testing.T) storage.Store) {
	const ct = "application/json"
	post := func(t *testing.T, srv *httptest.Server, body string, headers ...string) response {
		return do(t, srv, "POST", "/api/orders", body, append([]string{"Content-Type", ct}, headers...)...)
	}

	t.Run("a retry replays the first answer", func(t *testing.T) {
		srv, store, _ := idempotentApp(t, open, countingHandler(0, 201, false), host.Options{})
		first := post(t, srv, `{"item":"pen"}`, "Idempotency-Key", "k-1")
		again := post(t, srv, `{"item": "pen"}`, "Idempotency-Key", `"k-1"`) // same JSON, quoted key
		if first.status != 201 || first.body != `{"run":1}` || first.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("first = %d %s replayed=%q", first.status, first.body, first.header.Get("Idempotent-Replayed"))
		}
		if again.status != 201 || again.body != `{"run":1}` || again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("Content-Type") != ct {
			t.Errorf("retry = %d %s %v, want the first answer replayed", again.status, again.body, again.header)
		}
		other := post(t, srv, `{"item":"pen"}`, "Idempotency-Key", "k-2")
		if other.body != `{"run":2}` {
			t.Errorf("another key = %s, want a second run", other.body)
		}
		if got := runs(t, store, "shop"); got != "2" {
			t.Errorf("runs = %s, want 2", got)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		srv, store, _ := idempotentApp(t, open, countingHandler(0, 201, false), host.Options{})
		post(t, srv, `{"item":"pen"}`, "Idempotency-Key", "used")
		for _, tt := range []struct {
			name, body string
			headers    []string
			wantStatus int
			wantCode   string
		}{
			{"missing key", `{}`, nil, 400, "IDEMPOTENCY_KEY_REQUIRED"},
			{"empty key", `{}`, []string{"Idempotency-Key", ""}, 400, "IDEMPOTENCY_KEY_INVALID"},
			{"a comma", `{}`, []string{"Idempotency-Key", "a,b"}, 400, "IDEMPOTENCY_KEY_INVALID"},
			{"two headers", `{}`, []string{"Idempotency-Key", "a", "Idempotency-Key", "b"}, 400, "IDEMPOTENCY_KEY_INVALID"},
			{"256 characters", `{}`, []string{"Idempotency-Key", strings.Repeat("k", 256)}, 400, "IDEMPOTENCY_KEY_INVALID"},
			{"a space", `{}`, []string{"Idempotency-Key", "a b"}, 400, "IDEMPOTENCY_KEY_INVALID"},
			{"an unclosed quote", `{}`, []string{"Idempotency-Key", `"abc`}, 400, "IDEMPOTENCY_KEY_INVALID"},
			{"same key, other body", `{"item":"ink"}`, []string{"Idempotency-Key", "used"}, 422, "IDEMPOTENCY_KEY_REUSED"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				res := post(t, srv, tt.body, tt.headers...)
				if res.status != tt.wantStatus {
					t.Fatalf("status %d %s, want %d", res.status, res.body, tt.wantStatus)
				}
				if code := problemCode(t, res); code != tt.wantCode {
					t.Errorf("code %s, want %s", code, tt.wantCode)
				}
			})
		}
		if got := runs(t, store, "shop"); got != "1" {
			t.Errorf("runs = %s, want only the first request's", got)
		}
		// A validation failure comes first: the key is not looked at.
		if res := post(t, srv, `[1]`, "Idempotency-Key", "used"); res.status != 400 || !strings.Contains(res.body, "Validation Error") {
			t.Errorf("invalid body = %d %s, want the validation 400", res.status, res.body)
		}
	})
	t.Run("concurrent requests with one key run the handler once", func(t *testing.T) {
		srv, store, _ := idempotentApp(t, open, countingHandler(30_000_000, 201, false), host.Options{Limits: config.Limits{Instances: 8}})
		var wg sync.WaitGroup
		statuses := make(chan string, 20)
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := post(t, srv, `{"item":"pen"}`, "Idempotency-Key", "same")
				switch {
				case res.status == 201:
					statuses <- "201 " + res.body + " replayed=" + res.header.Get("Idempotent-Replayed")
				case res.status == 409 && res.header.Get("Retry-After") != "":
					statuses <- "409 " + problemCode(t, res)
				default:
					statuses <- fmt.Sprintf("%d %s", res.status, res.body)
				}
			}()
		}
		wg.Wait()
		close(statuses)
		seen := map[string]int{}
		for s := range statuses {
			seen[s]++
		}
		if got := runs(t, store, "shop"); got != "1" {
			t.Errorf("runs = %s, want 1; answers %v", got, seen)
		}
		for s := range seen {
			if s != `201 {"run":1} replayed=` && s != `201 {"run":1} replayed=true` && s != "409 IDEMPOTENCY_REQUEST_IN_FLIGHT" {
				t.Errorf("unexpected answer %q (answers %v)", s, seen)
			}
		}
		if seen[`201 {"run":1} replayed=`] != 1 {
			t.Errorf("answers %v: want exactly one first run", seen)
		}
	})
	t.Run("a trap releases the key and the retry runs", func(t *testing.T) {
		srv, store, _ := idempotentApp(t, open, countingHandler(0, 201, true), host.Options{})
		if res := post(t, srv, `{}`, "Idempotency-Key", "t"); res.status != 500 {
			t.Fatalf("first = %d %s, want the trap's 500", res.status, res.body)
		}
		if res := post(t, srv, `{}`, "Idempotency-Key", "t"); res.status != 201 || res.body != `{"run":2}` {
			t.Errorf("retry = %d %s, want a new run", res.status, res.body)
		}
		if got := runs(t, store, "shop"); got != "2" {
			t.Errorf("runs = %s, want 2", got)
		}
	})
	t.Run("a status that is not replayed releases the key", func(t *testing.T) {
		srv, _, _ := idempotentApp(t, open, countingHandler(0, 404, false), host.Options{})
		post(t, srv, `{}`, "Idempotency-Key", "nf")
		if res := post(t, srv, `{}`, "Idempotency-Key", "nf"); res.status != 404 || res.body != `{"run":2}` || res.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("retry = %d %s, want a second run", res.status, res.body)
		}
	})
	t.Run("a request past its lease answers lease lost", func(t *testing.T) {
		srv, _, logs := idempotentApp(t, open, countingHandler(300_000_000, 201, false), host.Options{
			Idempotency: config.Idempotency{Lease: config.Duration(50 * time.Millisecond)}})
		res := post(t, srv, `{}`, "Idempotency-Key", "slow")
		if res.status != 409 {
			t.Fatalf("status %d %s, want 409", res.status, res.body)
		}
		if code := problemCode(t, res); code != "IDEMPOTENCY_LEASE_LOST" {
			t.Errorf("code %s", code)
		}
		if res.header.Get("Location") != "" || !strings.Contains(logs.String(), "ran past its idempotency lease") {
			t.Errorf("headers %v; log:\n%s", res.header, logs)
		}
	})
	t.Run("after the replay time the key runs again", func(t *testing.T) {
		srv, store, _ := idempotentApp(t, open, countingHandler(0, 201, false), host.Options{
			Idempotency: config.Idempotency{Replay: config.Duration(100 * time.Millisecond)}})
		post(t, srv, `{}`, "Idempotency-Key", "ttl")
		// A retry before the replay time replays run 1 and changes nothing,
		// so on Redis the retries can poll.
		var res response
		if !afterExpiry(t, store, 100*time.Millisecond, func() bool {
			res = post(t, srv, `{}`, "Idempotency-Key", "ttl")
			return res.body == `{"run":2}`
		}) {
			t.Errorf("after the replay time = %d %s, want a new run", res.status, res.body)
		}
	})
	t.Run("keys are scoped by the configured header", func(t *testing.T) {
		srv, _, _ := idempotentApp(t, open, countingHandler(0, 201, false), host.Options{
			Idempotency: config.Idempotency{ScopeHeader: "X-Client"}})
		a := post(t, srv, `{}`, "Idempotency-Key", "k", "X-Client", "alice")
		b := post(t, srv, `{}`, "Idempotency-Key", "k", "X-Client", "bob")
		a2 := post(t, srv, `{}`, "Idempotency-Key", "k", "X-Client", "alice")
		if a.body != `{"run":1}` || b.body != `{"run":2}` || a2.body != `{"run":1}` || a2.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("alice %s, bob %s, alice again %s: want one run per client", a.body, b.body, a2.body)
		}
	})
	t.Run("an unreachable store answers 503 and runs nothing", func(t *testing.T) {
		down := downStore{storage.NewMemory(storage.MemoryOptions{})}
		srv, logs := newApp(t).wat("server/api/orders.post.wasm", countingHandler(0, 201, false)).
			serve(host.Options{Store: down})
		res := post(t, srv, `{}`, "Idempotency-Key", "k")
		if res.status != 503 || res.header.Get("Retry-After") == "" {
			t.Fatalf("status %d %v %s, want 503 with Retry-After", res.status, res.header, res.body)
		}
		if code := problemCode(t, res); code != "IDEMPOTENCY_STORE_UNAVAILABLE" {
			t.Errorf("code %s", code)
		}
		if !strings.Contains(logs.String(), "the idempotency store failed") || !strings.Contains(logs.String(), "connection refused") {
			t.Errorf("the log does not say why:\n%s", logs)
		}
	})
}

// downStore is a store whose idempotency half cannot be reached.
type downStore struct{ storage.Store }

var errDown = fmt.Errorf("%w: dial tcp 127.0.0.1:6379: connection refused", storage.ErrUnavailable)

func (downStore) Claim(context.Context, string, string, time.Duration, storage.Client) (storage.Claim, error) {
	return storage.Claim{}, errDown
}

func (downStore) Complete(context.Context, string, string, storage.Answer, time.Duration) error {
	return errDown
}

func (downStore) Release(context.Context, string, string) error { return errDown }
