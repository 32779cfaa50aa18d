package storage

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/btree"
)

// kvStore is the guests' key-value data of a [Memory] store: one kvSpace
// per namespace, each under its own lock, sharing one budget.
type kvStore struct {
	mu     sync.RWMutex // guards spaces and closed; each space has its own lock
	closed bool
	spaces map[string]*kvSpace
	budget budget
}

func (s *kvStore) init(limit int64) {
	s.budget.name, s.budget.max = "key-value data (KVBytes)", limit
	s.spaces = make(map[string]*kvSpace)
}

func (s *kvStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, sp := range s.spaces {
		sp.mu.Lock()
		sp.closed = true
		sp.items, sp.ttls = nil, nil
		sp.mu.Unlock()
	}
	s.spaces = nil
	s.budget.used.Store(0)
}

// space returns ns's space, locked, creating it when create is set (nil
// when absent otherwise). A space lives until Close: namespaces are the
// host's (one per app), not the guests'.
func (s *kvStore) space(ns string, create bool) (*kvSpace, error) {
	s.mu.RLock()
	closed, sp := s.closed, s.spaces[ns]
	s.mu.RUnlock()
	if closed {
		return nil, errClosed
	}
	if sp == nil {
		if !create {
			return nil, nil
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errClosed
		}
		if sp = s.spaces[ns]; sp == nil {
			size := kvSpaceBytes + allocBytes(len(ns))
			if !s.budget.take(size) {
				s.mu.Unlock()
				return nil, s.budget.full(fmt.Sprintf("namespace %q", ns), size)
			}
			sp = &kvSpace{
				name:   strings.Clone(ns),
				budget: &s.budget,
				items:  btree.NewG(kvDegree, func(a, b kvItem) bool { return a.key < b.key }),
				ttls: btree.NewG(kvDegree, func(a, b kvTTL) bool {
					return cmp.Or(cmp.Compare(a.expires, b.expires), strings.Compare(a.key, b.key)) < 0
				}),
			}
			s.spaces[sp.name] = sp
		}
		s.mu.Unlock()
	}
	sp.mu.Lock()
	if sp.closed {
		sp.mu.Unlock()
		return nil, errClosed
	}
	return sp, nil
}

// kvDegree is the B-trees' degree: nodes of up to 2×kvDegree-1 items.
const kvDegree = 32

// kvSpace is one namespace's entries: a B-tree by key, and a B-tree by
// expiry of those that expire.
type kvSpace struct {
	name   string
	budget *budget

	mu     sync.Mutex
	closed bool
	items  *btree.BTreeG[kvItem]
	ttls   *btree.BTreeG[kvTTL]
}

// kvItem is one KV value, kept in the tree by value; expires is Unix
// nanoseconds, 0 for none.
type kvItem struct {
	key     string
	value   []byte
	expires int64
}

// kvTTL is an entry of the expiry tree.
type kvTTL struct {
	expires int64
	key     string
}

// size is what it counts against the budget.
func (it kvItem) size() int64 {
	n := kvEntryBytes + allocBytes(len(it.key)) + allocBytes(len(it.value))
	if it.expires != 0 {
		n += kvTTLBytes
	}
	return n
}

func (it kvItem) expired(now int64) bool { return it.expires != 0 && it.expires <= now }

// sweep drops every entry whose expiry is not after now.
func (sp *kvSpace) sweep(now int64) {
	for {
		t, ok := sp.ttls.Min()
		if !ok || t.expires > now {
			return
		}
		if it, ok := sp.items.Get(kvItem{key: t.key}); ok && it.expires == t.expires {
			sp.remove(it)
		} else {
			sp.ttls.Delete(t) // put keeps the trees in step: not reached
		}
	}
}

// lookup returns the live entry under key, dropping it when it expired.
func (sp *kvSpace) lookup(key string, now int64) (kvItem, bool) {
	it, ok := sp.items.Get(kvItem{key: key})
	if !ok {
		return kvItem{}, false
	}
	if it.expired(now) {
		sp.remove(it)
		return kvItem{}, false
	}
	return it, true
}

func (sp *kvSpace) remove(it kvItem) {
	sp.items.Delete(it)
	if it.expires != 0 {
		sp.ttls.Delete(kvTTL{it.expires, it.key})
	}
	sp.budget.give(it.size())
}

