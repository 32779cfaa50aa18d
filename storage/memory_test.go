package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

func TestMemory(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		return storage.NewMemory(storage.MemoryOptions{})
	})
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newMemory returns a store with the options given, on a fake clock.
func newMemory(t testing.TB, opts storage.MemoryOptions) (*storage.Memory, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	opts.Now = clock.Now
	m := storage.NewMemory(opts)
	t.Cleanup(func() { m.Close() })
	return m, clock
}

// Sizes the store counts, for the keys the tests use: a two-byte key and
// fingerprint, a 32-byte lease, a ten-byte body, a namespace of one byte.
const (
	inFlightSize  int64 = storage.IdemRecordBytes + 8 + 8 + 32
	completedSize int64 = storage.IdemRecordBytes + 8 + 8 + 16
	spaceSize     int64 = storage.KVSpaceBytes + 8
)

// kvSize is what an entry of a key and a value of these lengths counts.
func kvSize(key, value int, ttl bool) int64 {
	n := int64(storage.KVEntryBytes) + storage.AllocBytes(key) + storage.AllocBytes(value)
	if ttl {
		n += storage.KVTTLBytes
	}
	return n
}

var body10 = storage.Answer{Status: http.StatusCreated, Body: []byte("0123456789")}

// complete claims and completes key with body10, kept for ttl.
func complete(t testing.TB, m *storage.Memory, key string, ttl time.Duration) {
	t.Helper()
	c, err := m.Claim(context.Background(), key, "fp", time.Minute, storage.Client{})
	if err != nil || !c.Acquired {
		t.Fatalf("Claim(%q) = %+v, %v; want acquired", key, c, err)
	}
	if err := m.Complete(context.Background(), key, c.Lease, body10, ttl); err != nil {
		t.Fatalf("Complete(%q): %v", key, err)
	}
}

// wantUsed checks the bytes counted against each budget.
func wantUsed(t *testing.T, m *storage.Memory, kv, idem, rate int64) {
	t.Helper()
	gotKV, gotIdem, gotRate := storage.MemoryUsed(m)
	if gotKV != kv || gotIdem != idem || gotRate != rate {
		t.Errorf("bytes in use (kv, idempotency, rate limits) = %d, %d, %d; want %d, %d, %d", gotKV, gotIdem, gotRate, kv, idem, rate)
	}
}

// wantReplay checks that key holds a completed record.
func wantReplay(t *testing.T, m *storage.Memory, key string) {
	t.Helper()
	c, err := m.Claim(t.Context(), key, "fp", time.Minute, storage.Client{})
	if err != nil || c.Acquired || !c.Record.Completed {
		t.Errorf("Claim(%q) = %+v, %v; want the completed record", key, c, err)
	}
}

func TestMemoryBudgets(t *testing.T) {
	for _, c := range []struct {
		name           string
		opts           storage.MemoryOptions
		kv, idem, rate int64
	}{
		{"defaults", storage.MemoryOptions{}, storage.DefaultKVBytes, storage.DefaultIdempotencyBytes, storage.DefaultRateLimitBytes},
		{"shares of MaxBytes", storage.MemoryOptions{MaxBytes: 8 << 20}, 4 << 20, 3 << 20, 1 << 20},
		{"one budget set", storage.MemoryOptions{MaxBytes: 8 << 20, RateLimitBytes: 100}, 4 << 20, 3 << 20, 100},
		{"every budget set", storage.MemoryOptions{KVBytes: 1, IdempotencyBytes: 2, RateLimitBytes: 3}, 1, 2, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := storage.NewMemory(c.opts)
			defer m.Close()
			if kv, idem, rate := storage.MemoryBudgets(m); kv != c.kv || idem != c.idem || rate != c.rate {
				t.Errorf("budgets = %d, %d, %d; want %d, %d, %d", kv, idem, rate, c.kv, c.idem, c.rate)
			}
		})
	}
	if got := storage.DefaultKVBytes + storage.DefaultIdempotencyBytes + storage.DefaultRateLimitBytes; got != storage.DefaultMaxBytes {
		t.Errorf("the default budgets add up to %d, want DefaultMaxBytes %d", got, storage.DefaultMaxBytes)
	}
}

// The tests below that use only MaxBytes (no budget of their own) fail on
// the store that had one budget for everything and evicted completed
// records to make room (issue 23, items 3 and 8).

