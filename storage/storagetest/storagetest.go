// Package storagetest checks that a [storage.Store] does what package storage
// documents, the way [testing/slogtest] checks a [log/slog.Handler]: any backend (the
// built-in ones, or an embedder's own passed through host.Options.Store)
// runs the same suite.
//
//	func TestMyStore(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Store {
//			return mystore.New(...)
//		})
//	}
//
// [Run] is the suite; [Hammer] releases many goroutines at once, as its
// concurrency cases do; [BenchClaimComplete] measures a store's part of an
// idempotent request; [StartRedis] starts a throwaway redis-server for
// tests.
package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

// Durations the suite uses. Expiry is tested with real time: short is the
// lease or TTL that must run out, and the suite sleeps pause before it
// looks again. long is a lease that must not run out during a test.
const (
	short = 150 * time.Millisecond
	pause = 250 * time.Millisecond
	long  = time.Minute
)

// Run runs the conformance suite as subtests of t, in parallel. newStore
// must return a new, empty store each time it is called (a fresh namespace
// on a shared server is fine); Run closes it when the subtest ends.
//
// # Notes
//
//   - Expiry is checked with real time, with leases and TTLs of 150 ms, so
//     the store must honor durations to about 100 ms; the whole suite takes
//     well under a second plus the store's own latency.
//   - The concurrency cases release 100 goroutines at once on one key.
func Run(t *testing.T, newStore func(t *testing.T) storage.Store) {
	open := func(t *testing.T) storage.Store {
		t.Helper()
		t.Parallel()
		s := newStore(t)
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	}
	t.Run("Idempotency", func(t *testing.T) {
		for _, c := range idempotencyCases {
			t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
		}
	})
	t.Run("IdempotencyClientQuota", func(t *testing.T) {
		for _, c := range quotaCases {
			t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
		}
	})
	t.Run("KV", func(t *testing.T) {
		for _, c := range kvCases {
			t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
		}
		t.Run("list", func(t *testing.T) { testList(t, open(t)) })
	})
	t.Run("Pinger", func(t *testing.T) {
		s := open(t)
		p, ok := s.(storage.Pinger)
		if !ok {
			t.Skipf("%T does not implement storage.Pinger", s)
		}
		if err := p.Ping(t.Context()); err != nil {
			t.Errorf("Ping of a store that answers: %v, want nil", err)
		}
	})
	t.Run("RateLimiter", func(t *testing.T) {
		for _, c := range rateLimitCases {
			t.Run(c.name, func(t *testing.T) {
				s := open(t)
				rl, ok := s.(storage.RateLimiter)
				if !ok {
					t.Skipf("%T does not implement storage.RateLimiter", s)
				}
				c.run(t, rl)
			})
		}
	})
}

// rateLimitCases check a store's token buckets (storage.RateLimiter).
var rateLimitCases = []struct {
	name string
	run  func(t *testing.T, rl storage.RateLimiter)
}{
	{"a burst, then refusals that say when to retry", func(t *testing.T, rl storage.RateLimiter) {
		rate := storage.Rate{Limit: 3, Window: time.Hour}
		for i := range 3 {
			d := take(t, rl, "burst", rate)
			if !d.Allowed || d.Remaining != int64(2-i) {
				t.Fatalf("take %d: %+v, want allowed with %d left", i+1, d, 2-i)
			}
		}
		d := take(t, rl, "burst", rate)
		// A token comes back every 20 minutes; the first went a moment ago.
		if d.Allowed || d.Remaining != 0 || d.RetryAfter < 19*time.Minute || d.RetryAfter > 20*time.Minute || d.Reset < 59*time.Minute || d.Reset > time.Hour {
			t.Errorf("take 4: %+v, want refused, retry in about 20m, full in about 1h", d)
		}
	}},
	{"the bucket refills with time", func(t *testing.T, rl storage.RateLimiter) {
		rate := storage.Rate{Limit: 20, Window: time.Second, Burst: 1}
		if d := take(t, rl, "refill", rate); !d.Allowed {
			t.Fatalf("first take: %+v", d)
		}
		d := take(t, rl, "refill", rate)
		if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 50*time.Millisecond {
			t.Fatalf("second take: %+v, want refused, retry within 50ms", d)
		}
		// Taking again until a token is back: refused takes cost nothing.
		deadline := time.Now().Add(2 * time.Second)
		for !take(t, rl, "refill", rate).Allowed {
			if time.Now().After(deadline) {
				t.Fatal("no token came back within 2s at 20 a second")
			}
			runtime.Gosched()
		}
	}},
	{"buckets are per key", func(t *testing.T, rl storage.RateLimiter) {
		rate := storage.Rate{Limit: 1, Window: time.Hour}
		if !take(t, rl, "a", rate).Allowed || !take(t, rl, "b", rate).Allowed || take(t, rl, "a", rate).Allowed {
			t.Error("want one token for a, one for b, none left for a")
		}
	}},
	{"concurrent takes never over-admit", func(t *testing.T, rl storage.RateLimiter) {
		rate := storage.Rate{Limit: 10, Window: time.Hour}
		ds := Hammer(t, 100, func(int) (storage.Decision, error) { return rl.Take(t.Context(), "hammer", rate) })
		allowed := 0
		for _, d := range ds {
			if d.Allowed {
				allowed++
			}
		}
		if allowed != 10 {
			t.Errorf("%d of 100 concurrent takes allowed, want exactly 10", allowed)
		}
	}},
	{"a rate that makes no bucket is an error", func(t *testing.T, rl storage.RateLimiter) {
		if _, err := rl.Take(t.Context(), "bad", storage.Rate{Limit: 0, Window: time.Second}); err == nil {
			t.Error("Take with Limit 0: no error")
		}
	}},
}

