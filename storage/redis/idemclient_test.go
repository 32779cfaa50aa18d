package redis_test

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// shareKeys are the Redis keys of client's set and sum in namespace ns.
func shareKeys(ns, client string) (set, sum string) {
	e := strings.NewReplacer("%", "%25", ":", "%3A").Replace(client)
	return "endpoints:" + ns + ":idemclient:" + e, "endpoints:" + ns + ":idemclientbytes:" + e
}

// slack is how many ms a client's set may expire before its record: the
// script takes the score from TIME, then sets the record's PEXPIRE.
const slack = 1000

// expiresAt reads the absolute expiry (PEXPIRETIME, ms) of each key in one
// script, so that no time passes between them: -2 for a key that does not
// exist, -1 for one without expiry.
func expiresAt(t *testing.T, raw *goredis.Client, keys ...string) []int64 {
	t.Helper()
	got, err := raw.Eval(t.Context(), `local r = {} for i, k in ipairs(KEYS) do r[i] = redis.call('PEXPIRETIME', k) end return r`, keys).Int64Slice()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestClientShareExpiresWithItsLastRecord checks, after each step, that
// the client's set and sum expire when its last record does (the claim
// and complete scripts raise their expiry with PEXPIREAT GT, and read the
// last score only when a record's expiry moves earlier).
// TestClientSharesLeaveNothingBehind checks that they go with the last.
func TestClientShareExpiresWithItsLastRecord(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s := newStoreIn(t, url, "ns")
	raw := rawClient(t, url)
	client := storage.Client{ID: "sub:alice", MaxBytes: 1 << 20}
	set, sum := shareKeys("ns", client.ID)
	leases := map[string]string{}
	claim := func(key string, lease time.Duration) {
		t.Helper()
		c, err := s.Claim(t.Context(), key, "fp", lease, client)
		if err != nil || !c.Acquired {
			t.Fatalf("Claim(%q): %+v, %v", key, c, err)
		}
		leases[key] = c.Lease
	}
	complete := func(key string, ttl time.Duration) {
		t.Helper()
		if err := s.Complete(t.Context(), key, leases[key], storage.Answer{Status: 201, Body: []byte(`{"id":1}`)}, ttl); err != nil {
			t.Fatalf("Complete(%q): %v", key, err)
		}
	}
	release := func(key string) {
		t.Helper()
		if err := s.Release(t.Context(), key, leases[key]); err != nil {
			t.Fatalf("Release(%q): %v", key, err)
		}
	}
	for _, step := range []struct {
		name string
		do   func()
		last string // the record that expires last; "" for none
	}{
		{"claim a (1 min)", func() { claim("a", time.Minute) }, "a"},
		{"claim b (2 min): later", func() { claim("b", 2*time.Minute) }, "b"},
		{"claim c (30 s): earlier", func() { claim("c", 30*time.Second) }, "b"},
		{"complete b for 10 s: the last record's expiry moves earlier", func() { complete("b", 10*time.Second) }, "a"},
		{"complete a for 1 h: later", func() { complete("a", time.Hour) }, "a"},
		{"claim d (2 h), then release it", func() { claim("d", 2*time.Hour); release("d") }, "a"},
		{"release c", func() { release("c") }, "a"},
		{"complete e for 1 min, whose lease was longer", func() { claim("e", 3*time.Hour); complete("e", time.Minute) }, "a"},
	} {
		step.do()
		records := []string{"endpoints:ns:idem:a", "endpoints:ns:idem:b", "endpoints:ns:idem:c", "endpoints:ns:idem:d", "endpoints:ns:idem:e"}
		got := expiresAt(t, raw, append([]string{set, sum}, records...)...)
		var want int64 = -2
		for _, e := range got[2:] {
			want = max(want, e)
		}
		if want != got[2+strings.Index("abcde", step.last)] {
			t.Fatalf("%s: the records expire at %v, want %s's last", step.name, got[2:], step.last)
		}
		// A record's PEXPIRE runs a moment after its score was taken: the
		// steps' expiries lie seconds apart.
		for i, k := range []string{set, sum} {
			if got[i] > want || got[i] < want-slack {
				t.Errorf("%s: %s expires at %d, want the last record's expiry, %d (within %d ms before it)", step.name, k, got[i], want, slack)
			}
		}
	}
}

// TestClientShareCountsAMemberOnce fakes what Redis may do a millisecond
// before a member's score: expire its record. A new claim of the same key,
// size and client finds the member and must count it once, with the new
// expiry.
func TestClientShareCountsAMemberOnce(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s := newStoreIn(t, url, "ns")
	raw := rawClient(t, url)
	ctx := t.Context()
	client := storage.Client{ID: "addr:192.0.2.1", MaxBytes: 1 << 20}
	set, sum := shareKeys("ns", client.ID)
	if _, err := s.Claim(ctx, "k", "fp", time.Minute, client); err != nil {
		t.Fatal(err)
	}
	once := raw.Get(ctx, sum).Val()
	if err := raw.Del(ctx, "endpoints:ns:idem:k").Err(); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Claim(ctx, "k", "fp", time.Hour, client); err != nil || !c.Acquired {
		t.Fatalf("Claim again: %+v, %v", c, err)
	}
	if n, got := raw.ZCard(ctx, set).Val(), raw.Get(ctx, sum).Val(); n != 1 || got != once {
		t.Errorf("after the second claim the set has %d members and the sum is %s, want 1 and %s", n, got, once)
	}
	e := expiresAt(t, raw, set, sum, "endpoints:ns:idem:k")
	if e[0] != e[1] || e[0] > e[2] || e[0] < e[2]-slack {
		t.Errorf("set and sum expire at %d and %d, want the record's expiry, %d", e[0], e[1], e[2])
	}
}

// TestClientShareRefusalChangesNothing: the claim script counts a record
// before it checks the share, so a refusal must take it back, and leave
// nothing behind for a client that held nothing.
func TestClientShareRefusalChangesNothing(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s := newStoreIn(t, url, "ns")
	raw := rawClient(t, url)
	ctx := t.Context()
	// state is what a refusal must not change: the set's members and
	// scores, the sum, and their expiry.
	state := func(set, sum string) string {
		return fmt.Sprint(raw.ZRangeWithScores(ctx, set, 0, -1).Val(), raw.Get(ctx, sum).Val(), expiresAt(t, raw, set, sum))
	}
	for _, c := range []struct {
		name string
		hold int // records the client holds before the refusal
	}{
		{"a client holding nothing", 0},
		{"a client holding two records", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Room for two records of about 300 bytes, not three.
			client := storage.Client{ID: "addr:" + c.name, MaxBytes: 700}
			if c.hold == 0 {
				client.MaxBytes = 100
			}
			set, sum := shareKeys("ns", client.ID)
			for i := range c.hold {
				if cl, err := s.Claim(ctx, fmt.Sprintf("%s-%d", c.name, i), "fp", time.Minute, client); err != nil || !cl.Acquired {
					t.Fatalf("Claim %d: %+v, %v", i, cl, err)
				}
			}
			before := state(set, sum)
			_, err := s.Claim(ctx, c.name+"-refused", "fp", time.Minute, client)
			var q *storage.QuotaError
			if !errors.As(err, &q) {
				t.Fatalf("Claim past the share: %v, want a QuotaError", err)
			}
			if after := state(set, sum); after != before {
				t.Errorf("the refusal changed the client's share from %s to %s", before, after)
			}
			if c.hold == 0 && raw.Exists(ctx, set, sum).Val() != 0 {
				t.Errorf("the refusal left the client's set or sum behind")
			}
			if raw.Exists(ctx, "endpoints:ns:idem:"+c.name+"-refused").Val() != 0 {
				t.Errorf("the refused record exists")
			}
		})
	}
}

