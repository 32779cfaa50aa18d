package storage

import (
	"context"
	"fmt"
	"math/bits"
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
	tokens int64 // microtokens
	at     time.Time
	until  time.Time // full again: the entry may go
}

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

// bucketBytes is what a bucket counts against MaxBytes besides its key.
const bucketBytes = 48

// Take implements [RateLimiter]. Buckets count against MaxBytes (their key
// and 48 bytes) and are dropped once full again, which is when they would
// say nothing a new bucket does not. When no room is left, Take returns an
// error wrapping [ErrFull].
func (m *Memory) Take(_ context.Context, key string, rate Rate) (Decision, error) {
	if err := rate.check(); err != nil {
		return Decision{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Decision{}, errClosed
	}
	now := m.now()
	b := m.buckets[key]
	if b == nil {
		m.sweepBuckets(now)
		size := int64(len(key) + bucketBytes)
		if !m.makeRoom(size) {
			return Decision{}, m.full(fmt.Sprintf("rate limit %q", key), size)
		}
		if m.buckets == nil {
			m.buckets = map[string]*bucket{}
		}
		b = &bucket{tokens: rate.capacity(), at: now}
		m.buckets[key] = b
		m.used += size
	}
	return b.take(rate, now), nil
}

// sweepBuckets drops the buckets that are full again, once their number
// doubled since the last sweep: amortised constant time per Take.
func (m *Memory) sweepBuckets(now time.Time) {
	if len(m.buckets) < max(64, 2*m.bucketsSwept) {
		return
	}
	for k, b := range m.buckets {
		if !now.Before(b.until) {
			delete(m.buckets, k)
			m.used -= int64(len(k) + bucketBytes)
		}
	}
	m.bucketsSwept = len(m.buckets)
}

var _ RateLimiter = (*Memory)(nil)