func take(t *testing.T, rl storage.RateLimiter, key string, rate storage.Rate) storage.Decision {
	t.Helper()
	d, err := rl.Take(t.Context(), key, rate)
	if err != nil {
		t.Fatalf("Take(%q): %v", key, err)
	}
	return d
}

// testCase is one behaviour checked on a fresh store.
type testCase struct {
	name string
	run  func(t *testing.T, s storage.Store)
}

// answer is the answer the idempotency cases complete with.
var answer = storage.Answer{
	Status: http.StatusCreated,
	Header: http.Header{"Content-Type": {"application/json"}, "Location": {"/api/orders/7"}},
	Body:   []byte(`{"id":7}` + "\x00\xff"),
}

var idempotencyCases = []testCase{
	{"claim complete replay", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp1", long)
		wantAcquired(t, c)
		if err := s.Complete(t.Context(), "k", c.Lease, answer, long); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		wantCompleted(t, claim(t, s, "k", "fp1", long), "fp1", answer)
	}},
	{"the answer is copied: the caller may reuse what it passed", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp1", long)
		mine := storage.Answer{Status: answer.Status, Header: answer.Header.Clone(), Body: bytes.Clone(answer.Body)}
		complete(t, s, "k", c.Lease, mine, long)
		for k := range mine.Header {
			mine.Header[k][0] = "changed"
		}
		clear(mine.Body)
		wantCompleted(t, claim(t, s, "k", "fp1", long), "fp1", answer)
	}},
	{"completed record keeps its fingerprint", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp1", long)
		complete(t, s, "k", c.Lease, answer, long)
		wantCompleted(t, claim(t, s, "k", "fp2", long), "fp1", answer)
	}},
	{"answer without header or body", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp", long)
		empty := storage.Answer{Status: http.StatusNoContent}
		complete(t, s, "k", c.Lease, empty, long)
		wantCompleted(t, claim(t, s, "k", "fp", long), "fp", empty)
	}},
	{"claim while in flight returns the record", func(t *testing.T, s storage.Store) {
		start := time.Now()
		wantAcquired(t, claim(t, s, "k", "fp1", long))
		got := claim(t, s, "k", "fp2", long)
		wantInFlight(t, got, "fp1")
		if lo, hi := start.Add(long-time.Second), time.Now().Add(long+time.Second); got.Record.LeaseExpires.Before(lo) || got.Record.LeaseExpires.After(hi) {
			t.Errorf("LeaseExpires = %v, want between %v and %v (lease %v from the first claim)", got.Record.LeaseExpires, lo, hi, long)
		}
	}},
	{"keys are independent", func(t *testing.T, s storage.Store) {
		a := claim(t, s, "k1", "fp", long)
		b := claim(t, s, "k2", "fp", long)
		wantAcquired(t, a)
		wantAcquired(t, b)
		if a.Lease == b.Lease {
			t.Errorf("two claims got the same lease %q", a.Lease)
		}
	}},
	{"expired lease makes the key claimable", func(t *testing.T, s storage.Store) {
		first := claim(t, s, "k", "fp1", short)
		wantAcquired(t, first)
		time.Sleep(pause)
		second := claim(t, s, "k", "fp2", long)
		wantAcquired(t, second)
		if second.Lease == first.Lease {
			t.Errorf("second claim got the expired lease %q again", second.Lease)
		}
	}},
	{"complete with a stale lease", func(t *testing.T, s storage.Store) {
		stale := claim(t, s, "k", "fp1", short)
		time.Sleep(pause)
		fresh := claim(t, s, "k", "fp2", long)
		wantAcquired(t, fresh)
		wantLeaseLost(t, "Complete with the expired lease", s.Complete(t.Context(), "k", stale.Lease, answer, long))
		wantInFlight(t, claim(t, s, "k", "fp3", long), "fp2")
		complete(t, s, "k", fresh.Lease, answer, long)
	}},
	{"complete after the lease expired", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp", short)
		time.Sleep(pause)
		wantLeaseLost(t, "Complete with the expired lease", s.Complete(t.Context(), "k", c.Lease, answer, long))
		wantLeaseLost(t, "Release with the expired lease", s.Release(t.Context(), "k", c.Lease))
		wantAcquired(t, claim(t, s, "k", "fp", long))
	}},
	{"complete with a wrong lease", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp", long)
		wantLeaseLost(t, "Complete with another lease", s.Complete(t.Context(), "k", c.Lease+"x", answer, long))
		wantInFlight(t, claim(t, s, "k", "fp", long), "fp")
		complete(t, s, "k", c.Lease, answer, long)
	}},
	{"complete twice", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp", long)
		complete(t, s, "k", c.Lease, answer, long)
		other := storage.Answer{Status: http.StatusOK, Body: []byte("other")}
		wantLeaseLost(t, "second Complete", s.Complete(t.Context(), "k", c.Lease, other, long))
		wantCompleted(t, claim(t, s, "k", "fp", long), "fp", answer)
	}},
	{"complete an unclaimed key", func(t *testing.T, s storage.Store) {
		wantLeaseLost(t, "Complete", s.Complete(t.Context(), "k", "no-such-lease", answer, long))
		wantAcquired(t, claim(t, s, "k", "fp", long))
	}},
	{"release then claim again", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp1", long)
		if err := s.Release(t.Context(), "k", c.Lease); err != nil {
			t.Fatalf("Release: %v", err)
		}
		wantAcquired(t, claim(t, s, "k", "fp2", long))
	}},
	{"release with a stale lease", func(t *testing.T, s storage.Store) {
		stale := claim(t, s, "k", "fp1", short)
		time.Sleep(pause)
		wantAcquired(t, claim(t, s, "k", "fp2", long))
		wantLeaseLost(t, "Release with the expired lease", s.Release(t.Context(), "k", stale.Lease))
		wantInFlight(t, claim(t, s, "k", "fp3", long), "fp2")
	}},
	{"release after complete", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp", long)
		complete(t, s, "k", c.Lease, answer, long)
		wantLeaseLost(t, "Release", s.Release(t.Context(), "k", c.Lease))
		wantCompleted(t, claim(t, s, "k", "fp", long), "fp", answer)
	}},
	{"an empty lease completes and releases nothing", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp", long)
		wantLeaseLost(t, "Complete in flight with lease \"\"", s.Complete(t.Context(), "k", "", answer, long))
		wantLeaseLost(t, "Release in flight with lease \"\"", s.Release(t.Context(), "k", ""))
		complete(t, s, "k", c.Lease, answer, long)
		other := storage.Answer{Status: http.StatusOK, Body: []byte("other")}
		wantLeaseLost(t, "Complete done with lease \"\"", s.Complete(t.Context(), "k", "", other, long))
		wantLeaseLost(t, "Release done with lease \"\"", s.Release(t.Context(), "k", ""))
		wantCompleted(t, claim(t, s, "k", "fp", long), "fp", answer)
	}},
	{"completed record expires after its ttl", func(t *testing.T, s storage.Store) {
		c := claim(t, s, "k", "fp1", long)
		complete(t, s, "k", c.Lease, answer, short)
		wantCompleted(t, claim(t, s, "k", "fp1", long), "fp1", answer)
		time.Sleep(pause)
		wantAcquired(t, claim(t, s, "k", "fp2", long))
	}},
	{"invalid lease and ttl", func(t *testing.T, s storage.Store) {
		if c, err := s.Claim(t.Context(), "k", "fp", 0, storage.Client{}); err == nil || c.Acquired {
			t.Errorf("Claim with lease 0 = %+v, %v; want an error", c, err)
		}
		c := claim(t, s, "k", "fp", long)
		wantAcquired(t, c)
		if err := s.Complete(t.Context(), "k", c.Lease, answer, 0); err == nil {
			t.Errorf("Complete with ttl 0: got no error, want one")
		}
		complete(t, s, "k", c.Lease, answer, long)
	}},
	{"concurrent claims acquire once", func(t *testing.T, s storage.Store) {
		claims := Hammer(t, 100, func(i int) (storage.Claim, error) {
			return s.Claim(t.Context(), "k", "fp", long, storage.Client{})
		})
		acquired := 0
		for i, c := range claims {
			if c.Acquired {
				acquired++
			} else if c.Record.Completed || c.Record.Fingerprint != "fp" {
				t.Errorf("claim %d: got %+v, want acquired or in flight with fingerprint fp", i, c)
			}
		}
		if acquired != 1 {
			t.Errorf("%d of %d concurrent claims acquired the key, want exactly 1", acquired, len(claims))
		}
	}},
}

