package storage

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// idemStore is the Idempotency-Key records of a [Memory] store, under
// their own lock and budget.
type idemStore struct {
	mu     sync.Mutex
	closed bool
	budget budget
	recs   map[string]*idemRecord
	// leases holds the in-flight records, done the completed ones; each is
	// a min-heap by expiry.
	leases, done expiryHeap
	// clients holds what each client's records take ([Client]), for the
	// clients that hold any.
	clients map[string]*idemClient
}

// idemClient is one client's share of the records: the bytes they take,
// and the records themselves in a min-heap by expiry (so a refused claim
// can say when the first gives its share back).
type idemClient struct {
	used int64
	recs expiryHeap // of *clientSlot
}

// clientSlot is a record's place in its client's heap.
type clientSlot struct {
	r     *idemRecord
	index int
}

func (c *clientSlot) expiry() time.Time { return c.r.expires }
func (c *clientSlot) setIndex(i int)    { c.index = i }

func (s *idemStore) init(limit int64) {
	s.budget.name, s.budget.max = "Idempotency-Key records (IdempotencyBytes)", limit
	s.recs = make(map[string]*idemRecord)
	s.clients = make(map[string]*idemClient)
}

func (s *idemStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.recs, s.leases, s.done, s.clients = nil, nil, nil, nil
	s.budget.used.Store(0)
}

// Claim implements [Idempotency.Claim]. When the records' budget is full of
// records still in their lease or replay window, it returns [ErrFull] and
// evicts none of them. It leaves an eighth of the budget free for the
// answers of the requests in flight (see [claimReserve]). A claim past the
// client's share returns a [*QuotaError] before the budget is looked at.
func (m *Memory) Claim(_ context.Context, key, fp string, lease time.Duration, client Client) (Claim, error) {
	if lease <= 0 {
		return Claim{}, fmt.Errorf("storage: claim %q: lease %v must be positive", key, lease)
	}
	s := &m.idem
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Claim{}, errClosed
	}
	now := m.now()
	s.sweep(now)
	if r := s.recs[key]; r != nil {
		if now.Before(r.expires) {
			return Claim{Record: r.record()}, nil
		}
		s.remove(r)
	}
	r := &idemRecord{key: key, fp: fp, lease: newLease(), client: client.ID, quota: client.MaxBytes, expires: now.Add(lease), index: -1}
	r.size = r.measure()
	if err := s.withinQuota(r, now); err != nil {
		return Claim{}, err
	}
	if !s.budget.takeWithin(r.size, s.budget.max-s.budget.max/claimReserve) {
		return Claim{}, s.budget.full(fmt.Sprintf("claim %.64q", key), r.size)
	}
	// Copies, so that a record never keeps a larger string it was cut
	// from alive (its size would be counted wrong).
	r.key, r.fp, r.client = strings.Clone(key), strings.Clone(fp), strings.Clone(client.ID)
	s.add(r)
	heap.Push(&s.leases, r)
	return Claim{Acquired: true, Lease: r.lease}, nil
}

// withinQuota returns a [*QuotaError] when r would take its client's
// records past the client's share.
func (s *idemStore) withinQuota(r *idemRecord, now time.Time) error {
	if r.client == "" || r.quota <= 0 {
		return nil
	}
	c := s.clients[r.client]
	var used int64
	if c != nil {
		used = c.used
	}
	if used+r.size <= r.quota {
		return nil
	}
	q := &QuotaError{Client: r.client, Used: used, Need: r.size, MaxBytes: r.quota}
	if c != nil && len(c.recs) > 0 {
		q.RetryAfter = max(c.recs[0].expiry().Sub(now), 0)
	}
	return q
}

// add keeps r, counted against its client's share.
func (s *idemStore) add(r *idemRecord) {
	s.recs[r.key] = r
	if r.client == "" {
		return
	}
	c := s.clients[r.client]
	if c == nil {
		c = &idemClient{}
		s.clients[r.client] = c
	}
	c.used += r.size
	r.slot = &clientSlot{r: r}
	heap.Push(&c.recs, r.slot)
}

// claimReserve says what part of the records' budget Claim leaves free
// (1/claimReserve, an eighth): room for the answers of the requests in
// flight, which Complete may use. A Complete that does not fit drops its
// claim, and a retry runs the handler again; with the reserve, that takes
// answers in flight adding up to an eighth of the budget (3 MiB by
// default) at once, not one answer when the budget is nearly full.
const claimReserve = 8

