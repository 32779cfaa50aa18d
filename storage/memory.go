package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"
)

// Bounds of a [Memory] store when [MemoryOptions] leaves them zero.
const (
	// DefaultMaxBytes is the bound of a whole [Memory] store when
	// [MemoryOptions.MaxBytes] is zero: 64 MiB, split into the three
	// budgets below.
	DefaultMaxBytes = 64 << 20
	// DefaultKVBytes is the guests' key-value data's budget when
	// MaxBytes is the default: half of it, 32 MiB.
	DefaultKVBytes = DefaultMaxBytes / 2
	// DefaultIdempotencyBytes is the Idempotency-Key records' budget when
	// MaxBytes is the default: three eighths of it, 24 MiB.
	DefaultIdempotencyBytes = DefaultMaxBytes * 3 / 8
	// DefaultRateLimitBytes is the rate-limit buckets' budget when
	// MaxBytes is the default: an eighth of it, 8 MiB (about 60,000
	// buckets of host keys).
	DefaultRateLimitBytes = DefaultMaxBytes / 8
	// DefaultIdempotencyClientBytes is each client's share of the
	// Idempotency-Key records ([Client.MaxBytes]) when the host's
	// configuration names none: a sixteenth of [DefaultIdempotencyBytes],
	// 1.5 MiB, so that sixteen clients at their share fit in the records'
	// budget (of which Claim leaves an eighth for answers in flight). With
	// other budgets, [MemoryOptions.IdempotencyClientBytes] keeps the
	// ratio.
	DefaultIdempotencyClientBytes = DefaultIdempotencyBytes / idemClientShares
)

// idemClientShares is how many clients' default shares the records'
// budget holds.
const idemClientShares = 16

// MemoryOptions configures [NewMemory]. The zero value is every default.
type MemoryOptions struct {
	// MaxBytes bounds the whole store: the memory its entries take, Go's
	// own bookkeeping included (see [Memory] for how it is counted). It
	// is split into three budgets that cannot take from each other: half
	// for the guests' key-value data, three eighths for Idempotency-Key
	// records, an eighth for rate-limit buckets, unless KVBytes,
	// IdempotencyBytes or RateLimitBytes set one. Defaults to
	// [DefaultMaxBytes] when zero or negative.
	MaxBytes int64
	// KVBytes bounds the guests' key-value data, every namespace together.
	// If zero, half of MaxBytes ([DefaultKVBytes]).
	KVBytes int64
	// IdempotencyBytes bounds the Idempotency-Key records, in flight and
	// completed. If zero, three eighths of MaxBytes
	// ([DefaultIdempotencyBytes]).
	IdempotencyBytes int64
	// RateLimitBytes bounds the rate limits' token buckets. If zero, an
	// eighth of MaxBytes ([DefaultRateLimitBytes]).
	RateLimitBytes int64
	// Now is the store's clock, which decides when leases, completed
	// records, KV entries and buckets expire. Defaults to time.Now; tests
	// set it to a clock they move, to see expiry without waiting for it.
	Now func() time.Time
}

// IdempotencyClientBytes is the default share of each client in a store
// opened with o: a sixteenth of its Idempotency-Key records' budget
// ([DefaultIdempotencyClientBytes] with the default budgets).
func (o MemoryOptions) IdempotencyClientBytes() int64 {
	return o.WithDefaults().IdempotencyBytes / idemClientShares
}

// WithDefaults returns o with its budgets in effect: MaxBytes
// ([DefaultMaxBytes] when zero or negative) and each of the three budgets
// it is split into when zero (half, three eighths and an eighth of
// MaxBytes). The one place the split is made: [NewMemory] and package
// config (for the "storage" member of endpoints.json) both read it.
func (o MemoryOptions) WithDefaults() MemoryOptions {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.KVBytes <= 0 {
		o.KVBytes = o.MaxBytes / 2
	}
	if o.IdempotencyBytes <= 0 {
		o.IdempotencyBytes = o.MaxBytes * 3 / 8
	}
	if o.RateLimitBytes <= 0 {
		o.RateLimitBytes = o.MaxBytes / 8
	}
	return o
}

// Memory is a [Store] for one process: the host's default when no shared
// store is configured. Every method is safe for concurrent use.
//
//	store := storage.NewMemory(storage.MemoryOptions{MaxBytes: 16 << 20})
//	defer store.Close()
//
// It keeps three kinds of data, each with its own budget and its own lock,
// so that neither a guest filling its key-value namespace nor a flood of
// rate-limited clients can take the room or the time of the host's
// Idempotency-Key records:
//
//   - Idempotency-Key records: a map, and min-heaps by expiry. A record
//     is never evicted before its time: an in-flight one would let a retry
//     run the handler while the first request still runs, a completed one
//     would let a retry run it again, the double execution idempotency
//     exists to prevent. When the budget is full, Claim returns [ErrFull]
//     (the host answers 503 with Retry-After: nothing ran) until records
//     expire.
//   - Rate-limit buckets: a map, and a min-heap by the time each bucket is
//     full again, when it may go: every Take drops those whose time has
//     come, so buckets are swept by time. When the budget is full, the
//     bucket closest to full is dropped to make room (see [Memory.Take]).
//   - Key-value data: one B-tree per namespace (ordered inserts and pages in
//     O(log n)), each namespace under its own lock, one budget for all.
//     KV data is never evicted: Set and Incr return [ErrFull] instead.
//
// Expired entries are dropped when they are next read, writes sweep the
// ones whose time has come (in order of expiry), and [Memory.Sweep] drops
// them all (the host's janitor calls it every few seconds), so the store
// needs no goroutine of its own.
//
// # Notes
//
//   - Sizes count what an entry costs the process: its key and value (the
//     answer's body, header names and values, fingerprint and lease of a
//     record), each rounded up to Go's allocation granule, plus a fixed
//     overhead per entry (the map or tree slot, the entry's struct, the heap
//     slot) that TestMemoryAccountsRealBytes measures with
//     runtime.ReadMemStats and keeps within 2x of what the heap grows by.
//   - Expired KV entries of a namespace are dropped when that namespace is
//     next written or read; expired records and buckets when the next
//     Idempotency-Key or rate-limit operation runs; all of them at the
//     next Sweep.
//   - After Close every method returns an error wrapping [ErrUnavailable].
type Memory struct {
	now func() time.Time // MemoryOptions.Now

	idem    idemStore
	buckets bucketStore
	kv      kvStore
}