var kvCases = []testCase{
	{"get absent", func(t *testing.T, s storage.Store) {
		wantValue(t, s, "app", "k", "", false)
	}},
	{"set get overwrite", func(t *testing.T, s storage.Store) {
		set(t, s, "app", "k", "v1\x00\xff", 0)
		wantValue(t, s, "app", "k", "v1\x00\xff", true)
		set(t, s, "app", "k", "v2", 0)
		wantValue(t, s, "app", "k", "v2", true)
	}},
	{"the value is copied: the caller may reuse its slice", func(t *testing.T, s storage.Store) {
		v := []byte("kept")
		if err := s.Set(t.Context(), "app", "k", v, 0); err != nil {
			t.Fatal(err)
		}
		copy(v, "lost")
		wantValue(t, s, "app", "k", "kept", true)
	}},
	{"empty value exists", func(t *testing.T, s storage.Store) {
		set(t, s, "app", "k", "", 0)
		wantValue(t, s, "app", "k", "", true)
	}},
	{"ttl expiry", func(t *testing.T, s storage.Store) {
		set(t, s, "app", "k", "v", short)
		wantValue(t, s, "app", "k", "v", true)
		time.Sleep(pause)
		wantValue(t, s, "app", "k", "", false)
		wantDelete(t, s, "app", "k", false)
		wantIncr(t, s, "app", "k", 2, 2)
	}},
	{"set without ttl clears the ttl", func(t *testing.T, s storage.Store) {
		set(t, s, "app", "k", "v1", short)
		set(t, s, "app", "k", "v2", 0)
		time.Sleep(pause)
		wantValue(t, s, "app", "k", "v2", true)
	}},
	{"delete", func(t *testing.T, s storage.Store) {
		wantDelete(t, s, "app", "k", false)
		set(t, s, "app", "k", "v", 0)
		wantDelete(t, s, "app", "k", true)
		wantValue(t, s, "app", "k", "", false)
		wantDelete(t, s, "app", "k", false)
	}},
	{"incr from absent", func(t *testing.T, s storage.Store) {
		wantIncr(t, s, "app", "n", 5, 5)
		wantIncr(t, s, "app", "n", -7, -2)
		wantValue(t, s, "app", "n", "-2", true)
		wantIncr(t, s, "app", "zero", 0, 0)
		wantValue(t, s, "app", "zero", "0", true)
		wantList(t, s, "app", "", "", 10, []string{"n", "zero"})
	}},
	{"incr an integer", func(t *testing.T, s storage.Store) {
		for _, c := range []struct {
			value string
			delta int64
			want  int64
		}{
			{"41", 1, 42},
			{"-5", 2, -3},
			{"0", -1, -1},
			{"9223372036854775806", 1, 9223372036854775807},
			{"-9223372036854775807", -1, -9223372036854775808},
		} {
			t.Run(c.value, func(t *testing.T) {
				set(t, s, "app", c.value, c.value, 0)
				wantIncr(t, s, "app", c.value, c.delta, c.want)
			})
		}
	}},
	{"incr not an integer", func(t *testing.T, s storage.Store) {
		for _, c := range []struct {
			name, value string
			delta       int64
		}{
			{"letters", "abc", 1},
			{"empty", "", 1},
			{"decimal point", "1.5", 1},
			{"plus sign", "+1", 1},
			{"leading zero", "01", 1},
			{"minus zero", "-0", 1},
			{"leading space", " 1", 1},
			{"trailing space", "1 ", 1},
			{"out of range", "99999999999999999999", 1},
			{"overflow", "9223372036854775807", 1},
			{"underflow", "-9223372036854775808", -1},
		} {
			t.Run(c.name, func(t *testing.T) {
				set(t, s, "app", c.name, c.value, 0)
				n, err := s.Incr(t.Context(), "app", c.name, c.delta)
				if !errors.Is(err, storage.ErrNotInteger) {
					t.Errorf("Incr of %q by %d = %d, %v; want ErrNotInteger", c.value, c.delta, n, err)
				}
				wantValue(t, s, "app", c.name, c.value, true)
			})
		}
	}},
	{"incr keeps the ttl", func(t *testing.T, s storage.Store) {
		set(t, s, "app", "n", "5", short)
		wantIncr(t, s, "app", "n", 1, 6)
		wantValue(t, s, "app", "n", "6", true)
		time.Sleep(pause)
		wantValue(t, s, "app", "n", "", false)
	}},
	{"concurrent incr sums exactly", func(t *testing.T, s storage.Store) {
		results := Hammer(t, 50, func(i int) (int64, error) {
			return s.Incr(t.Context(), "app", "n", int64(i+1))
		})
		if len(results) < 50 {
			return // Hammer reported the errors
		}
		if got := slices.Max(results); got != 50*51/2 {
			t.Errorf("largest result = %d, want %d", got, 50*51/2)
		}
		slices.Sort(results)
		if len(slices.Compact(results)) != 50 {
			t.Errorf("results %v repeat a value, want 50 distinct sums", results)
		}
		wantValue(t, s, "app", "n", "1275", true)
	}},
	{"namespaces are isolated", func(t *testing.T, s storage.Store) {
		set(t, s, "a", "k", "in a", 0)
		wantValue(t, s, "b", "k", "", false)
		wantList(t, s, "b", "", "", 10, nil)
		wantDelete(t, s, "b", "k", false)
		wantIncr(t, s, "b", "k", 1, 1)
		wantValue(t, s, "a", "k", "in a", true)
		// Separators in a namespace must not let two (namespace, key)
		// pairs meet.
		set(t, s, "x:y", "z", "1", 0)
		set(t, s, "x", "y:z", "2", 0)
		wantValue(t, s, "x:y", "z", "1", true)
		wantValue(t, s, "x", "y:z", "2", true)
		wantList(t, s, "x", "", "", 10, []string{"y:z"})
		wantList(t, s, "x:y", "", "", 10, []string{"z"})
	}},
	{"the host's namespace is apart from the app's", func(t *testing.T, s storage.Store) {
		// A guest writes only its app's namespace: no key it can write
		// there (or another app can write in its own) is the host's record.
		host := storage.HostNamespace("app")
		set(t, s, host, "apikeys/1", "host", 0)
		for _, k := range []string{"apikeys/1", "host:apikeys/1", "\x00host:apikeys/1", "\x00host/apikeys/1"} {
			wantValue(t, s, "app", k, "", false)
		}
		wantValue(t, s, "app:host", "apikeys/1", "", false)
		wantList(t, s, "app", "", "", 10, nil)
		set(t, s, "app", "apikeys/1", "guest", 0)
		set(t, s, "app", "\x00host:apikeys/1", "guest", 0)
		wantValue(t, s, host, "apikeys/1", "host", true)
		wantList(t, s, host, "", "", 10, []string{"apikeys/1"})
	}},
	{"list skips expired keys", func(t *testing.T, s storage.Store) {
		set(t, s, "app", "a", "v", short)
		set(t, s, "app", "b", "v", 0)
		set(t, s, "app", "c", "v", short)
		set(t, s, "app", "d", "v", 0)
		set(t, s, "app", "e", "v", 0)
		time.Sleep(pause)
		wantList(t, s, "app", "", "", 2, []string{"b", "d"})
		wantList(t, s, "app", "", "d", 2, []string{"e"})
	}},
}

