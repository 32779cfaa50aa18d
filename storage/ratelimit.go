package storage

import (
	"container/heap"
	"context"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"time"
)

// RateLimiter takes tokens from token buckets, atomically across every
// host sharing the store: the host's rate limits (endpoints.json's
// "rateLimits") keep one bucket per policy and client in it. It is
// optional: a Store that does not implement it cannot serve an app with
// rate limits, which the host says at load. [Memory] and the Redis store
// implement it.
type RateLimiter interface {
	// Take takes one token from the bucket named key, created full when
	// absent, after refilling it for the time since the last take.
	Take(ctx context.Context, key string, rate Rate) (Decision, error)
}

// Rate is the shape of a token bucket: it holds Burst tokens (Limit when
// zero) and refills continuously at Limit tokens per Window.
type Rate struct {
	// Limit is how many tokens are added per Window. Positive.
	Limit int64
	// Window is the period Limit counts over. Positive.
	Window time.Duration
	// Burst is the bucket's size: how many requests may come at once. If
	// zero, Limit.
	Burst int64
}

// Decision is the outcome of [RateLimiter.Take].
type Decision struct {
	// Allowed: a token was taken.
	Allowed bool
	// Remaining is how many whole tokens are left.
	Remaining int64
	// RetryAfter is, when not Allowed, how long until a token is back.
	RetryAfter time.Duration
	// Reset is how long until the bucket is full again.
	Reset time.Duration
}

// microtoken is the unit buckets count in: a token is a million of them,
// so refills of a fraction of a token add up exactly, in integers.
const microtoken = 1_000_000

// check returns an error for a Rate that makes no bucket.
func (r Rate) check() error {
	if r.Limit <= 0 || r.Window <= 0 || r.Burst < 0 || r.Limit > 1<<30 || r.Burst > 1<<30 {
		return fmt.Errorf("storage: rate %d per %s, burst %d: want a limit and burst of 1 to 2^30 and a positive window", r.Limit, r.Window, r.Burst)
	}
	return nil
}

func (r Rate) capacity() int64 {
	if r.Burst > 0 {
		return r.Burst * microtoken
	}
	return r.Limit * microtoken
}

// refill is how many microtokens elapsed adds: elapsed × Limit×10⁶ / Window,
// computed without overflow.
func (r Rate) refill(elapsed time.Duration) int64 {
	if elapsed <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(elapsed), uint64(r.Limit*microtoken))
	if hi >= uint64(r.Window) {
		return r.capacity()
	}
	q, _ := bits.Div64(hi, lo, uint64(r.Window))
	if q > uint64(r.capacity()) {
		return r.capacity()
	}
	return int64(q)
}

// wait is how long refilling need microtokens takes.
func (r Rate) wait(need int64) time.Duration {
	if need <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(need), uint64(r.Window))
	q, rem := bits.Div64(hi, lo, uint64(r.Limit*microtoken))
	if rem > 0 {
		q++
	}
	return time.Duration(q)
}

// bucket is a token bucket of the memory store.
type bucket struct {
	key    string
	tokens int64     // microtokens
	at     time.Time // of the last take
	until  time.Time // full again: the entry may go
	size   int64
	index  int // in bucketStore.heap
}

func (b *bucket) expiry() time.Time { return b.until }
func (b *bucket) setIndex(i int)    { b.index = i }

// take refills b to now and takes a token.
func (b *bucket) take(rate Rate, now time.Time) Decision {
	b.tokens = min(rate.capacity(), b.tokens+rate.refill(now.Sub(b.at)))
	b.at = now
	d := Decision{}
	if b.tokens >= microtoken {
		b.tokens -= microtoken
		d.Allowed = true
	} else {
		d.RetryAfter = rate.wait(microtoken - b.tokens)
	}
	d.Remaining = b.tokens / microtoken
	d.Reset = rate.wait(rate.capacity() - b.tokens)
	b.until = now.Add(d.Reset)
	return d
}

// bucketStore is the rate limits' buckets of a [Memory] store, under their
// own lock and budget.
type bucketStore struct {
	mu      sync.Mutex
	closed  bool
	budget  budget
	buckets map[string]*bucket
	// heap orders the buckets by the time each is full again.
	heap expiryHeap
}

func (s *bucketStore) init(limit int64) {
	s.budget.name, s.budget.max = "rate-limit buckets (RateLimitBytes)", limit
	s.buckets = make(map[string]*bucket)
}

func (s *bucketStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.buckets, s.heap = nil, nil
	s.budget.used.Store(0)
}

// Take implements [RateLimiter]. A bucket counts against the rate limits'
// budget (its key and a measured overhead) and is dropped once it is full
// again, when it would say nothing a new bucket does not: each Take drops
// every bucket whose time has come, soonest first.
//
// When a new bucket does not fit, the buckets closest to full go first, so
// a flood of clients never stops the limits from answering. What that
// costs is bounded: a bucket goes only when every other one needs longer
// to be full, so its client gains back early at most what the newest
// bucket lacks, about one token's refill time of the busiest policy. Take
// returns [ErrFull] only for a key larger than the whole budget.
func (m *Memory) Take(_ context.Context, key string, rate Rate) (Decision, error) {
	if err := rate.check(); err != nil {
		return Decision{}, err
	}
	s := &m.buckets
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Decision{}, errClosed
	}
	now := m.now()
	s.sweep(now)
	b := s.buckets[key]
	if b == nil {
		size := bucketEntryBytes + allocBytes(len(key))
		for !s.budget.take(size) {
			if len(s.heap) == 0 {
				return Decision{}, s.budget.full(fmt.Sprintf("rate limit %.64q", key), size)
			}
			s.remove(s.heap[0].(*bucket))
		}
		b = &bucket{key: strings.Clone(key), tokens: rate.capacity(), at: now, size: size, index: -1}
		s.buckets[b.key] = b
		d := b.take(rate, now)
		heap.Push(&s.heap, b)
		return d, nil
	}
	d := b.take(rate, now)
	heap.Fix(&s.heap, b.index)
	return d, nil
}

// sweep drops every bucket full again by now.
func (s *bucketStore) sweep(now time.Time) {
	for len(s.heap) > 0 && !now.Before(s.heap[0].expiry()) {
		s.remove(s.heap[0].(*bucket))
	}
}

func (s *bucketStore) remove(b *bucket) {
	delete(s.buckets, b.key)
	s.budget.give(b.size)
	heap.Remove(&s.heap, b.index)
}

var _ RateLimiter = (*Memory)(nil)
