package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
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

// newMemory returns a store of maxBytes on a fake clock.
func newMemory(t *testing.T, maxBytes int64) (*storage.Memory, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	m := storage.NewMemory(storage.MemoryOptions{MaxBytes: maxBytes, Now: clock.Now})
	t.Cleanup(func() { m.Close() })
	return m, clock
}

// Sizes counted against MaxBytes, for the keys the tests use: a two-byte
// key and fingerprint, a 32-byte lease, a ten-byte body.
const (
	inFlightSize  = 2 + 2 + 32
	completedSize = 2 + 2 + 10
)

var body10 = storage.Answer{Status: http.StatusCreated, Body: []byte("0123456789")}

// complete claims and completes key with body10, kept for ttl.
func complete(t *testing.T, m *storage.Memory, key string, ttl time.Duration) {
	t.Helper()
	c, err := m.Claim(t.Context(), key, "fp", time.Minute)
	if err != nil || !c.Acquired {
		t.Fatalf("Claim(%q) = %+v, %v; want acquired", key, c, err)
	}
	if err := m.Complete(t.Context(), key, c.Lease, body10, ttl); err != nil {
		t.Fatalf("Complete(%q): %v", key, err)
	}
}

func wantUsed(t *testing.T, m *storage.Memory, want int64) {
	t.Helper()
	if got := storage.MemoryUsed(m); got != want {
		t.Errorf("bytes in use = %d, want %d", got, want)
	}
}

// wantReplay checks that key holds a completed record.
func wantReplay(t *testing.T, m *storage.Memory, key string) {
	t.Helper()
	c, err := m.Claim(t.Context(), key, "fp", time.Minute)
	if err != nil || c.Acquired || !c.Record.Completed {
		t.Errorf("Claim(%q) = %+v, %v; want the completed record", key, c, err)
	}
}

func TestMemoryEvictsCompletedRecordsSoonestToExpireFirst(t *testing.T) {
	m, _ := newMemory(t, 100)
	complete(t, m, "k1", 3*time.Hour)
	complete(t, m, "k2", 1*time.Hour)
	complete(t, m, "k3", 2*time.Hour)
	if err := m.Set(t.Context(), "n", "k", bytes.Repeat([]byte("v"), 40), 0); err != nil {
		t.Fatalf("Set: %v", err)
	}
	wantUsed(t, m, 3*completedSize+42)
	// 42 + 36 + 3*14 = 120 > 100: k2 (1 h) goes, 106 is still too much,
	// then k3 (2 h); k1 (3 h) stays.
	c, err := m.Claim(t.Context(), "k4", "fp", time.Minute)
	if err != nil || !c.Acquired {
		t.Fatalf("Claim(k4) = %+v, %v; want acquired after evictions", c, err)
	}
	wantUsed(t, m, 42+inFlightSize+completedSize)
	wantReplay(t, m, "k1")
}

func TestMemoryNeverEvictsInFlightRecords(t *testing.T) {
	m, _ := newMemory(t, 2*inFlightSize+10)
	for _, key := range []string{"k1", "k2"} {
		if c, err := m.Claim(t.Context(), key, "fp", time.Minute); err != nil || !c.Acquired {
			t.Fatalf("Claim(%q) = %+v, %v; want acquired", key, c, err)
		}
	}
	c, err := m.Claim(t.Context(), "k3", "fp", time.Minute)
	if !errors.Is(err, storage.ErrFull) || c.Acquired {
		t.Errorf("third Claim = %+v, %v; want ErrFull", c, err)
	}
	for _, key := range []string{"k1", "k2"} {
		if c, err := m.Claim(t.Context(), key, "fp", time.Minute); err != nil || c.Acquired || c.Record.Completed {
			t.Errorf("Claim(%q) = %+v, %v; want still in flight", key, c, err)
		}
	}
}

func TestMemoryAnswerTooBig(t *testing.T) {
	m, _ := newMemory(t, 100)
	c, err := m.Claim(t.Context(), "k1", "fp", time.Minute)
	if err != nil || !c.Acquired {
		t.Fatalf("Claim = %+v, %v; want acquired", c, err)
	}
	big := storage.Answer{Status: http.StatusOK, Body: bytes.Repeat([]byte("b"), 100)}
	if err := m.Complete(t.Context(), "k1", c.Lease, big, time.Hour); !errors.Is(err, storage.ErrFull) {
		t.Errorf("Complete of 104 bytes in 100: got error %v, want ErrFull", err)
	}
	wantUsed(t, m, 0)
	if c, err := m.Claim(t.Context(), "k1", "fp", time.Minute); err != nil || !c.Acquired {
		t.Errorf("Claim after the failed Complete = %+v, %v; want acquired (claim dropped)", c, err)
	}
}