func TestMemoryNeverEvictsCompletedRecords(t *testing.T) {
	m := storage.NewMemory(storage.MemoryOptions{MaxBytes: 256 << 10})
	defer m.Close()
	ctx := t.Context()
	complete(t, m, "victim", time.Hour)
	// Another client's large answers, kept as long, until the store
	// refuses: it must refuse rather than drop the victim's record.
	big := storage.Answer{Status: http.StatusCreated, Body: bytes.Repeat([]byte("b"), 4<<10)}
	refused := false
	for i := range 1000 {
		key := fmt.Sprintf("flood-%d", i)
		c, err := m.Claim(ctx, key, "fp", time.Minute, storage.Client{})
		if errors.Is(err, storage.ErrFull) {
			refused = true
			break
		}
		if err != nil || !c.Acquired {
			t.Fatalf("Claim(%q) = %+v, %v", key, c, err)
		}
		if err := m.Complete(ctx, key, c.Lease, big, 2*time.Hour); errors.Is(err, storage.ErrFull) {
			refused = true
			break
		} else if err != nil {
			t.Fatalf("Complete(%q): %v", key, err)
		}
	}
	if !refused {
		t.Fatal("1000 answers of 4 KiB fit in a 256 KiB store; want ErrFull before")
	}
	wantReplay(t, m, "victim")
	wantReplay(t, m, "flood-0")
}

func TestMemoryKVCannotStarveRecords(t *testing.T) {
	m := storage.NewMemory(storage.MemoryOptions{MaxBytes: 256 << 10})
	defer m.Close()
	ctx := t.Context()
	complete(t, m, "before", time.Hour)
	full := false
	for i := range 10000 {
		if err := m.Set(ctx, "app", fmt.Sprintf("k%d", i), bytes.Repeat([]byte("v"), 1<<10), 0); errors.Is(err, storage.ErrFull) {
			full = true
			break
		} else if err != nil {
			t.Fatalf("Set: %v", err)
		}
	}
	if !full {
		t.Fatal("10 MiB of values fit in a 256 KiB store; want ErrFull before")
	}
	wantReplay(t, m, "before")
	complete(t, m, "after", time.Hour)
	wantReplay(t, m, "after")
	if d, err := m.Take(ctx, "client", storage.Rate{Limit: 1, Window: time.Minute}); err != nil || !d.Allowed {
		t.Errorf("Take = %+v, %v; want allowed beside a full key-value budget", d, err)
	}
}

func TestMemoryRateLimitFloodLeavesTheStoreUsable(t *testing.T) {
	m, clock := newMemory(t, storage.MemoryOptions{MaxBytes: 1 << 20})
	ctx := t.Context()
	rate := storage.Rate{Limit: 3, Window: time.Minute}
	// ~1,150 requests with a 60 KB header key filled a 64 MiB store for
	// good; here 100 such keys in 1 MiB.
	for i := range 100 {
		key := fmt.Sprintf("hdr:%d:%s", i, strings.Repeat("x", 60<<10))
		if _, err := m.Take(ctx, key, rate); err != nil {
			t.Fatalf("Take of junk key %d: %v; want room made", i, err)
		}
	}
	if d, err := m.Take(ctx, "ip:192.0.2.1", rate); err != nil || !d.Allowed {
		t.Errorf("Take for a real client = %+v, %v; want allowed", d, err)
	}
	complete(t, m, "idem", time.Hour)
	if err := m.Set(ctx, "app", "k", []byte("v"), 0); err != nil {
		t.Errorf("Set after the flood: %v", err)
	}
	// Once the window passed, every bucket is full again: the next Take
	// drops them all, without waiting for the number of buckets to grow.
	clock.Advance(time.Minute)
	if _, err := m.Take(ctx, "ip:192.0.2.1", rate); err != nil {
		t.Fatal(err)
	}
	_, _, used := storage.MemoryUsed(m)
	if want := int64(storage.BucketEntryBytes) + storage.AllocBytes(len("ip:192.0.2.1")); used != want {
		t.Errorf("rate-limit bytes after the window = %d, want %d (one bucket)", used, want)
	}
}