// put stores value under key with the expiry given (0: none), or returns
// ErrFull and leaves the old value. It takes ownership of value.
func (sp *kvSpace) put(key string, value []byte, expires int64, op string) error {
	old, had := sp.items.Get(kvItem{key: key})
	it := kvItem{key: key, value: value, expires: expires}
	if had {
		it.key = old.key
	} else {
		it.key = strings.Clone(key)
	}
	size := it.size()
	need := size
	if had {
		need -= old.size()
	}
	if !sp.budget.take(need) {
		return sp.budget.full(fmt.Sprintf("%s %.64q in %q", op, key, sp.name), size)
	}
	if had && old.expires != 0 && old.expires != expires {
		sp.ttls.Delete(kvTTL{old.expires, old.key})
	}
	sp.items.ReplaceOrInsert(it)
	if expires != 0 && (!had || old.expires != expires) {
		sp.ttls.ReplaceOrInsert(kvTTL{expires, it.key})
	}
	return nil
}

// Get implements [KV.Get]. The value returned is a copy.
func (m *Memory) Get(_ context.Context, ns, key string) ([]byte, bool, error) {
	sp, err := m.kv.space(ns, false)
	if sp == nil || err != nil {
		return nil, false, err
	}
	defer sp.mu.Unlock()
	it, ok := sp.lookup(key, m.now().UnixNano())
	if !ok {
		return nil, false, nil
	}
	return bytes.Clone(it.value), true, nil
}

// Set implements [KV.Set]. It keeps a copy of value. A value that does not
// fit in the key-value budget returns [ErrFull] and leaves the old value
// in place.
func (m *Memory) Set(_ context.Context, ns, key string, value []byte, ttl time.Duration) error {
	sp, err := m.kv.space(ns, true)
	if err != nil {
		return err
	}
	defer sp.mu.Unlock()
	now := m.now().UnixNano()
	sp.sweep(now)
	var expires int64
	if ttl > 0 {
		expires = now + int64(ttl)
	}
	return sp.put(key, bytes.Clone(value), expires, "set")
}

// Delete implements [KV.Delete].
func (m *Memory) Delete(_ context.Context, ns, key string) (bool, error) {
	sp, err := m.kv.space(ns, false)
	if sp == nil || err != nil {
		return false, err
	}
	defer sp.mu.Unlock()
	now := m.now().UnixNano()
	sp.sweep(now)
	it, ok := sp.lookup(key, now)
	if !ok {
		return false, nil
	}
	sp.remove(it)
	return true, nil
}

// Incr implements [KV.Incr]. Like Redis's INCRBY, it accepts only a value
// written the way strconv.FormatInt writes it ("-12", not "+12", "012" or
// " 12"), and a result that overflows int64 is [ErrNotInteger] too.
func (m *Memory) Incr(_ context.Context, ns, key string, delta int64) (int64, error) {
	sp, err := m.kv.space(ns, true)
	if err != nil {
		return 0, err
	}
	defer sp.mu.Unlock()
	now := m.now().UnixNano()
	sp.sweep(now)
	var n, expires int64
	if it, ok := sp.lookup(key, now); ok {
		v, ok := parseInteger(it.value)
		if !ok {
			return 0, fmt.Errorf("storage: incr %q in %q: %w: %.40q", key, ns, ErrNotInteger, it.value)
		}
		n, expires = v, it.expires
	}
	if (delta > 0 && n > math.MaxInt64-delta) || (delta < 0 && n < math.MinInt64-delta) {
		return 0, fmt.Errorf("storage: incr %q in %q: %w: %d%+d overflows int64", key, ns, ErrNotInteger, n, delta)
	}
	n += delta
	if err := sp.put(key, strconv.AppendInt(nil, n, 10), expires, "incr"); err != nil {
		return 0, err
	}
	return n, nil
}

// List implements [KV.List]: O(log n + limit) in the namespace's B-tree,
// plus the expired keys it skips. A limit of zero or less returns no keys.
func (m *Memory) List(_ context.Context, ns, prefix, after string, limit int) ([]string, error) {
	sp, err := m.kv.space(ns, false)
	if err != nil {
		return nil, err
	}
	keys := []string{}
	if sp == nil {
		return keys, nil
	}
	defer sp.mu.Unlock()
	if limit <= 0 {
		return keys, nil
	}
	now := m.now().UnixNano()
	// The page starts at the first key >= prefix and > after.
	sp.items.AscendGreaterOrEqual(kvItem{key: max(after, prefix)}, func(it kvItem) bool {
		if !strings.HasPrefix(it.key, prefix) {
			return false
		}
		if it.key == after || it.expired(now) {
			return true // an expired key is dropped by the next write's sweep
		}
		keys = append(keys, it.key)
		return len(keys) < limit
	})
	return keys, nil
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