// Complete implements [Idempotency.Complete]. The stored answer is a copy:
// the caller may reuse answer's header and body. An answer that does not
// fit in the records' budget drops the claim as Release does and returns
// [ErrFull]: a retry runs the handler again. No other record is evicted to
// make room. The answer counts against the claiming client's share even
// past it (see [Idempotency.Complete]).
func (m *Memory) Complete(_ context.Context, key, lease string, answer Answer, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("storage: complete %q: ttl %v must be positive", key, ttl)
	}
	s := &m.idem
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	now := m.now()
	s.sweep(now)
	r, err := s.held(key, lease, now)
	if err != nil {
		return err
	}
	done := &idemRecord{key: r.key, fp: r.fp, client: r.client, completed: true, answer: cloneAnswer(answer), expires: now.Add(ttl), index: -1}
	done.size = done.measure()
	s.remove(r)
	if !s.budget.take(done.size) {
		// The lease is gone with the record: a retry runs the handler
		// again, which is what Release would have done.
		return s.budget.full(fmt.Sprintf("complete %.64q", key), done.size)
	}
	s.add(done)
	heap.Push(&s.done, done)
	return nil
}

// Release implements [Idempotency.Release].
func (m *Memory) Release(_ context.Context, key, lease string) error {
	s := &m.idem
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	now := m.now()
	s.sweep(now)
	r, err := s.held(key, lease, now)
	if err != nil {
		return err
	}
	s.remove(r)
	return nil
}

// held returns key's in-flight record when lease is still its lease.
func (s *idemStore) held(key, lease string, now time.Time) (*idemRecord, error) {
	r := s.recs[key]
	if r == nil || r.completed || r.lease != lease || !now.Before(r.expires) {
		return nil, fmt.Errorf("storage: key %q: %w", key, ErrLeaseLost)
	}
	return r, nil
}

// sweep drops every record whose lease or replay window ended by now.
func (s *idemStore) sweep(now time.Time) {
	for len(s.leases) > 0 && !now.Before(s.leases[0].expiry()) {
		s.remove(s.leases[0].(*idemRecord))
	}
	for len(s.done) > 0 && !now.Before(s.done[0].expiry()) {
		s.remove(s.done[0].(*idemRecord))
	}
}

// remove drops r, and gives its bytes back to the budget and to its
// client's share.
func (s *idemStore) remove(r *idemRecord) {
	delete(s.recs, r.key)
	s.budget.give(r.size)
	if r.completed {
		heap.Remove(&s.done, r.index)
	} else {
		heap.Remove(&s.leases, r.index)
	}
	if r.slot != nil {
		c := s.clients[r.client]
		c.used -= r.size
		heap.Remove(&c.recs, r.slot.index)
		r.slot = nil
		if len(c.recs) == 0 {
			delete(s.clients, r.client)
		}
	}
}

// idemRecord is one Idempotency-Key record: in flight (lease set) or
// completed (answer set). expires is the lease's end or the replay's.
// client is who claimed it ([Client.ID]) and quota that client's share
// (checked by Claim); slot is its place in the client's heap (nil without
// a client).
type idemRecord struct {
	key, fp, lease string
	client         string
	quota          int64
	completed      bool
	answer         Answer
	expires        time.Time
	size           int64
	index          int // in idemStore.leases or idemStore.done
	slot           *clientSlot
}

func (r *idemRecord) expiry() time.Time { return r.expires }
func (r *idemRecord) setIndex(i int)    { r.index = i }

// measure returns the bytes r counts against the records' budget: its
// strings, body and headers, and the per-record overhead.
func (r *idemRecord) measure() int64 {
	n := idemRecordBytes + allocBytes(len(r.key)) + allocBytes(len(r.fp)) + allocBytes(len(r.lease)) + allocBytes(len(r.client)) + allocBytes(len(r.answer.Body))
	if r.client != "" {
		n += clientSlotBytes
	}
	if len(r.answer.Header) > 0 {
		n += headerMapBytes
	}
	for name, values := range r.answer.Header {
		// A map slot, the name, the values' slice and each value.
		n += headerEntryBytes + allocBytes(len(name)) + allocBytes(16*len(values))
		for _, v := range values {
			n += allocBytes(len(v))
		}
	}
	return n
}

// What an answer's header costs beside its names and values: the map
// (measured: about 320 bytes for one entry) and each entry's slot in it.
// A record claimed for a client adds its slot in the client's heap (the
// slot and the heap's element).
const (
	headerMapBytes   = 320
	headerEntryBytes = 48
	clientSlotBytes  = 48
)

// record returns what Claim reports about r: a copy.
func (r *idemRecord) record() Record {
	if r.completed {
		return Record{Fingerprint: r.fp, Completed: true, Answer: cloneAnswer(r.answer)}
	}
	return Record{Fingerprint: r.fp, LeaseExpires: r.expires}
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

// cloneAnswer returns a deep copy of a.
func cloneAnswer(a Answer) Answer {
	return Answer{Status: a.Status, Header: a.Header.Clone(), Body: bytes.Clone(a.Body)}
}
