package storage

import (
	"bytes"
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultMaxBytes is the bound of a [Memory] store when
// [MemoryOptions.MaxBytes] is zero: 64 MiB.
const DefaultMaxBytes = 64 << 20

// MemoryOptions configures [NewMemory].
type MemoryOptions struct {
	// MaxBytes bounds the bytes the store keeps, counted as the lengths of
	// keys and values (see [Memory] for what is counted and what is evicted
	// when it is reached). Defaults to [DefaultMaxBytes] when zero or
	// negative.
	MaxBytes int64
	// Now is the store's clock, which decides when leases, completed
	// records and KV entries expire. Defaults to time.Now; tests set it to
	// a clock they move, to see expiry without waiting for it.
	Now func() time.Time
}

// Memory is a [Store] for one process: the host's default when no shared
// store is configured. Every method is safe for concurrent use; one mutex
// guards the whole store.
//
//	store := storage.NewMemory(storage.MemoryOptions{MaxBytes: 16 << 20})
//	defer store.Close()
//
// Expired entries are dropped when they are next read, and writes sweep the
// ones whose time has come (in order of expiry, from min-heaps), so the store
// needs no background goroutine.
//
// # Notes
//
//   - Size is the sum of the lengths of keys and values: for an
//     Idempotency-Key record its key, fingerprint, lease and answer (body,
//     header names and values); for a KV entry its namespace, key and value.
//     Go's own bookkeeping (maps, slices, about 100-200 bytes an entry) comes
//     on top of MaxBytes.
//   - When a write does not fit, expired entries go first, then completed
//     Idempotency-Key records, soonest to expire first. In-flight records
//     (claimed, not yet completed) are never evicted: dropping one would let a
//     retry run the handler while the first request still runs, the double
//     execution idempotency exists to prevent; they are one per running
//     request and vanish with their lease. KV data is never evicted to make
//     room either: Set and Incr return [ErrFull] instead, as does Claim when
//     only leases and KV data are left.
//   - List collects from a sorted slice of keys per namespace: O(log n) to
//     find the page, O(n) to insert a new key. Fine for the embedded store's
//     sizes; use a shared store for large data sets.
//   - After Close every method returns an error wrapping [ErrUnavailable].
type Memory struct {
	now func() time.Time // MemoryOptions.Now
	max int64

	mu     sync.Mutex
	closed bool
	used   int64
	idem   map[string]*idemRecord
	spaces map[string]*kvSpace
	// leases holds the in-flight records, done the completed ones, ttls the
	// KV entries that expire; each is a min-heap by expiry.
	leases, done, ttls expiryHeap
	// buckets are the rate limits' token buckets (see Take);
	// bucketsSwept is their number after the last sweep.
	buckets      map[string]*bucket
	bucketsSwept int
}

// NewMemory returns an empty in-memory store bounded by opts.MaxBytes.
func NewMemory(opts MemoryOptions) *Memory {
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Memory{
		now:    now,
		max:    limit,
		idem:   make(map[string]*idemRecord),
		spaces: make(map[string]*kvSpace),
	}
}

var errClosed = fmt.Errorf("%w: memory store is closed", ErrUnavailable)

// Close drops every entry; later calls return an error wrapping
// [ErrUnavailable]. It always returns nil.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.idem, m.spaces, m.buckets = nil, nil, nil
	m.leases, m.done, m.ttls = nil, nil, nil
	m.used = 0
	return nil
}

// Ping implements [Pinger]: nil until Close, then an error wrapping
// [ErrUnavailable].
func (m *Memory) Ping(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errClosed
	}
	return nil
}

var _ Pinger = (*Memory)(nil)

