package redis_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/wasmendpoints/endpoints/internal/poll"
	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/redis"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

var namespaces atomic.Int64

// waitFor calls try at once, then at every tick of a 10 ms ticker, until it
// returns nil or d has passed, and returns its last error: the tests wait
// with it for what Redis does in its own time (coming back, expiring a
// key), never for a fixed time.
func waitFor(d time.Duration, try func() error) error {
	return poll.UntilNil(d, try)
}

// newStore returns a Store on url in a namespace of its own, closed when t
// ends.
func newStore(t testing.TB, url string) *redis.Store {
	t.Helper()
	return newStoreIn(t, url, "test"+strconv.FormatInt(namespaces.Add(1), 10))
}

// newStoreIn returns a Store on url in namespace, closed when t ends: for
// a test that reads the store's keys by name.
func newStoreIn(t testing.TB, url, namespace string) *redis.Store {
	t.Helper()
	s, err := redis.New(url, namespace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRedis(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := redis.New(url, "conformance"+strconv.FormatInt(namespaces.Add(1), 10))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestRedisOutage(t *testing.T) {
	url, stop, restart := storagetest.StartRedis(t)
	s := newStore(t, url)
	ctx := t.Context()
	if err := s.Set(ctx, "app", "k", []byte("v"), 0); err != nil {
		t.Fatalf("Set before the outage: %v", err)
	}
	held, err := s.Claim(ctx, "held", "fp", time.Minute, storage.Client{})
	if err != nil || !held.Acquired {
		t.Fatalf("Claim before the outage = %+v, %v; want acquired", held, err)
	}
	calls := []struct {
		method string
		call   func() error
	}{
		{"Ping", func() error { return s.Ping(ctx) }},
		{"Claim", func() error { _, err := s.Claim(ctx, "k", "fp", time.Minute, storage.Client{}); return err }},
		{"Complete", func() error {
			return s.Complete(ctx, "held", held.Lease, storage.Answer{Status: 201}, time.Hour)
		}},
		{"Release", func() error { return s.Release(ctx, "held", held.Lease) }},
		{"Get", func() error { _, _, err := s.Get(ctx, "app", "k"); return err }},
		{"Set", func() error { return s.Set(ctx, "app", "k", []byte("v"), 0) }},
		{"Delete", func() error { _, err := s.Delete(ctx, "app", "k"); return err }},
		{"Incr", func() error { _, err := s.Incr(ctx, "app", "n", 1); return err }},
		{"List", func() error { _, err := s.List(ctx, "app", "", "", 10); return err }},
	}
	stop()
	for _, c := range calls {
		t.Run("down/"+c.method, func(t *testing.T) {
			start := time.Now()
			err := c.call()
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("%s took %v with the server down, want under 2 s", c.method, took)
			}
			if !errors.Is(err, storage.ErrUnavailable) {
				t.Fatalf("%s with the server down: got error %v, want ErrUnavailable", c.method, err)
			}
			if addr := strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0"); !strings.Contains(err.Error(), addr) {
				t.Errorf("error %q does not name the server", err)
			}
		})
	}
	restart()
	start := time.Now()
	if err := waitFor(5*time.Second, func() error { return s.Ping(ctx) }); err != nil {
		t.Fatalf("the same Store still fails 5 s after the server returned: %v", err)
	}
	t.Logf("the Store answered %v after the server returned", time.Since(start))
	// The server came back empty (no persistence): the held key is free.
	for _, c := range calls {
		t.Run("up/"+c.method, func(t *testing.T) {
			if err := c.call(); err != nil && !errors.Is(err, storage.ErrLeaseLost) {
				t.Errorf("%s after the server returned: %v", c.method, err)
			}
		})
	}
}

// TestRedisRestartWhileIdle checks that a restart between requests costs
// no error: the pool drops its dead connections before using them.
func TestRedisRestartWhileIdle(t *testing.T) {
	url, _, restart := storagetest.StartRedis(t)
	s := newStore(t, url)
	for round := range 3 {
		storagetest.Hammer(t, 20, func(int) (int64, error) { return s.Incr(t.Context(), "app", "n", 1) })
		restart()
		if _, err := s.Incr(t.Context(), "app", "n", 1); err != nil {
			t.Errorf("round %d: first call after the restart: %v", round, err)
		}
	}
}

func TestRedisTwoHostsClaimOnce(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	var hosts [2]*redis.Store
	for i := range hosts {
		s, err := redis.New(url, "shared")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		hosts[i] = s
	}
	claims := storagetest.Hammer(t, 200, func(i int) (storage.Claim, error) {
		return hosts[i%2].Claim(t.Context(), "order-42", "fp", time.Minute, storage.Client{})
	})
	acquired := 0
	for _, c := range claims {
		if c.Acquired {
			acquired++
		}
	}
	if acquired != 1 || len(claims) != 200 {
		t.Errorf("%d of %d claims over two stores acquired the key, want exactly 1 of 200", acquired, len(claims))
	}
}

func TestNew(t *testing.T) {
	for _, c := range []struct {
		name, url, namespace string
		want                 []string // in the error
		notWant              string
	}{
		{"not a redis URL", "http://127.0.0.1:6379", "ns", []string{`"http://127.0.0.1:6379"`, "redis://127.0.0.1:6379/0"}, ""},
		{"bad database", "redis://127.0.0.1:6379/x", "ns", []string{`"redis://127.0.0.1:6379/x"`}, ""},
		{"password is hidden", "redis://user:s3cret@127.0.0.1:6379/0?bogus=1", "ns", []string{"bogus", "user:xxxxx@"}, "s3cret"},
		// Passwords Go's URL parser fails on: a bad escape, a '#' or a
		// '/' (read as the end of the host).
		{"a password with a bad escape is hidden", "redis://user:s3cretzz%zz@127.0.0.1:6379/0", "ns", []string{"xxxxx@127.0.0.1:6379", "percent-encode"}, "zz"},
		{"a password with a hash is hidden", "redis://:s3cret#x@127.0.0.1:6379/0", "ns", []string{"xxxxx@127.0.0.1:6379", "percent-encode"}, "s3cret"},
		{"a password with a slash is hidden", "redis://:s3c/ret@127.0.0.1:6379/0", "ns", []string{"xxxxx@127.0.0.1:6379"}, "s3c"},
		{"empty namespace", "redis://127.0.0.1:6379/0", "", []string{"empty namespace"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := redis.New(c.url, c.namespace)
			if err == nil {
				s.Close()
				t.Fatalf("New(%q, %q): got no error, want one", c.url, c.namespace)
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if c.notWant != "" && strings.Contains(err.Error(), c.notWant) {
				t.Errorf("error %q contains %q", err, c.notWant)
			}
		})
	}
}

// TestNewRefusesUserInfoGoMisreads: a password holding a '#', '?' or '/'
// that Go's URL parser (and go-redis's) does not fail on, but reads as a
// host and port, a fragment, a query or a path, is refused with what to
// percent-encode, and no part of it (nor the user name) is in the error.
// redis://u:4321#zz@... parsed as host "u", port 4321: New accepted it,
// and errors named the host made of the password.
func TestNewRefusesUserInfoGoMisreads(t *testing.T) {
	for _, c := range []struct {
		name, url, want string
		secret          []string
	}{
		{"a hash after a port-like password", "redis://u:4321#zz@127.0.0.1:6379/0", "it has a '#' in it: percent-encode its password (# is %23)", []string{"4321", "zz", "u:"}},
		{"a hash in a password holding an at sign", "redis://u:pq@rs#zz@127.0.0.1:6379/0", "it has a '#' in it", []string{"pq", "rs", "zz"}},
		{"a question mark after a port-like password", "redis://u:4321?zz@127.0.0.1:6379/0", "percent-encode a '/' or '?' in its user name or password", []string{"4321", "zz", "u:"}},
		{"a slash in the user name", "redis://ab/cd:pw@127.0.0.1:6379/0", "percent-encode a '/' or '?'", []string{"ab", "cd", "pw"}},
		{"a hash in a unix socket's password", "unix://u:pq#zz@/run/redis.sock?db=0", "it has a '#' in it", []string{"pq", "zz"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := redis.New(c.url, "ns")
			if err == nil {
				s.Close()
				t.Fatalf("New(%q): got no error, want one saying %q", c.url, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			for _, secret := range c.secret {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q holds %q, part of the user info", err, secret)
				}
			}
		})
	}
	// What stays accepted: a percent-encoded password, and a socket path.
	for _, ok := range []string{"redis://u:4321%23zz@127.0.0.1:6379/0", "redis://u:a%2Fb%3Fc@127.0.0.1:6379/0", "unix://u:pw@/run/redis.sock?db=0", "unix:///run/redis.sock?db=0"} {
		s, err := redis.New(ok, "ns")
		if err != nil {
			t.Errorf("New(%q): %v, want a Store", ok, err)
			continue
		}
		s.Close()
	}
}

func TestNewDoesNotConnect(t *testing.T) {
	url, stop, _ := storagetest.StartRedis(t)
	stop()
	s, err := redis.New(url, "ns")
	if err != nil {
		t.Fatalf("New with the server down: %v, want a Store that answers ErrUnavailable", err)
	}
	defer s.Close()
	if err := s.Ping(t.Context()); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("Ping with the server down: got error %v, want ErrUnavailable", err)
	}
}

func TestClosedStore(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s, err := redis.New(url, "ns")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, _, err := s.Get(t.Context(), "app", "k"); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("Get after Close: got error %v, want ErrUnavailable", err)
	}
}

// TestKeyLayout checks the Redis keys against the package documentation,
// with a client of its own.
func TestKeyLayout(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s, err := redis.New(url, "prod:eu")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := rawClient(t, url)
	ctx := t.Context()

	if _, err := s.Claim(ctx, "abc", "fp", 10*time.Second, storage.Client{ID: "addr:192.0.2.1", MaxBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "shop:1", "user:7", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key, typ  string
		ttlAtMost time.Duration // 0: no expiry
	}{
		{"endpoints:prod%3Aeu:idem:abc", "hash", 10 * time.Second},
		{"endpoints:prod%3Aeu:idemclient:addr%3A192.0.2.1", "zset", 10 * time.Second},
		{"endpoints:prod%3Aeu:idemclientbytes:addr%3A192.0.2.1", "string", 10 * time.Second},
		{"endpoints:prod%3Aeu:kv:shop%3A1:user:7", "string", 0},
		{"endpoints:prod%3Aeu:kvindex:shop%3A1", "zset", 0},
	} {
		t.Run(c.key, func(t *testing.T) {
			if got := raw.Type(ctx, c.key).Val(); got != c.typ {
				t.Errorf("TYPE = %q, want %q", got, c.typ)
			}
			ttl := raw.PTTL(ctx, c.key).Val()
			if c.ttlAtMost == 0 && ttl != -1 {
				t.Errorf("PTTL = %v, want none (-1)", ttl)
			}
			if c.ttlAtMost > 0 && (ttl <= 0 || ttl > c.ttlAtMost) {
				t.Errorf("PTTL = %v, want in (0, %v]", ttl, c.ttlAtMost)
			}
		})
	}
}

// TestClientSharesLeaveNothingBehind checks that a client's share of the
// Idempotency-Key records (its set and sum) goes with its last record:
// deleted when it is released, expired when it expires, and moved with
// its expiry when it is completed.
func TestClientSharesLeaveNothingBehind(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s, err := redis.New(url, "ns")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := rawClient(t, url)
	ctx := t.Context()
	client := storage.Client{ID: "sub:alice", MaxBytes: 1 << 20}
	set, sum := "endpoints:ns:idemclient:sub%3Aalice", "endpoints:ns:idemclientbytes:sub%3Aalice"
	left := func() int64 { return raw.Exists(ctx, set, sum).Val() }

	released, err := s.Claim(ctx, "released", "fp", time.Minute, client)
	if err != nil || !released.Acquired {
		t.Fatalf("Claim: %+v, %v", released, err)
	}
	if n := left(); n != 2 {
		t.Fatalf("%d of the client's set and sum exist while it holds a record, want 2", n)
	}
	if err := s.Release(ctx, "released", released.Lease); err != nil {
		t.Fatal(err)
	}
	if n := left(); n != 0 {
		t.Errorf("%d of the client's set and sum left after its only record was released, want 0", n)
	}

	done, err := s.Claim(ctx, "done", "fp", time.Minute, client)
	if err != nil || !done.Acquired {
		t.Fatalf("Claim: %+v, %v", done, err)
	}
	if err := s.Complete(ctx, "done", done.Lease, storage.Answer{Status: 201}, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{set, sum} {
		if ttl := raw.PTTL(ctx, k).Val(); ttl <= 0 || ttl > 100*time.Millisecond {
			t.Errorf("PTTL %s = %v once its only record was completed for 100ms, want in (0, 100ms]", k, ttl)
		}
	}
	if !poll.Until(5*time.Second, func() bool { return left() == 0 }) {
		t.Fatal("the client's set and sum outlived its last record by 5s")
	}
}

// TestListDropsExpiredKeysFromTheIndex checks that the index does not keep
// keys whose values expired once a List has met them.
func TestListDropsExpiredKeysFromTheIndex(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s, err := redis.New(url, "ns")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := rawClient(t, url)
	ctx := t.Context()
	for i := range 10 {
		ttl := time.Duration(0)
		if i%2 == 0 {
			ttl = 50 * time.Millisecond
		}
		if err := s.Set(ctx, "app", "k"+strconv.Itoa(i), []byte("v"), ttl); err != nil {
			t.Fatal(err)
		}
	}
	// Wait until Redis has expired the values (EXISTS, which List asks
	// too, expires them if its own sweep has not yet); the index still
	// lists them. k1, without a TTL, stays: the keys are named right.
	expired := []string{"endpoints:ns:kv:app:k0", "endpoints:ns:kv:app:k2", "endpoints:ns:kv:app:k4", "endpoints:ns:kv:app:k6", "endpoints:ns:kv:app:k8"}
	if err := waitFor(5*time.Second, func() error {
		if n, err := raw.Exists(ctx, expired...).Result(); err != nil || n != 0 {
			return fmt.Errorf("%d of the values with a 50 ms TTL remain (%v)", n, err)
		}
		if n, err := raw.Exists(ctx, "endpoints:ns:kv:app:k1").Result(); err != nil || n != 1 {
			return fmt.Errorf("the value of k1, without a TTL, is not at endpoints:ns:kv:app:k1 (%d, %v)", n, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	keys, err := s.List(ctx, "app", "", "", 3)
	if err != nil || strings.Join(keys, ",") != "k1,k3,k5" {
		t.Fatalf("List = %q, %v; want [k1 k3 k5]", keys, err)
	}
	// The List read k0-k5 of the index and dropped the three expired among
	// them; the script that did so swept k6 and k8 too.
	if got := raw.ZCard(ctx, "endpoints:ns:kvindex:app").Val(); got != 5 {
		t.Errorf("index holds %d keys, want 5", got)
	}
}

// TestExpiredKeysLeaveTheIndex checks that keys with a TTL leave the index
// and give their bytes back to the quota without a List (issue 23, item
// 8): once they expire, the next write drops them. It fails on the store
// whose index kept them until a List met them.
func TestExpiredKeysLeaveTheIndex(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s, err := redis.New(url, "ns")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := rawClient(t, url)
	ctx := t.Context()
	var values []string
	for i := range 50 {
		key := "session/" + strconv.Itoa(i)
		if err := s.Set(ctx, "app", key, []byte("v"), 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		values = append(values, "endpoints:ns:kv:app:"+key)
	}
	if err := waitFor(5*time.Second, func() error {
		if n, err := raw.Exists(ctx, values...).Result(); err != nil || n != 0 {
			return fmt.Errorf("%d of the values with a 20 ms TTL remain (%v)", n, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "app", "kept", []byte("value"), 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		want int64
	}{
		{"endpoints:ns:kvindex:app", 1},
		{"endpoints:ns:kvttl:app", 0},
		{"endpoints:ns:kvttlsize:app", 0},
	} {
		var got int64
		switch raw.Type(ctx, c.key).Val() {
		case "zset":
			got = raw.ZCard(ctx, c.key).Val()
		case "hash":
			got = raw.HLen(ctx, c.key).Val()
		}
		if got != c.want {
			t.Errorf("%s holds %d members, want %d", c.key, got, c.want)
		}
	}
	usage := raw.HGetAll(ctx, "endpoints:ns:kvusage").Val()
	if usage["keys"] != "1" || usage["bytes"] != strconv.Itoa(len("kept")+len("value")) {
		t.Errorf("kvusage = %v, want keys 1, bytes %d", usage, len("kept")+len("value"))
	}
}

func TestQuota(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	ctx := t.Context()
	open := func(t *testing.T, query string) *redis.Store {
		t.Helper()
		s, err := redis.New(url+"?"+query, "quota-"+strings.NewReplacer("=", "", "&", "").Replace(query))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	t.Run("keys", func(t *testing.T) {
		s := open(t, "kv_max_keys=3")
		for _, k := range []string{"a", "b", "c"} {
			if err := s.Set(ctx, "app", k, []byte("v"), 0); err != nil {
				t.Fatal(err)
			}
		}
		err := s.Set(ctx, "other", "d", []byte("v"), 0)
		if !errors.Is(err, storage.ErrFull) || !strings.Contains(err.Error(), "quota of 3 keys") {
			t.Errorf("a fourth key, in another namespace of the app: %v, want ErrFull naming the quota", err)
		}
		if _, err := s.Incr(ctx, "app", "n", 1); !errors.Is(err, storage.ErrFull) {
			t.Errorf("Incr of a fourth key: %v, want ErrFull", err)
		}
		if err := s.Set(ctx, "app", "a", []byte("again"), 0); err != nil {
			t.Errorf("overwriting a key: %v", err)
		}
		if ok, err := s.Delete(ctx, "app", "b"); !ok || err != nil {
			t.Fatalf("Delete = %v, %v", ok, err)
		}
		if err := s.Set(ctx, "app", "d", []byte("v"), 0); err != nil {
			t.Errorf("a key after a delete: %v", err)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		s := open(t, "kv_max_bytes=100")
		if err := s.Set(ctx, "app", "k", make([]byte, 90), 0); err != nil { // 91
			t.Fatal(err)
		}
		if err := s.Set(ctx, "app", "j", make([]byte, 9), 0); !errors.Is(err, storage.ErrFull) {
			t.Errorf("10 more bytes: %v, want ErrFull", err)
		}
		if err := s.Set(ctx, "app", "k", make([]byte, 99), 0); err != nil {
			t.Errorf("a value that fits exactly: %v", err)
		}
		if v, ok, err := s.Get(ctx, "app", "k"); err != nil || !ok || len(v) != 99 {
			t.Errorf("Get = %d bytes, %v, %v; want 99", len(v), ok, err)
		}
	})
	t.Run("bad parameter", func(t *testing.T) {
		if _, err := redis.New(url+"?kv_max_keys=many", "x"); err == nil || !strings.Contains(err.Error(), `kv_max_keys="many": want a positive integer`) {
			t.Errorf("New: %v, want an error naming kv_max_keys", err)
		}
	})
}

func rawClient(t testing.TB, url string) *goredis.Client {
	t.Helper()
	opts, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

func BenchmarkClaimComplete(b *testing.B) {
	url, _, _ := storagetest.StartRedis(b)
	s, err := redis.New(url, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storagetest.BenchClaimComplete(b, s)
}

func ExampleNew() {
	store, err := redis.New("redis://127.0.0.1:6379/0", "shop")
	if err != nil {
		panic(err) // only a malformed URL or namespace fails here
	}
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := store.Ping(ctx); err != nil {
		// The host starts anyway and answers 503 until Redis returns.
		log.Print(err)
	}
}

// TestRedisRateLimitIsShared gives two stores on one server, as two hosts
// would have, one bucket.
func TestRedisRateLimitIsShared(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	one, err := redis.New(url, "shared")
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	two, err := redis.New(url, "shared")
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	rate := storage.Rate{Limit: 4, Window: time.Hour}
	var allowed []bool
	for i := range 6 {
		s := one
		if i%2 == 1 {
			s = two
		}
		d, err := s.Take(t.Context(), "client", rate)
		if err != nil {
			t.Fatal(err)
		}
		allowed = append(allowed, d.Allowed)
	}
	if want := []bool{true, true, true, true, false, false}; !slices.Equal(allowed, want) {
		t.Errorf("takes alternating between two stores: %v, want %v", allowed, want)
	}
}

// TestPingUnderAnACLWithoutINFO: a deployment whose Redis user may not run
// INFO (an ACL that denies @dangerous, as hardening guides advise, or a
// managed service that hides it) still pings, and its store works: Ping
// cannot read the server's version then, and says nothing of it, as for
// a proxy that does not say. It failed every Ping with NOPERM, so the
// host never became ready on a server its scripts run on.
func TestPingUnderAnACLWithoutINFO(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	raw := rawClient(t, url)
	if err := raw.Do(t.Context(), "ACL", "SETUSER", "app", "on", ">secret-app-password", "~*", "&*", "+@all", "-@dangerous").Err(); err != nil {
		t.Fatal(err)
	}
	userURL := strings.Replace(url, "redis://", "redis://app:secret-app-password@", 1)
	s, err := redis.New(userURL, "ns")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping as a user without INFO: %v, want nil", err)
	}
	c, err := s.Claim(t.Context(), "k", "fp", time.Minute, storage.Client{ID: "sub:alice", MaxBytes: 1 << 20})
	if err != nil || !c.Acquired {
		t.Fatalf("Claim as a user without INFO: %+v, %v", c, err)
	}
	if err := s.Complete(t.Context(), "k", c.Lease, storage.Answer{Status: 201}, time.Minute); err != nil {
		t.Fatalf("Complete as a user without INFO: %v", err)
	}
}