// listKeys are the keys testList stores, in byte order.
var listKeys = []string{"a", "a/1", "a/10", "a/2", "a\xff", "a\xff\xff", "b", "b/1", "\xff", "\xff\xff"}

func testList(t *testing.T, s storage.Store) {
	for _, k := range []string{"b/1", "a/2", "\xff", "a", "a\xff\xff", "a/10", "b", "a\xff", "\xff\xff", "a/1"} {
		set(t, s, "app", k, "v", 0)
	}
	for _, c := range []struct {
		name, prefix, after string
		limit               int
		want                []string
	}{
		{"all", "", "", 100, listKeys},
		{"prefix", "a/", "", 100, []string{"a/1", "a/10", "a/2"}},
		{"prefix after a key", "a/", "a/1", 100, []string{"a/10", "a/2"}},
		{"prefix after the last key", "a/", "a/2", 100, nil},
		{"after between keys", "", "a/", 3, []string{"a/1", "a/10", "a/2"}},
		{"after before the prefix", "b", "a/2", 100, []string{"b", "b/1"}},
		{"after past every key", "", "\xff\xff", 100, nil},
		{"prefix that is a key", "b", "", 100, []string{"b", "b/1"}},
		{"after equal to the prefix", "b", "b", 100, []string{"b/1"}},
		{"prefix ending in 0xff", "a\xff", "", 100, []string{"a\xff", "a\xff\xff"}},
		{"prefix of only 0xff", "\xff", "", 100, []string{"\xff", "\xff\xff"}},
		{"prefix without keys", "c", "", 100, nil},
		{"limit", "", "", 3, []string{"a", "a/1", "a/10"}},
		{"limit zero", "", "", 0, nil},
		{"other namespace", "", "", 100, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := "app"
			if c.name == "other namespace" {
				ns = "other"
			}
			wantList(t, s, ns, c.prefix, c.after, c.limit, c.want)
		})
	}
	t.Run("paging", func(t *testing.T) {
		var all []string
		after := ""
		for page := 0; ; page++ {
			keys, err := s.List(t.Context(), "app", "", after, 3)
			if err != nil {
				t.Fatalf("List page %d: %v", page, err)
			}
			all = append(all, keys...)
			if len(keys) < 3 {
				break
			}
			if page > len(listKeys) {
				t.Fatalf("paging did not end after %d pages: %q", page, all)
			}
			after = keys[len(keys)-1]
		}
		if !slices.Equal(all, listKeys) {
			t.Errorf("pages of 3 = %q, want %q", all, listKeys)
		}
	})
}