// Claim implements [Idempotency.Claim].
func (m *Memory) Claim(_ context.Context, key, fp string, lease time.Duration) (Claim, error) {
	if lease <= 0 {
		return Claim{}, fmt.Errorf("storage: claim %q: lease %v must be positive", key, lease)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Claim{}, errClosed
	}
	now := m.now()
	m.sweep(now)
	if r := m.idem[key]; r != nil {
		if now.Before(r.expires) {
			return Claim{Record: r.record()}, nil
		}
		m.removeIdem(r)
	}
	r := &idemRecord{key: key, fp: fp, lease: newLease(), expires: now.Add(lease), index: -1}
	r.size = r.measure()
	if !m.makeRoom(r.size) {
		return Claim{}, m.full(fmt.Sprintf("claim %q", key), r.size)
	}
	m.idem[key] = r
	m.used += r.size
	heap.Push(&m.leases, r)
	return Claim{Acquired: true, Lease: r.lease}, nil
}

// Complete implements [Idempotency.Complete]. The stored answer is a copy:
// the caller may reuse answer's header and body. An answer that does not
// fit, even after evicting completed records, drops the claim as Release
// does and returns [ErrFull]: a retry runs the handler again.
func (m *Memory) Complete(_ context.Context, key, lease string, answer Answer, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("storage: complete %q: ttl %v must be positive", key, ttl)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errClosed
	}
	now := m.now()
	m.sweep(now)
	r, err := m.held(key, lease, now)
	if err != nil {
		return err
	}
	done := &idemRecord{key: key, fp: r.fp, completed: true, answer: cloneAnswer(answer), expires: now.Add(ttl), index: -1}
	done.size = done.measure()
	m.removeIdem(r)
	if !m.makeRoom(done.size) {
		// The lease is gone with the record: a retry runs the handler
		// again, which is what Release would have done.
		return m.full(fmt.Sprintf("complete %q", key), done.size)
	}
	m.idem[key] = done
	m.used += done.size
	heap.Push(&m.done, done)
	return nil
}

// Release implements [Idempotency.Release].
func (m *Memory) Release(_ context.Context, key, lease string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errClosed
	}
	now := m.now()
	m.sweep(now)
	r, err := m.held(key, lease, now)
	if err != nil {
		return err
	}
	m.removeIdem(r)
	return nil
}

// held returns key's in-flight record when lease is still its lease.
func (m *Memory) held(key, lease string, now time.Time) (*idemRecord, error) {
	r := m.idem[key]
	if r == nil || r.completed || r.lease != lease || !now.Before(r.expires) {
		return nil, fmt.Errorf("storage: key %q: %w", key, ErrLeaseLost)
	}
	return r, nil
}

// Get implements [KV.Get]. The value returned is a copy.
func (m *Memory) Get(_ context.Context, ns, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, errClosed
	}
	e := m.lookup(ns, key, m.now())
	if e == nil {
		return nil, false, nil
	}
	return bytes.Clone(e.value), true, nil
}

// Set implements [KV.Set]. It keeps a copy of value. A value that does not
// fit beside the other KV data and in-flight records returns [ErrFull] and
// leaves the old value in place.
func (m *Memory) Set(_ context.Context, ns, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errClosed
	}
	now := m.now()
	m.sweep(now)
	var expires time.Time
	if ttl > 0 {
		expires = now.Add(ttl)
	}
	return m.put(ns, key, bytes.Clone(value), expires, now, "set")
}

// Delete implements [KV.Delete].
func (m *Memory) Delete(_ context.Context, ns, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false, errClosed
	}
	now := m.now()
	m.sweep(now)
	e := m.lookup(ns, key, now)
	if e == nil {
		return false, nil
	}
	m.removeKV(e)
	return true, nil
}

// Incr implements [KV.Incr]. Like Redis's INCRBY, it accepts only a value
// written the way strconv.FormatInt writes it ("-12", not "+12", "012" or
// " 12"), and a result that overflows int64 is [ErrNotInteger] too.
func (m *Memory) Incr(_ context.Context, ns, key string, delta int64) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, errClosed
	}
	now := m.now()
	m.sweep(now)
	var n int64
	var expires time.Time
	if e := m.lookup(ns, key, now); e != nil {
		v, ok := parseInteger(e.value)
		if !ok {
			return 0, fmt.Errorf("storage: incr %q in %q: %w: %.40q", key, ns, ErrNotInteger, e.value)
		}
		n, expires = v, e.expires
	}
	if (delta > 0 && n > math.MaxInt64-delta) || (delta < 0 && n < math.MinInt64-delta) {
		return 0, fmt.Errorf("storage: incr %q in %q: %w: %d%+d overflows int64", key, ns, ErrNotInteger, n, delta)
	}
	n += delta
	if err := m.put(ns, key, strconv.AppendInt(nil, n, 10), expires, now, "incr"); err != nil {
		return 0, err
	}
	return n, nil
}