func TestMemoryRateLimitFullDropsTheBucketClosestToFull(t *testing.T) {
	one := int64(storage.BucketEntryBytes) + storage.AllocBytes(8)
	m, clock := newMemory(t, storage.MemoryOptions{RateLimitBytes: 3 * one})
	ctx := t.Context()
	rate := storage.Rate{Limit: 3, Window: time.Minute}
	// The attacker drains its bucket: full again in a minute.
	for range 3 {
		if d, err := m.Take(ctx, "attacker", rate); err != nil || !d.Allowed {
			t.Fatalf("Take = %+v, %v", d, err)
		}
	}
	// Junk keys, each full again 20 s after its take, push each other out:
	// the attacker's bucket is never the closest to full.
	for i := range 10 {
		clock.Advance(time.Second)
		if d, err := m.Take(ctx, fmt.Sprintf("junk%04d", i), rate); err != nil || !d.Allowed {
			t.Fatalf("Take(junk%d) = %+v, %v", i, d, err)
		}
	}
	if d, err := m.Take(ctx, "attacker", rate); err != nil || d.Allowed {
		t.Errorf("attacker's Take after the flood = %+v, %v; want refused (its bucket kept)", d, err)
	}
	wantUsed(t, m, 0, 0, 3*one)
}

func TestMemoryNeverEvictsInFlightRecords(t *testing.T) {
	// Two claims fit within the seven eighths of the budget Claim may use;
	// a third does not.
	m, _ := newMemory(t, storage.MemoryOptions{IdempotencyBytes: 2*inFlightSize + 128})
	for _, key := range []string{"k1", "k2"} {
		if c, err := m.Claim(t.Context(), key, "fp", time.Minute, storage.Client{}); err != nil || !c.Acquired {
			t.Fatalf("Claim(%q) = %+v, %v; want acquired", key, c, err)
		}
	}
	c, err := m.Claim(t.Context(), "k3", "fp", time.Minute, storage.Client{})
	if !errors.Is(err, storage.ErrFull) || c.Acquired {
		t.Errorf("third Claim = %+v, %v; want ErrFull", c, err)
	}
	for _, key := range []string{"k1", "k2"} {
		if c, err := m.Claim(t.Context(), key, "fp", time.Minute, storage.Client{}); err != nil || c.Acquired || c.Record.Completed {
			t.Errorf("Claim(%q) = %+v, %v; want still in flight", key, c, err)
		}
	}
}