// Hammer calls f(0) ... f(n-1) in n goroutines released at once and returns
// the results in order of i. Errors fail t; the results are then those of
// the calls that succeeded.
func Hammer[T any](t testing.TB, n int, f func(i int) (T, error)) []T {
	t.Helper()
	results := make([]T, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	var ok []T
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d of %d: %v", i, n, err)
			continue
		}
		ok = append(ok, results[i])
	}
	return ok
}

func claim(t *testing.T, s storage.Store, key, fp string, lease time.Duration) storage.Claim {
	t.Helper()
	c, err := s.Claim(t.Context(), key, fp, lease, storage.Client{})
	if err != nil {
		t.Fatalf("Claim(%q, %q, %v): %v", key, fp, lease, err)
	}
	return c
}

func complete(t *testing.T, s storage.Store, key, lease string, a storage.Answer, ttl time.Duration) {
	t.Helper()
	if err := s.Complete(t.Context(), key, lease, a, ttl); err != nil {
		t.Fatalf("Complete(%q): %v", key, err)
	}
}

func wantAcquired(t *testing.T, c storage.Claim) {
	t.Helper()
	if !c.Acquired || c.Lease == "" {
		t.Fatalf("claim = %+v, want acquired with a lease", c)
	}
}

func wantInFlight(t *testing.T, c storage.Claim, fp string) {
	t.Helper()
	if c.Acquired || c.Lease != "" || c.Record.Completed || c.Record.Fingerprint != fp || c.Record.LeaseExpires.Before(time.Now()) {
		t.Fatalf("claim = %+v, want not acquired, in flight, fingerprint %q, lease expiring in the future", c, fp)
	}
}

