package auth

import (
	"net/netip"
	"sync"
	"time"
)

// DefaultFailureKeys bounds the clients and user names a [FailureBudget]
// tracks at once; past it, those whose budget is whole are forgotten
// first.
const DefaultFailureKeys = 100_000

// Failures is the failure budgets of an app: one per client address,
// one per user name. A user name's is larger, since every client shares
// it: a guessing attack spread over many addresses is bounded by it, and
// locks the name out (429) only past it.
type Failures struct {
	addresses, users *FailureBudget
}

// NewFailures returns the budgets of perAddress failures per client
// address and perUser per user name, each earned back over window
// (endpoints.json's authFailures, whose defaults are
// config.DefaultAuthFailuresPerAddress...). now is the clock (time.Now
// when nil).
func NewFailures(perAddress, perUser int, window time.Duration, now func() time.Time) *Failures {
	return &Failures{
		addresses: NewFailureBudget(perAddress, window, now),
		users:     NewFailureBudget(perUser, window, now),
	}
}

// Spend takes an attempt from the budget of the client address ip and,
// unless user is "", of the user name, before a credential is verified.
// It returns 0, or, when either budget is spent, how long until it is
// not, having taken nothing.
func (f *Failures) Spend(ip, user string) time.Duration {
	addr := AddressKey(ip)
	if wait := f.addresses.Spend(addr); wait > 0 || user == "" {
		return wait
	}
	if wait := f.users.Spend(user); wait > 0 {
		f.addresses.Refund(addr)
		return wait
	}
	return 0
}

// AddressWait is how long a client address that spent its budget waits
// for one attempt back (FailureBudget.AttemptWait).
func (f *Failures) AddressWait() time.Duration { return f.addresses.AttemptWait() }

// Refund gives back what Spend took: the credential verified, or none
// was sent.
func (f *Failures) Refund(ip, user string) {
	f.addresses.Refund(AddressKey(ip))
	if user != "" {
		f.users.Refund(user)
	}
}

// FailureBudget counts failed authentications per key (a client address,
// a user name), so that guessing credentials is refused (429) before it
// costs a verification: a request spends an attempt of each of its keys
// before its credential is verified, and gets it back when the credential
// verifies or none was sent. It is safe for concurrent use.
//
//	b := auth.NewFailureBudget(10, time.Minute, time.Now)
//	if wait := b.Spend(auth.AddressKey(ip)); wait > 0 {
//		// 429, Retry-After: wait
//	}
//	... verify; on success: b.Refund(auth.AddressKey(ip))
//
// # Notes
//
//   - Spending before verifying bounds the verifications in flight per
//     key too: 200 concurrent guesses from one address cost at most the
//     budget's worth of bcrypt.
//   - The counts live in the host's memory: each host of a fleet keeps
//     its own.
//   - A user name's budget is shared by every client: a guessing attack
//     on one user name past it locks that name out for the window,
//     whoever sends it, which is the price of stopping guesses spread
//     over many addresses ([Failures] gives names a larger budget).
type FailureBudget struct {
	limit   float64
	perSec  float64 // attempts earned back per second
	maxKeys int
	now     func() time.Time

	mu      sync.Mutex
	buckets map[string]*attempts
}

// attempts is what is left of one key's budget at a time.
type attempts struct {
	left float64
	at   time.Time
}

// NewFailureBudget returns a budget of limit failures per key, earned
// back over window. now is the clock (time.Now when nil).
func NewFailureBudget(limit int, window time.Duration, now func() time.Time) *FailureBudget {
	if now == nil {
		now = time.Now
	}
	return &FailureBudget{limit: float64(limit), perSec: float64(limit) / window.Seconds(), maxKeys: DefaultFailureKeys,
		now: now, buckets: map[string]*attempts{}}
}

// AttemptWait is how long one attempt takes to come back (the window
// over the limit): about what the first refusal of a spent key is told,
// which also waits out the millisecond Spend adds.
func (b *FailureBudget) AttemptWait() time.Duration {
	return time.Duration(float64(time.Second) / b.perSec)
}

// AddressKey is the budget key of a client address: an IPv6 address
// counts by its /64, which one client commonly holds whole.
func AddressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// Spend takes an attempt from each key's budget and returns 0, or, when
// one of them has none left, takes nothing and returns how long until it
// has one.
func (b *FailureBudget) Spend(keys ...string) time.Duration {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	var wait time.Duration
	for _, k := range keys {
		a := b.buckets[k]
		if a == nil {
			continue // whole
		}
		if left := min(b.limit, a.left+now.Sub(a.at).Seconds()*b.perSec); left < 1 {
			wait = max(wait, time.Duration((1-left)/b.perSec*float64(time.Second))+time.Millisecond)
		}
	}
	if wait > 0 {
		return wait // and no entry made: a refused request costs no memory
	}
	for _, k := range keys {
		b.refill(k, now).left--
	}
	return 0
}

// Refund gives back the attempt Spend took of each key: the credential
// verified, or none was sent.
func (b *FailureBudget) Refund(keys ...string) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		a := b.refill(k, now)
		a.left = min(a.left+1, b.limit)
		if a.left == b.limit {
			delete(b.buckets, k) // a whole budget needs no entry
		}
	}
}

// refill returns key's attempts at now, making the entry if need be. b.mu
// is held.
func (b *FailureBudget) refill(key string, now time.Time) *attempts {
	a := b.buckets[key]
	if a == nil {
		if len(b.buckets) >= b.maxKeys {
			b.sweep(now)
		}
		a = &attempts{left: b.limit, at: now}
		b.buckets[key] = a
		return a
	}
	if d := now.Sub(a.at); d > 0 {
		a.left = min(b.limit, a.left+d.Seconds()*b.perSec)
		a.at = now
	}
	return a
}

// sweep forgets the keys whose budget is whole again; when none is, an
// arbitrary tenth of them, so that the map stays bounded. b.mu is held.
func (b *FailureBudget) sweep(now time.Time) {
	for k, a := range b.buckets {
		if a.left+now.Sub(a.at).Seconds()*b.perSec >= b.limit {
			delete(b.buckets, k)
		}
	}
	for k := range b.buckets {
		if len(b.buckets) < b.maxKeys*9/10 {
			break
		}
		delete(b.buckets, k)
	}
}