func TestMemoryCompletedRecordsRefuseUntilTheyExpire(t *testing.T) {
	m, clock := newMemory(t, storage.MemoryOptions{IdempotencyBytes: 2*completedSize + inFlightSize - 1})
	complete(t, m, "k1", time.Hour)
	complete(t, m, "k2", 2*time.Hour)
	c, err := m.Claim(t.Context(), "k3", "fp", time.Minute, storage.Client{})
	if !errors.Is(err, storage.ErrFull) || c.Acquired {
		t.Fatalf("Claim(k3) = %+v, %v; want ErrFull (no record evicted)", c, err)
	}
	for _, want := range []string{`claim "k3"`, "IdempotencyBytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	wantReplay(t, m, "k1")
	wantReplay(t, m, "k2")
	clock.Advance(time.Hour)
	if c, err := m.Claim(t.Context(), "k3", "fp", time.Minute, storage.Client{}); err != nil || !c.Acquired {
		t.Errorf("Claim(k3) once k1's window ended = %+v, %v; want acquired", c, err)
	}
	wantReplay(t, m, "k2")
}

func TestMemoryClaimLeavesRoomForAnswers(t *testing.T) {
	const budget = 64 << 10
	m, _ := newMemory(t, storage.MemoryOptions{IdempotencyBytes: budget})
	ctx := t.Context()
	inFlight, err := m.Claim(ctx, "in-flight", "fp", time.Minute, storage.Client{})
	if err != nil || !inFlight.Acquired {
		t.Fatalf("Claim = %+v, %v", inFlight, err)
	}
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatal("1000 records fit in 64 KiB; want ErrFull before")
		}
		c, err := m.Claim(ctx, fmt.Sprintf("k%d", i), "fp", time.Minute, storage.Client{})
		if errors.Is(err, storage.ErrFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Complete(ctx, fmt.Sprintf("k%d", i), c.Lease, body10, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	// Claims stopped with an eighth of the budget free: the request in
	// flight stores its answer.
	answer := storage.Answer{Status: http.StatusCreated, Body: bytes.Repeat([]byte("a"), budget/8-1024)}
	if err := m.Complete(ctx, "in-flight", inFlight.Lease, answer, time.Hour); err != nil {
		t.Errorf("Complete of an answer of nearly an eighth of the budget: %v, want stored", err)
	}
}

func TestMemoryAnswerTooBig(t *testing.T) {
	m, _ := newMemory(t, storage.MemoryOptions{IdempotencyBytes: 2 * inFlightSize})
	c, err := m.Claim(t.Context(), "k1", "fp", time.Minute, storage.Client{})
	if err != nil || !c.Acquired {
		t.Fatalf("Claim = %+v, %v; want acquired", c, err)
	}
	big := storage.Answer{Status: http.StatusOK, Body: bytes.Repeat([]byte("b"), 2*int(inFlightSize))}
	if err := m.Complete(t.Context(), "k1", c.Lease, big, time.Hour); !errors.Is(err, storage.ErrFull) {
		t.Errorf("Complete of a body larger than the budget: got error %v, want ErrFull", err)
	}
	wantUsed(t, m, 0, 0, 0)
	if c, err := m.Claim(t.Context(), "k1", "fp", time.Minute, storage.Client{}); err != nil || !c.Acquired {
		t.Errorf("Claim after the failed Complete = %+v, %v; want acquired (claim dropped)", c, err)
	}
}

func TestMemoryKVFull(t *testing.T) {
	v := func(n int) []byte { return bytes.Repeat([]byte("v"), n) }
	first := kvSize(1, 90, false) // "a" = 90 bytes
	budget := spaceSize + first + 16
	for _, c := range []struct {
		name string
		run  func(ctx context.Context, m *storage.Memory) error
	}{
		{"new key", func(ctx context.Context, m *storage.Memory) error {
			return m.Set(ctx, "n", "b", v(1), 0)
		}},
		{"bigger value", func(ctx context.Context, m *storage.Memory) error {
			return m.Set(ctx, "n", "a", v(120), 0)
		}},
		{"value over the budget", func(ctx context.Context, m *storage.Memory) error {
			return m.Set(ctx, "n", "x", v(2000), 0)
		}},
		{"new namespace", func(ctx context.Context, m *storage.Memory) error {
			return m.Set(ctx, "other", "x", nil, 0)
		}},
		{"incr of a new key", func(ctx context.Context, m *storage.Memory) error {
			_, err := m.Incr(ctx, "n", "counter", 1)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newMemory(t, storage.MemoryOptions{KVBytes: budget})
			if err := m.Set(t.Context(), "n", "a", v(90), 0); err != nil {
				t.Fatalf("Set: %v", err)
			}
			if err := c.run(t.Context(), m); !errors.Is(err, storage.ErrFull) {
				t.Errorf("got error %v, want ErrFull", err)
			}
			got, ok, err := m.Get(t.Context(), "n", "a")
			if err != nil || !ok || !bytes.Equal(got, v(90)) {
				t.Errorf("Get(n, a) = %d bytes, %v, %v; want the 90 bytes set first", len(got), ok, err)
			}
			wantUsed(t, m, spaceSize+first, 0, 0)
		})
	}
	t.Run("value that fits exactly", func(t *testing.T) {
		m, _ := newMemory(t, storage.MemoryOptions{KVBytes: budget})
		if err := m.Set(t.Context(), "n", "a", v(90), 0); err != nil {
			t.Fatal(err)
		}
		if err := m.Set(t.Context(), "n", "a", v(106), 0); err != nil {
			t.Errorf("Set of a value that fits exactly: %v", err)
		}
		wantUsed(t, m, budget, 0, 0)
	})
	t.Run("error names the key and the bound", func(t *testing.T) {
		m, _ := newMemory(t, storage.MemoryOptions{KVBytes: budget})
		if err := m.Set(t.Context(), "app", "k", nil, 0); err != nil {
			t.Fatal(err)
		}
		err := m.Set(t.Context(), "app", "big", v(2000), 0)
		for _, want := range []string{`set "big" in "app"`, fmt.Sprintf("%d bytes", kvSize(3, 2000, false)), "KVBytes", fmt.Sprintf("of %d bytes", budget)} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
	})
}

func TestMemoryEvictsExpiredEntries(t *testing.T) {
	for _, c := range []struct {
		name            string
		setup           func(t *testing.T, m *storage.Memory)
		kv, idem        int64
		after           time.Duration
		sweep           func(t *testing.T, m *storage.Memory) error
		kvAfter, after2 int64
	}{
		{"kv entry after its ttl", func(t *testing.T, m *storage.Memory) {
			if err := m.Set(t.Context(), "n", "k", []byte("value"), time.Minute); err != nil {
				t.Fatal(err)
			}
		}, spaceSize + kvSize(1, 5, true), 0, time.Minute, func(t *testing.T, m *storage.Memory) error {
			_, err := m.Delete(t.Context(), "n", "other")
			return err
		}, spaceSize, 0},
		{"in-flight record after its lease", func(t *testing.T, m *storage.Memory) {
			if _, err := m.Claim(t.Context(), "k1", "fp", time.Minute, storage.Client{}); err != nil {
				t.Fatal(err)
			}
		}, 0, inFlightSize, time.Minute, func(t *testing.T, m *storage.Memory) error {
			return m.Release(t.Context(), "other", "lease")
		}, 0, 0},
		{"completed record after its ttl", func(t *testing.T, m *storage.Memory) {
			complete(t, m, "k1", time.Hour)
		}, 0, completedSize, time.Hour, func(t *testing.T, m *storage.Memory) error {
			return m.Release(t.Context(), "other", "lease")
		}, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, clock := newMemory(t, storage.MemoryOptions{})
			c.setup(t, m)
			wantUsed(t, m, c.kv, c.idem, 0)
			clock.Advance(c.after - time.Nanosecond)
			_ = c.sweep(t, m)
			wantUsed(t, m, c.kv, c.idem, 0) // not yet expired
			clock.Advance(time.Nanosecond)
			_ = c.sweep(t, m)
			wantUsed(t, m, c.kvAfter, c.after2, 0)
		})
	}
	t.Run("read drops an expired kv entry", func(t *testing.T) {
		m, clock := newMemory(t, storage.MemoryOptions{})
		if err := m.Set(t.Context(), "n", "k", []byte("value"), time.Minute); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if _, ok, err := m.Get(t.Context(), "n", "k"); ok || err != nil {
			t.Errorf("Get = %v, %v; want absent", ok, err)
		}
		wantUsed(t, m, spaceSize, 0, 0)
	})
	t.Run("expired entries make room", func(t *testing.T) {
		m, clock := newMemory(t, storage.MemoryOptions{KVBytes: spaceSize + kvSize(1, 80, true)})
		if err := m.Set(t.Context(), "n", "a", bytes.Repeat([]byte("v"), 80), time.Minute); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if err := m.Set(t.Context(), "n", "b", bytes.Repeat([]byte("v"), 80), 0); err != nil {
			t.Errorf("Set: %v, want room made by the expired entry", err)
		}
	})
	t.Run("incr keeps the expiry", func(t *testing.T) {
		m, clock := newMemory(t, storage.MemoryOptions{})
		if err := m.Set(t.Context(), "n", "k", []byte("1"), time.Minute); err != nil {
			t.Fatal(err)
		}
		clock.Advance(30 * time.Second)
		if n, err := m.Incr(t.Context(), "n", "k", 1); n != 2 || err != nil {
			t.Fatalf("Incr = %d, %v; want 2", n, err)
		}
		clock.Advance(30 * time.Second)
		if v, ok, err := m.Get(t.Context(), "n", "k"); ok || err != nil {
			t.Errorf("Get = %q, %v, %v; want absent a minute after Set", v, ok, err)
		}
		wantUsed(t, m, spaceSize, 0, 0)
	})
	t.Run("set without ttl drops the expiry", func(t *testing.T) {
		m, clock := newMemory(t, storage.MemoryOptions{})
		if err := m.Set(t.Context(), "n", "k", []byte("1"), time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := m.Set(t.Context(), "n", "k", []byte("2"), 0); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
		if v, ok, err := m.Get(t.Context(), "n", "k"); !ok || err != nil || string(v) != "2" {
			t.Errorf("Get = %q, %v, %v; want 2", v, ok, err)
		}
		wantUsed(t, m, spaceSize+kvSize(1, 1, false), 0, 0)
	})
}

func TestMemorySweep(t *testing.T) {
	m, clock := newMemory(t, storage.MemoryOptions{})
	ctx := t.Context()
	if err := m.Set(ctx, "n", "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	complete(t, m, "done", time.Minute)
	if _, err := m.Claim(ctx, "flight", "fp", time.Minute, storage.Client{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Take(ctx, "client", storage.Rate{Limit: 1, Window: time.Minute}); err != nil {
		t.Fatal(err)
	}
	m.Sweep()
	wantUsed(t, m, spaceSize+kvSize(1, 1, true), completedSize+inFlightSize, storage.BucketEntryBytes+8)
	clock.Advance(time.Minute)
	m.Sweep()
	wantUsed(t, m, spaceSize, 0, 0)
	m.Close()
	m.Sweep() // a closed store has nothing to sweep
}

// heapBytes returns the live heap after a full collection.
func heapBytes() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestMemoryAccountsRealBytes fills each budget of a store and checks that
// the heap grows by about the budget: 6.7 M small keys in a "64 MiB" store
// once took 1.5-2 GB (issue 23, item 8). It measures the process's heap,
// so it runs alone (not in parallel) and with a generous bound: the heap
// may grow by at most twice, and at least half, the budget filled.
func TestMemoryAccountsRealBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills stores of several MiB")
	}
	const maxBytes = 16 << 20
	ctx := context.Background()
	answer := storage.Answer{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"id":1234567}`)}
	for _, c := range []struct {
		name   string
		budget func(m *storage.Memory) int64
		fill   func(m *storage.Memory, i int) error
	}{
		{"small KV entries", func(m *storage.Memory) int64 { kv, _, _ := storage.MemoryBudgets(m); return kv },
			func(m *storage.Memory, i int) error {
				return m.Set(ctx, "app", fmt.Sprintf("k%07d", i*7919%1000003), []byte("v"), 0)
			}},
		{"KV entries with a ttl", func(m *storage.Memory) int64 { kv, _, _ := storage.MemoryBudgets(m); return kv },
			func(m *storage.Memory, i int) error {
				return m.Set(ctx, "app", fmt.Sprintf("key/%015d", i), []byte("0123456789abcdef"), time.Hour)
			}},
		{"completed records", func(m *storage.Memory) int64 { _, idem, _ := storage.MemoryBudgets(m); return idem },
			func(m *storage.Memory, i int) error {
				key := fmt.Sprintf("%064x", i)
				c, err := m.Claim(ctx, key, "a3f1c2d4e5b6a7980123456789abcdef0123456789abcdef0123456789abcdef", time.Minute, storage.Client{})
				if err != nil {
					return err
				}
				return m.Complete(ctx, key, c.Lease, answer, time.Hour)
			}},
		{"completed records, a client each", func(m *storage.Memory) int64 { _, idem, _ := storage.MemoryBudgets(m); return idem },
			func(m *storage.Memory, i int) error {
				key := fmt.Sprintf("%064x", i)
				client := storage.Client{ID: fmt.Sprintf("addr:10.%d.%d.%d", i>>16&255, i>>8&255, i&255), MaxBytes: 1 << 20}
				c, err := m.Claim(ctx, key, "a3f1c2d4e5b6a7980123456789abcdef0123456789abcdef0123456789abcdef", time.Minute, client)
				if err != nil {
					return err
				}
				return m.Complete(ctx, key, c.Lease, answer, time.Hour)
			}},
		{"in-flight records", func(m *storage.Memory) int64 { _, idem, _ := storage.MemoryBudgets(m); return idem },
			func(m *storage.Memory, i int) error {
				_, err := m.Claim(ctx, fmt.Sprintf("%064x", i), "a3f1c2d4e5b6a7980123456789abcdef0123456789abcdef0123456789abcdef", time.Minute, storage.Client{})
				return err
			}},
		{"rate-limit buckets", func(m *storage.Memory) int64 { _, _, rate := storage.MemoryBudgets(m); return rate },
			func(m *storage.Memory, i int) error {
				_, _, rate := storage.MemoryBudgets(m)
				if _, _, used := storage.MemoryUsed(m); used+storage.BucketEntryBytes+64 > rate {
					return storage.ErrFull // full: from here Take drops buckets
				}
				_, err := m.Take(ctx, fmt.Sprintf("endpoints:ratelimit:app:api:ip:198.51.%d.%d", i/256, i%256), storage.Rate{Limit: 3, Window: time.Minute})
				return err
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := heapBytes()
			m := storage.NewMemory(storage.MemoryOptions{MaxBytes: maxBytes})
			n := 0
			for ; n < 10_000_000; n++ {
				if err := c.fill(m, n); errors.Is(err, storage.ErrFull) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
			grew := heapBytes() - before
			budget := c.budget(m)
			kv, idem, rate := storage.MemoryUsed(m)
			t.Logf("%d entries: the heap grew by %d bytes (%.1f a entry), %.2fx the %d-byte budget; counted %d",
				n, grew, float64(grew)/float64(n), float64(grew)/float64(budget), budget, kv+idem+rate)
			if grew > 2*budget || grew < budget/2 {
				t.Errorf("filling a %d-byte budget with %d entries grew the heap by %d bytes; want within 2x", budget, n, grew)
			}
			runtime.KeepAlive(m)
		})
	}
}

func TestMemoryCopies(t *testing.T) {
	m, _ := newMemory(t, storage.MemoryOptions{})
	ctx := t.Context()
	value := []byte("abc")
	if err := m.Set(ctx, "n", "k", value, 0); err != nil {
		t.Fatal(err)
	}
	value[0] = 'X'
	got, _, _ := m.Get(ctx, "n", "k")
	got[1] = 'Y'
	if again, _, _ := m.Get(ctx, "n", "k"); string(again) != "abc" {
		t.Errorf("Get after changing the caller's slices = %q, want %q", again, "abc")
	}

	c, _ := m.Claim(ctx, "k1", "fp", time.Minute, storage.Client{})
	ans := storage.Answer{Status: 200, Header: http.Header{"A": {"1"}}, Body: []byte("body")}
	if err := m.Complete(ctx, "k1", c.Lease, ans, time.Hour); err != nil {
		t.Fatal(err)
	}
	ans.Body[0] = 'X'
	ans.Header.Set("A", "2")
	replay, _ := m.Claim(ctx, "k1", "fp", time.Minute, storage.Client{})
	replay.Record.Answer.Body[1] = 'Y'
	replay.Record.Answer.Header.Set("A", "3")
	replay, _ = m.Claim(ctx, "k1", "fp", time.Minute, storage.Client{})
	if got := replay.Record.Answer; string(got.Body) != "body" || got.Header.Get("A") != "1" {
		t.Errorf("replay after changing the caller's answers = %q %v, want %q map[A:[1]]", got.Body, got.Header, "body")
	}
}

func TestMemoryClosed(t *testing.T) {
	m := storage.NewMemory(storage.MemoryOptions{})
	ctx := t.Context()
	if err := m.Set(ctx, "n", "k", nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, c := range []struct {
		method string
		call   func() error
	}{
		{"Claim", func() error { _, err := m.Claim(ctx, "k", "fp", time.Minute, storage.Client{}); return err }},
		{"Complete", func() error { return m.Complete(ctx, "k", "lease", body10, time.Hour) }},
		{"Release", func() error { return m.Release(ctx, "k", "lease") }},
		{"Get", func() error { _, _, err := m.Get(ctx, "n", "k"); return err }},
		{"Set", func() error { return m.Set(ctx, "n", "k", nil, 0) }},
		{"Delete", func() error { _, err := m.Delete(ctx, "n", "k"); return err }},
		{"Incr", func() error { _, err := m.Incr(ctx, "n", "k", 1); return err }},
		{"List", func() error { _, err := m.List(ctx, "n", "", "", 10); return err }},
		{"Take", func() error { _, err := m.Take(ctx, "k", storage.Rate{Limit: 1, Window: time.Second}); return err }},
		{"Ping", func() error { return m.Ping(ctx) }},
	} {
		t.Run(c.method, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, storage.ErrUnavailable) {
				t.Errorf("%s after Close: got error %v, want ErrUnavailable", c.method, err)
			}
		})
	}
}

// TestMemoryHammer runs every kind of operation from many goroutines at
// once, released together, on keys they share: run with -race.
func TestMemoryHammer(t *testing.T) {
	m := storage.NewMemory(storage.MemoryOptions{MaxBytes: 1 << 20})
	defer m.Close()
	ctx := t.Context()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			<-start
			ns := fmt.Sprintf("ns%d", g%3)
			for i := range 200 {
				key := fmt.Sprintf("k%d", i%17)
				_ = m.Set(ctx, ns, key, []byte("v"), time.Duration(i%3)*time.Millisecond)
				_, _ = m.Incr(ctx, ns, "counter", 1)
				_, _, _ = m.Get(ctx, ns, key)
				_, _ = m.List(ctx, ns, "k", "", 5)
				_, _ = m.Delete(ctx, ns, key)
				if c, err := m.Claim(ctx, key, "fp", time.Second, storage.Client{}); err == nil && c.Acquired {
					if i%2 == 0 {
						_ = m.Complete(ctx, key, c.Lease, body10, time.Millisecond)
					} else {
						_ = m.Release(ctx, key, c.Lease)
					}
				}
				_, _ = m.Take(ctx, key, storage.Rate{Limit: 5, Window: time.Millisecond})
				if i%20 == 0 {
					m.Sweep()
				}
			}
		})
	}
	close(start)
	wg.Wait()
	for g := range 3 {
		n, err := m.Incr(ctx, fmt.Sprintf("ns%d", g), "counter", 0)
		want := int64(0)
		for h := range 8 {
			if h%3 == g {
				want += 200
			}
		}
		if err != nil || n != want {
			t.Errorf("counter of ns%d = %d, %v; want %d (no increment lost)", g, n, err, want)
		}
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	storagetest.BenchClaimComplete(b, storage.NewMemory(storage.MemoryOptions{}))
}

// BenchmarkMemoryFrontInsert inserts keys before every key of a namespace
// of 1 M keys: O(log n) in the B-tree (it was O(n), a copy of the sorted
// key slice, under the store-wide lock).
func BenchmarkMemoryFrontInsert(b *testing.B) {
	const keys = 1_000_000
	m := storage.NewMemory(storage.MemoryOptions{KVBytes: 1 << 30})
	defer m.Close()
	ctx := context.Background()
	for i := range keys {
		if err := m.Set(ctx, "big", fmt.Sprintf("m%09d", i), []byte("v"), 0); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("insert", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			// "a..." sorts before every "m..." key, and each key before
			// the last one inserted.
			if err := m.Set(ctx, "big", fmt.Sprintf("a%09d", 1_000_000_000-i), []byte("v"), 0); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(keys, "keys")
	})
}

func ExampleNewMemory() {
	store := storage.NewMemory(storage.MemoryOptions{MaxBytes: 16 << 20})
	defer store.Close()
	ctx := context.Background()

	// The first request with an Idempotency-Key acquires it and runs.
	c, err := store.Claim(ctx, "key-hash", "fingerprint", time.Minute, storage.Client{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("acquired:", c.Acquired)
	created := storage.Answer{Status: http.StatusCreated, Body: []byte(`{"id":42}`)}
	if err := store.Complete(ctx, "key-hash", c.Lease, created, 24*time.Hour); err != nil {
		log.Fatal(err)
	}

	// A retry finds the answer to replay.
	retry, err := store.Claim(ctx, "key-hash", "fingerprint", time.Minute, storage.Client{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("acquired:", retry.Acquired, "replay:", retry.Record.Answer.Status, string(retry.Record.Answer.Body))

	// Guests' data lives in namespaces, one per app.
	n, err := store.Incr(ctx, "shop", "orders", 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("orders:", n)
	// Output:
	// acquired: true
	// acquired: false replay: 201 {"id":42}
	// orders: 1
}

// TestMemoryClientSharesFollowTheRecords checks, with a clock the test
// moves, that a client's share counts its records' real bytes, and that
// the records give it back when they expire, are released or are swept,
// leaving no entry for a client that holds none.
func TestMemoryClientSharesFollowTheRecords(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	m := storage.NewMemory(storage.MemoryOptions{Now: func() time.Time { return now }})
	defer m.Close()
	ctx := t.Context()
	alice := storage.Client{ID: "addr:192.0.2.1", MaxBytes: 1 << 20}
	wantShare := func(clients int, used int64) {
		t.Helper()
		gotClients, gotUsed := storage.IdemClients(m, alice.ID)
		_, idem, _ := storage.MemoryUsed(m)
		if gotClients != clients || gotUsed != used || used > 0 && gotUsed != idem {
			t.Errorf("clients, alice's bytes = %d, %d (records' budget in use: %d); want %d, %d", gotClients, gotUsed, idem, clients, used)
		}
	}
	claim := func(key string, lease time.Duration) storage.Claim {
		t.Helper()
		c, err := m.Claim(ctx, key, "fp", lease, alice)
		if err != nil || !c.Acquired {
			t.Fatalf("Claim(%q) = %+v, %v; want acquired", key, c, err)
		}
		return c
	}

	released := claim("released", time.Minute)
	_, inFlight, _ := storage.MemoryUsed(m)
	wantShare(1, inFlight)
	if err := m.Release(ctx, "released", released.Lease); err != nil {
		t.Fatal(err)
	}
	wantShare(0, 0)

	claim("lease runs out", time.Minute)
	now = now.Add(2 * time.Minute)
	m.Sweep()
	wantShare(0, 0)

	done := claim("replayed", time.Minute)
	_, claimed, _ := storage.MemoryUsed(m)
	if err := m.Complete(ctx, "replayed", done.Lease, body10, time.Hour); err != nil {
		t.Fatal(err)
	}
	_, completed, _ := storage.MemoryUsed(m)
	wantShare(1, completed)
	now = now.Add(time.Hour)
	// The next claim drops what expired first: the completed record's
	// bytes are given back, and the new claim of its key counts alone.
	claim("replayed", time.Minute)
	wantShare(1, claimed)
}