func TestMemoryKVFull(t *testing.T) {
	v := func(n int) []byte { return bytes.Repeat([]byte("v"), n) }
	for _, c := range []struct {
		name string
		run  func(ctx context.Context, m *storage.Memory) error
	}{
		{"new key", func(ctx context.Context, m *storage.Memory) error {
			return m.Set(ctx, "n", "b", v(9), 0) // 92 + 11
		}},
		{"bigger value", func(ctx context.Context, m *storage.Memory) error {
			return m.Set(ctx, "n", "a", v(99), 0) // 101
		}},
		{"value over MaxBytes", func(ctx context.Context, m *storage.Memory) error {
			return m.Set(ctx, "other", "x", v(200), 0)
		}},
		{"incr of a new key", func(ctx context.Context, m *storage.Memory) error {
			_, err := m.Incr(ctx, "n", "counter", 1) // 92 + 9
			return err
		}},
		{"claim", func(ctx context.Context, m *storage.Memory) error {
			_, err := m.Claim(ctx, "k1", "fp", time.Minute) // 92 + 36
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newMemory(t, 100)
			if err := m.Set(t.Context(), "n", "a", v(90), 0); err != nil { // 1 + 1 + 90
				t.Fatalf("Set: %v", err)
			}
			if err := c.run(t.Context(), m); !errors.Is(err, storage.ErrFull) {
				t.Errorf("got error %v, want ErrFull", err)
			}
			got, ok, err := m.Get(t.Context(), "n", "a")
			if err != nil || !ok || !bytes.Equal(got, v(90)) {
				t.Errorf("Get(n, a) = %d bytes, %v, %v; want the 90 bytes set first", len(got), ok, err)
			}
			wantUsed(t, m, 92)
		})
	}
	t.Run("value that fits exactly", func(t *testing.T) {
		m, _ := newMemory(t, 100)
		if err := m.Set(t.Context(), "n", "a", v(90), 0); err != nil {
			t.Fatalf("Set: %v", err)
		}
		if err := m.Set(t.Context(), "n", "a", v(98), 0); err != nil {
			t.Errorf("Set of 100 bytes in 100: %v", err)
		}
		wantUsed(t, m, 100)
	})
	t.Run("completed records make room", func(t *testing.T) {
		m, _ := newMemory(t, 100)
		complete(t, m, "k1", time.Hour)
		if err := m.Set(t.Context(), "n", "a", v(98), 0); err != nil {
			t.Errorf("Set: %v, want the completed record evicted", err)
		}
		wantUsed(t, m, 100)
		if c, err := m.Claim(t.Context(), "k1", "fp", time.Minute); !errors.Is(err, storage.ErrFull) {
			t.Errorf("Claim(k1) = %+v, %v; want ErrFull (record evicted, no room for a lease)", c, err)
		}
	})
	t.Run("error names the key and the bound", func(t *testing.T) {
		m, _ := newMemory(t, 100)
		err := m.Set(t.Context(), "app", "big", v(200), 0)
		for _, want := range []string{`set "big" in "app"`, "206 bytes", "MaxBytes 100"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
	})
}

func TestMemoryEvictsExpiredEntries(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, m *storage.Memory)
		size  int64
		after time.Duration
	}{
		{"kv entry after its ttl", func(t *testing.T, m *storage.Memory) {
			if err := m.Set(t.Context(), "n", "k", []byte("value"), time.Minute); err != nil {
				t.Fatal(err)
			}
		}, 7, time.Minute},
		{"in-flight record after its lease", func(t *testing.T, m *storage.Memory) {
			if _, err := m.Claim(t.Context(), "k1", "fp", time.Minute); err != nil {
				t.Fatal(err)
			}
		}, inFlightSize, time.Minute},
		{"completed record after its ttl", func(t *testing.T, m *storage.Memory) {
			complete(t, m, "k1", time.Hour)
		}, completedSize, time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, clock := newMemory(t, 1000)
			c.setup(t, m)
			wantUsed(t, m, c.size)
			clock.Advance(c.after - time.Nanosecond)
			if err := m.Set(t.Context(), "other", "x", nil, 0); err != nil {
				t.Fatal(err)
			}
			wantUsed(t, m, c.size+6) // not yet expired
			clock.Advance(time.Nanosecond)
			if _, err := m.Delete(t.Context(), "other", "x"); err != nil { // a write sweeps
				t.Fatal(err)
			}
			wantUsed(t, m, 0)
		})
	}
	t.Run("read drops an expired kv entry", func(t *testing.T) {
		m, clock := newMemory(t, 1000)
		if err := m.Set(t.Context(), "n", "k", []byte("value"), time.Minute); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if _, ok, err := m.Get(t.Context(), "n", "k"); ok || err != nil {
			t.Errorf("Get = %v, %v; want absent", ok, err)
		}
		wantUsed(t, m, 0)
	})
	t.Run("expired entries make room before anything else", func(t *testing.T) {
		m, clock := newMemory(t, 100)
		complete(t, m, "k1", time.Hour)
		if err := m.Set(t.Context(), "n", "a", bytes.Repeat([]byte("v"), 80), time.Minute); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if err := m.Set(t.Context(), "n", "b", bytes.Repeat([]byte("v"), 80), 0); err != nil {
			t.Errorf("Set: %v, want room made by the expired entry", err)
		}
		wantReplay(t, m, "k1")
	})
	t.Run("incr keeps the expiry", func(t *testing.T) {
		m, clock := newMemory(t, 1000)
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
	})
}