func wantCompleted(t *testing.T, c storage.Claim, fp string, a storage.Answer) {
	t.Helper()
	if c.Acquired || c.Lease != "" || !c.Record.Completed || c.Record.Fingerprint != fp {
		t.Fatalf("claim = %+v, want not acquired, completed, fingerprint %q", c, fp)
	}
	if got := c.Record.Answer; !sameAnswer(got, a) {
		t.Errorf("replayed answer = %s, want %s", showAnswer(got), showAnswer(a))
	}
}

func wantLeaseLost(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, storage.ErrLeaseLost) {
		t.Fatalf("%s: got error %v, want ErrLeaseLost", what, err)
	}
}

// sameAnswer compares answers, taking a nil and an empty header or body as
// equal.
func sameAnswer(a, b storage.Answer) bool {
	if a.Status != b.Status || !bytes.Equal(a.Body, b.Body) || len(a.Header) != len(b.Header) {
		return false
	}
	for name, values := range a.Header {
		if !slices.Equal(values, b.Header[name]) {
			return false
		}
	}
	return true
}

func showAnswer(a storage.Answer) string {
	return fmt.Sprintf("{%d %v %q}", a.Status, a.Header, a.Body)
}

func set(t *testing.T, s storage.Store, ns, key, value string, ttl time.Duration) {
	t.Helper()
	if err := s.Set(t.Context(), ns, key, []byte(value), ttl); err != nil {
		t.Fatalf("Set(%q, %q): %v", ns, key, err)
	}
}