// NewMemory returns an empty in-memory store bounded as opts says.
func NewMemory(opts MemoryOptions) *Memory {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	b := opts.WithDefaults()
	m := &Memory{now: now}
	m.idem.init(b.IdempotencyBytes)
	m.buckets.init(b.RateLimitBytes)
	m.kv.init(b.KVBytes)
	return m
}

var errClosed = fmt.Errorf("%w: memory store is closed", ErrUnavailable)

// Close drops every entry; later calls return an error wrapping
// [ErrUnavailable]. It always returns nil.
func (m *Memory) Close() error {
	m.idem.close()
	m.buckets.close()
	m.kv.close()
	return nil
}

// Ping implements [Pinger]: nil until Close, then an error wrapping
// [ErrUnavailable].
func (m *Memory) Ping(context.Context) error {
	m.idem.mu.Lock()
	defer m.idem.mu.Unlock()
	if m.idem.closed {
		return errClosed
	}
	return nil
}

var _ Pinger = (*Memory)(nil)

// Sweep implements [Sweeper]: it drops every record, bucket and KV entry
// whose time has come, taking each lock in turn (one namespace at a time).
func (m *Memory) Sweep() {
	now := m.now()
	m.idem.mu.Lock()
	if !m.idem.closed {
		m.idem.sweep(now)
	}
	m.idem.mu.Unlock()
	m.buckets.mu.Lock()
	if !m.buckets.closed {
		m.buckets.sweep(now)
	}
	m.buckets.mu.Unlock()
	m.kv.mu.RLock()
	spaces := make([]*kvSpace, 0, len(m.kv.spaces))
	for _, sp := range m.kv.spaces {
		spaces = append(spaces, sp)
	}
	m.kv.mu.RUnlock()
	for _, sp := range spaces {
		sp.mu.Lock()
		if !sp.closed {
			sp.sweep(now.UnixNano())
		}
		sp.mu.Unlock()
	}
}

var _ Sweeper = (*Memory)(nil)

// budget is a bound on the bytes one kind of data takes, shared by
// whoever writes that kind: taking and giving back are atomic, so users
// under different locks (a namespace each) share one budget.
type budget struct {
	name string // for errors: "key-value data"
	max  int64
	used atomic.Int64
}

// take counts n more bytes, and reports false (counting nothing) when they
// do not fit.
func (b *budget) take(n int64) bool { return b.takeWithin(n, b.max) }

// takeWithin is take, with the bytes in use kept within limit (at most
// max) rather than max.
func (b *budget) takeWithin(n, limit int64) bool {
	for {
		used := b.used.Load()
		if used+n > limit && n > 0 {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// give returns n bytes.
func (b *budget) give(n int64) { b.used.Add(-n) }

// full returns ErrFull for an operation (e.g. `set "k" in "app"`) that
// needed size bytes.
func (b *budget) full(op string, size int64) error {
	return fmt.Errorf("storage: %s: %w: %d bytes do not fit in the %s budget (%d of %d bytes in use)",
		op, ErrFull, size, b.name, b.used.Load(), b.max)
}

// What an entry costs the process beside the bytes of its strings and
// slices: the slot in its map or tree, its struct, its heap slot. They were
// measured with runtime.ReadMemStats: the heap's growth while a store of
// 16 MiB fills each budget, less the entries' strings and slices, on amd64
// with Go 1.26 (TestMemoryAccountsRealBytes logs it with -v, and keeps
// what the store counts within 2x of what the heap grows by). Trees and
// maps are fuller or emptier depending on the order of inserts and when
// they last grew: the constants sit within the range measured.
const (
	// kvEntryBytes is a KV entry's overhead: its 48-byte slot in the
	// namespace's B-tree, whose nodes are half to fully used. Measured:
	// 40 to 100.
	kvEntryBytes = 80
	// kvTTLBytes is what an entry with a TTL adds: its slot in the
	// namespace's expiry tree. Measured: 50 to 60.
	kvTTLBytes = 56
	// kvSpaceBytes is a namespace's own cost: its struct, trees and
	// map entry.
	kvSpaceBytes = 512
	// idemRecordBytes is an Idempotency-Key record's overhead: the map
	// slot, the record's struct, its heap slot. Measured: about 200.
	idemRecordBytes = 200
	// bucketEntryBytes is a rate-limit bucket's overhead: the map slot,
	// the bucket's struct, its heap slot. Measured: about 170.
	bucketEntryBytes = 160
)

// allocBytes is what a string or slice of n bytes costs: n rounded up to
// the allocator's 8-byte granule (0 for none). Size classes above 32 bytes
// round further, by at most an eighth; the measured overheads cover it.
func allocBytes(n int) int64 {
	return int64((n + 7) &^ 7)
}

// newLease returns a fresh lease token: 16 random bytes in hex.
func newLease() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