// List implements [KV.List]. A limit of zero or less returns no keys.
func (m *Memory) List(_ context.Context, ns, prefix, after string, limit int) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	sp := m.spaces[ns]
	if sp == nil || limit <= 0 {
		return []string{}, nil
	}
	now := m.now()
	// The page starts at the first key >= prefix and > after.
	i, found := slices.BinarySearch(sp.keys, max(after, prefix))
	if found && after >= prefix {
		i++
	}
	keys := []string{}
	for ; i < len(sp.keys) && len(keys) < limit; i++ {
		k := sp.keys[i]
		if !strings.HasPrefix(k, prefix) {
			break
		}
		if e := sp.entries[k]; e.expired(now) {
			continue // dropped by the next write's sweep
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// put stores value under key with the expiry given (zero: none), making
// room or returning ErrFull. It takes ownership of value.
func (m *Memory) put(ns, key string, value []byte, expires, now time.Time, op string) error {
	sp := m.spaces[ns]
	old := (*kvEntry)(nil)
	if sp != nil {
		old = sp.entries[key]
		if old != nil && old.expired(now) {
			m.removeKV(old)
			old = nil
			sp = m.spaces[ns] // removeKV drops an empty namespace
		}
	}
	size := int64(len(ns) + len(key) + len(value))
	need := size
	if old != nil {
		need -= old.size
	}
	if need > 0 && !m.makeRoom(need) {
		return m.full(fmt.Sprintf("%s %q in %q", op, key, ns), size)
	}
	if old != nil {
		m.used += size - old.size
		old.value, old.size = value, size
		switch {
		case old.index >= 0 && expires.IsZero():
			heap.Remove(&m.ttls, old.index)
		case old.index >= 0:
			old.expires = expires
			heap.Fix(&m.ttls, old.index)
		case !expires.IsZero():
			old.expires = expires
			heap.Push(&m.ttls, old)
		}
		old.expires = expires
		return nil
	}
	if sp == nil {
		sp = &kvSpace{name: ns, entries: make(map[string]*kvEntry)}
		m.spaces[ns] = sp
	}
	e := &kvEntry{space: sp, key: key, value: value, size: size, expires: expires, index: -1}
	sp.entries[key] = e
	i, _ := slices.BinarySearch(sp.keys, key)
	sp.keys = slices.Insert(sp.keys, i, key)
	m.used += size
	if !expires.IsZero() {
		heap.Push(&m.ttls, e)
	}
	return nil
}

// lookup returns the live entry under key, dropping it when it expired.
func (m *Memory) lookup(ns, key string, now time.Time) *kvEntry {
	sp := m.spaces[ns]
	if sp == nil {
		return nil
	}
	e := sp.entries[key]
	if e == nil {
		return nil
	}
	if e.expired(now) {
		m.removeKV(e)
		return nil
	}
	return e
}

// sweep drops every entry whose expiry is not after now.
func (m *Memory) sweep(now time.Time) {
	for len(m.leases) > 0 && !now.Before(m.leases[0].expiry()) {
		m.removeIdem(m.leases[0].(*idemRecord))
	}
	for len(m.done) > 0 && !now.Before(m.done[0].expiry()) {
		m.removeIdem(m.done[0].(*idemRecord))
	}
	for len(m.ttls) > 0 && !now.Before(m.ttls[0].expiry()) {
		m.removeKV(m.ttls[0].(*kvEntry))
	}
}

// makeRoom evicts completed Idempotency-Key records, soonest to expire
// first, until need more bytes fit, and reports whether they do. The caller
// has swept expired entries already.
func (m *Memory) makeRoom(need int64) bool {
	for m.used+need > m.max && len(m.done) > 0 {
		m.removeIdem(m.done[0].(*idemRecord))
	}
	return m.used+need <= m.max
}

// full returns ErrFull for an operation (e.g. `set "k" in "app"`) that
// needed size bytes.
func (m *Memory) full(op string, size int64) error {
	return fmt.Errorf("storage: %s: %w: %d bytes do not fit (%d of MaxBytes %d in use by KV data and in-flight records)",
		op, ErrFull, size, m.used, m.max)
}

func (m *Memory) removeIdem(r *idemRecord) {
	delete(m.idem, r.key)
	m.used -= r.size
	if r.completed {
		heap.Remove(&m.done, r.index)
	} else {
		heap.Remove(&m.leases, r.index)
	}
}

func (m *Memory) removeKV(e *kvEntry) {
	sp := e.space
	delete(sp.entries, e.key)
	if i, found := slices.BinarySearch(sp.keys, e.key); found {
		sp.keys = slices.Delete(sp.keys, i, i+1)
	}
	if len(sp.entries) == 0 {
		delete(m.spaces, sp.name)
	}
	m.used -= e.size
	if e.index >= 0 {
		heap.Remove(&m.ttls, e.index)
	}
}

// idemRecord is one Idempotency-Key record: in flight (lease set) or
// completed (answer set). expires is the lease's end or the replay's.
type idemRecord struct {
	key, fp, lease string
	completed      bool
	answer         Answer
	expires        time.Time
	size           int64
	index          int // in Memory.leases or Memory.done
}

func (r *idemRecord) expiry() time.Time { return r.expires }
func (r *idemRecord) setIndex(i int)    { r.index = i }

// measure returns the bytes r counts against MaxBytes.
func (r *idemRecord) measure() int64 {
	n := len(r.key) + len(r.fp) + len(r.lease) + len(r.answer.Body)
	for name, values := range r.answer.Header {
		n += len(name)
		for _, v := range values {
			n += len(v)
		}
	}
	return int64(n)
}

// record returns what Claim reports about r: a copy.
func (r *idemRecord) record() Record {
	if r.completed {
		return Record{Fingerprint: r.fp, Completed: true, Answer: cloneAnswer(r.answer)}
	}
	return Record{Fingerprint: r.fp, LeaseExpires: r.expires}
}

// kvSpace is one namespace's entries, and their keys in byte order.
type kvSpace struct {
	name    string
	entries map[string]*kvEntry
	keys    []string
}

// kvEntry is one KV value; a zero expires means none.
type kvEntry struct {
	space   *kvSpace
	key     string
	value   []byte
	size    int64
	expires time.Time
	index   int // in Memory.ttls, or -1
}

func (e *kvEntry) expiry() time.Time { return e.expires }
func (e *kvEntry) setIndex(i int)    { e.index = i }

func (e *kvEntry) expired(now time.Time) bool {
	return !e.expires.IsZero() && !now.Before(e.expires)
}

// expiring is an entry kept in an expiryHeap.
type expiring interface {
	expiry() time.Time
	setIndex(int)
}

// expiryHeap is a min-heap by expiry (container/heap); entries know their
// index so they can be removed or fixed in place.
type expiryHeap []expiring

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].expiry().Before(h[j].expiry()) }
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].setIndex(i)
	h[j].setIndex(j)
}

func (h *expiryHeap) Push(x any) {
	e := x.(expiring)
	e.setIndex(len(*h))
	*h = append(*h, e)
}

func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.setIndex(-1)
	return e
}

// newLease returns a fresh lease token: 16 random bytes in hex.
func newLease() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// cloneAnswer returns a deep copy of a.
func cloneAnswer(a Answer) Answer {
	return Answer{Status: a.Status, Header: a.Header.Clone(), Body: bytes.Clone(a.Body)}
}

// parseInteger parses v as Redis's INCRBY does: an optional minus sign and
// digits without leading zeros ("0" alone), within int64.
func parseInteger(v []byte) (int64, bool) {
	s := string(v)
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits[0] < '0' || digits[0] > '9' ||
		(digits[0] == '0' && (len(digits) > 1 || len(s) > 1)) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