// TestRecordsWithoutAClientCountNowhere: a record claimed for no client
// (storage.Client{}) is in no client's set, not when it is claimed, nor
// when it is completed or released.
func TestRecordsWithoutAClientCountNowhere(t *testing.T) {
	url, _, _ := storagetest.StartRedis(t)
	s := newStoreIn(t, url, "ns")
	raw := rawClient(t, url)
	ctx := t.Context()
	done, err := s.Claim(ctx, "done", "fp", time.Minute, storage.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, "done", done.Lease, storage.Answer{Status: 201}, time.Hour); err != nil {
		t.Fatal(err)
	}
	released, err := s.Claim(ctx, "released", "fp", time.Minute, storage.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, "released", released.Lease); err != nil {
		t.Fatal(err)
	}
	if keys := raw.Keys(ctx, "endpoints:ns:idemclient*").Val(); len(keys) != 0 {
		t.Errorf("records without a client left %q", keys)
	}
}

// BenchmarkIdempotencyScripts measures Claim plus Complete of a new key
// for one client with a share, as the host makes them, the client's
// records piling up as in host's BenchmarkIdempotency. Besides ns/op (two
// round trips included) it reports the server's side, from INFO
// commandstats: redis-µs/op, the time the two scripts ran in
// redis-server, which other processes on the machine skew less, and
// calls/op, the commands they ran.
//
//	go test ./storage/redis -run '^$' -bench IdempotencyScripts -benchtime 5000x
func BenchmarkIdempotencyScripts(b *testing.B) {
	url, _, _ := storagetest.StartRedis(b)
	s := newStoreIn(b, url, "bench")
	raw := rawClient(b, url)
	ctx := b.Context()
	client := storage.Client{ID: "addr:192.0.2.1", MaxBytes: 1 << 30}
	ans := storage.Answer{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}
	if err := raw.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		n++
		key := "k-" + strconv.Itoa(n)
		c, err := s.Claim(ctx, key, "fp", time.Minute, client)
		if err != nil || !c.Acquired {
			b.Fatalf("Claim(%q): %+v, %v", key, c, err)
		}
		if err := s.Complete(ctx, key, c.Lease, ans, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	stats, err := commandStats(raw.Info(ctx, "commandstats").Val())
	if err != nil {
		b.Fatal(err)
	}
	calls := int64(0)
	for name, st := range stats {
		if name != "evalsha" && name != "eval" && !strings.HasPrefix(name, "config") {
			calls += st.calls
		}
	}
	b.ReportMetric(float64(stats["evalsha"].usec+stats["eval"].usec)/float64(n), "redis-µs/op")
	b.ReportMetric(float64(calls)/float64(n), "calls/op")
}

// commandStat is one command's line of INFO commandstats.
type commandStat struct{ calls, usec int64 }

// commandStats parses INFO commandstats: lines such as
// "cmdstat_zadd:calls=10,usec=12,usec_per_call=1.20,...".
func commandStats(info string) (map[string]commandStat, error) {
	stats := map[string]commandStat{}
	for _, line := range strings.Split(info, "\n") {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var st commandStat
		for _, f := range strings.Split(fields, ",") {
			k, v, _ := strings.Cut(f, "=")
			var err error
			switch k {
			case "calls":
				st.calls, err = strconv.ParseInt(v, 10, 64)
			case "usec":
				st.usec, err = strconv.ParseInt(v, 10, 64)
			}
			if err != nil {
				return nil, fmt.Errorf("INFO commandstats line %q: %s: %w", line, k, err)
			}
		}
		stats[strings.TrimPrefix(name, "cmdstat_")] = st
	}
	return stats, nil
}