func TestMemoryCopies(t *testing.T) {
	m, _ := newMemory(t, 1000)
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

	c, _ := m.Claim(ctx, "k1", "fp", time.Minute)
	ans := storage.Answer{Status: 200, Header: http.Header{"A": {"1"}}, Body: []byte("body")}
	if err := m.Complete(ctx, "k1", c.Lease, ans, time.Hour); err != nil {
		t.Fatal(err)
	}
	ans.Body[0] = 'X'
	ans.Header.Set("A", "2")
	replay, _ := m.Claim(ctx, "k1", "fp", time.Minute)
	replay.Record.Answer.Body[1] = 'Y'
	replay.Record.Answer.Header.Set("A", "3")
	replay, _ = m.Claim(ctx, "k1", "fp", time.Minute)
	if got := replay.Record.Answer; string(got.Body) != "body" || got.Header.Get("A") != "1" {
		t.Errorf("replay after changing the caller's answers = %q %v, want %q map[A:[1]]", got.Body, got.Header, "body")
	}
}

func TestMemoryClosed(t *testing.T) {
	m := storage.NewMemory(storage.MemoryOptions{})
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := t.Context()
	for _, c := range []struct {
		method string
		call   func() error
	}{
		{"Claim", func() error { _, err := m.Claim(ctx, "k", "fp", time.Minute); return err }},
		{"Complete", func() error { return m.Complete(ctx, "k", "lease", body10, time.Hour) }},
		{"Release", func() error { return m.Release(ctx, "k", "lease") }},
		{"Get", func() error { _, _, err := m.Get(ctx, "n", "k"); return err }},
		{"Set", func() error { return m.Set(ctx, "n", "k", nil, 0) }},
		{"Delete", func() error { _, err := m.Delete(ctx, "n", "k"); return err }},
		{"Incr", func() error { _, err := m.Incr(ctx, "n", "k", 1); return err }},
		{"List", func() error { _, err := m.List(ctx, "n", "", "", 10); return err }},
		{"Ping", func() error { return m.Ping(ctx) }},
	} {
		t.Run(c.method, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, storage.ErrUnavailable) {
				t.Errorf("%s after Close: got error %v, want ErrUnavailable", c.method, err)
			}
		})
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	storagetest.BenchClaimComplete(b, storage.NewMemory(storage.MemoryOptions{}))
}

func ExampleNewMemory() {
	store := storage.NewMemory(storage.MemoryOptions{MaxBytes: 16 << 20})
	defer store.Close()
	ctx := context.Background()

	// The first request with an Idempotency-Key acquires it and runs.
	c, err := store.Claim(ctx, "key-hash", "fingerprint", time.Minute)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("acquired:", c.Acquired)
	created := storage.Answer{Status: http.StatusCreated, Body: []byte(`{"id":42}`)}
	if err := store.Complete(ctx, "key-hash", c.Lease, created, 24*time.Hour); err != nil {
		log.Fatal(err)
	}

	// A retry finds the answer to replay.
	retry, err := store.Claim(ctx, "key-hash", "fingerprint", time.Minute)
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