func wantValue(t *testing.T, s storage.Store, ns, key, want string, wantOK bool) {
	t.Helper()
	got, ok, err := s.Get(t.Context(), ns, key)
	if err != nil {
		t.Fatalf("Get(%q, %q): %v", ns, key, err)
	}
	if ok != wantOK || string(got) != want {
		t.Errorf("Get(%q, %q) = %q, %v; want %q, %v", ns, key, got, ok, want, wantOK)
	}
}

func wantDelete(t *testing.T, s storage.Store, ns, key string, want bool) {
	t.Helper()
	got, err := s.Delete(t.Context(), ns, key)
	if err != nil {
		t.Fatalf("Delete(%q, %q): %v", ns, key, err)
	}
	if got != want {
		t.Errorf("Delete(%q, %q) = %v, want %v", ns, key, got, want)
	}
}

func wantIncr(t *testing.T, s storage.Store, ns, key string, delta, want int64) {
	t.Helper()
	got, err := s.Incr(t.Context(), ns, key, delta)
	if err != nil {
		t.Fatalf("Incr(%q, %q, %d): %v", ns, key, delta, err)
	}
	if got != want {
		t.Errorf("Incr(%q, %q, %d) = %d, want %d", ns, key, delta, got, want)
	}
}

func wantList(t *testing.T, s storage.Store, ns, prefix, after string, limit int, want []string) {
	t.Helper()
	got, err := s.List(t.Context(), ns, prefix, after, limit)
	if err != nil {
		t.Fatalf("List(%q, prefix %q, after %q, %d): %v", ns, prefix, after, limit, err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("List(%q, prefix %q, after %q, %d) = %q, want %q", ns, prefix, after, limit, got, want)
	}
}

// BenchClaimComplete measures one Claim plus one Complete of a new key, the
// store's part of an idempotent request, as sub-benchmarks "serial" (one
// goroutine: the latency) and "parallel" (b.RunParallel: the throughput).
//
//	func BenchmarkClaimComplete(b *testing.B) {
//		storagetest.BenchClaimComplete(b, storage.NewMemory(storage.MemoryOptions{}))
//	}
func BenchClaimComplete(b *testing.B, s storage.Store) {
	// A client with no bound: its share is counted as the host's are.
	benchClient := storage.Client{ID: "addr:192.0.2.1"}
	ans := storage.Answer{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}
	var next atomic.Int64
	op := func() error {
		key := "bench-" + strconv.FormatInt(next.Add(1), 10)
		c, err := s.Claim(b.Context(), key, "fp", long, benchClient)
		if err != nil {
			return err
		}
		if !c.Acquired {
			return fmt.Errorf("claim of new key %q not acquired: %+v", key, c)
		}
		return s.Complete(b.Context(), key, c.Lease, ans, time.Hour)
	}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := op(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
