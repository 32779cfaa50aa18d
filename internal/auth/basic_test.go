package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/poll"
)

var basicScheme = auth.Scheme{Name: "admin", Type: "http", HTTPScheme: "basic"}

func basicRequest(user, pass string) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	r.SetBasicAuth(user, pass)
	return r
}

func newBasic(t *testing.T, users map[string]int) auth.Verifier {
	t.Helper()
	cfg := &auth.BasicConfig{Users: map[string]auth.BasicUser{}}
	for name, cost := range users {
		h, err := bcrypt.GenerateFromPassword([]byte(name+" password"), cost)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Users[name] = auth.BasicUser{Bcrypt: string(h)}
	}
	v, err := auth.New(basicScheme, auth.Config{Basic: cfg}, auth.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every check of a password does the work of the highest bcrypt cost
// among the users, whether the user exists or not and whatever its
// hash's cost: the time of a failure tells nothing. bcrypt's work is
// 2^cost, so the costs compared are summed as such.
func TestBasicEveryCheckCostsTheSame(t *testing.T) {
	v := newBasic(t, map[string]int{"alice": bcrypt.MinCost, "bob": bcrypt.MinCost + 2})
	var work atomic.Int64
	var compares atomic.Int32
	auth.SetCompare(v, func(hash, password []byte) error {
		cost, err := bcrypt.Cost(hash)
		if err != nil {
			t.Errorf("compared with %q, not a bcrypt hash", hash)
		}
		work.Add(1 << cost)
		compares.Add(1)
		return bcrypt.CompareHashAndPassword(hash, password)
	})
	tests := []struct {
		name, user, pass string
		ok               bool
	}{
		{"the user of the lower cost, a wrong password", "alice", "guess", false},
		{"the user of the higher cost, a wrong password", "bob", "guess", false},
		{"a user nobody has", "mallory", "guess", false},
		{"the user of the lower cost, the right password", "alice", "alice password", true},
		{"the user of the higher cost, the right password", "bob", "bob password", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work.Store(0)
			compares.Store(0)
			_, err := v.Verify(context.Background(), basicRequest(tt.user, tt.pass))
			if (err == nil) != tt.ok {
				t.Errorf("Verify = %v, want ok %v", err, tt.ok)
			}
			if compares.Load() == 0 {
				t.Fatalf("no bcrypt comparison made")
			}
			if got, want := work.Load(), int64(1)<<(bcrypt.MinCost+2); got != want {
				t.Errorf("bcrypt work %d (in 2^cost units), want %d, that of the highest cost", got, want)
			}
		})
	}
}

// No more password checks run at once than there are slots; the others
// wait for one, and give up at the request's deadline.
func TestBasicHashingIsBounded(t *testing.T) {
	v := newBasic(t, map[string]int{"alice": bcrypt.MinCost})
	slots := auth.HashSlots()
	release := make(chan struct{})
	var inside, peak atomic.Int32
	auth.SetCompare(v, func(hash, password []byte) error {
		n := inside.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		inside.Add(-1)
		return bcrypt.ErrMismatchedHashAndPassword
	})
	const extra = 5
	var wg sync.WaitGroup
	for range slots + extra {
		wg.Go(func() { v.Verify(context.Background(), basicRequest("alice", "guess")) })
	}
	if !poll.Until(waitBound, func() bool { return inside.Load() == int32(slots) && auth.HashWaiting() == extra }) {
		t.Fatalf("%d checks running and %d waiting, want %d and %d", inside.Load(), auth.HashWaiting(), slots, extra)
	}
	// All slots taken: a request whose deadline passed is refused
	// without checking its password. Its context is never done (as the
	// host's call, whose deadline ends the guest, not the context).
	ctx := deadlineOnly{context.Background(), time.Now().Add(-time.Second)}
	if _, err := v.Verify(ctx, basicRequest("alice", "guess")); !errors.Is(err, auth.ErrUnavailable) {
		t.Errorf("past the deadline: Verify = %v, want ErrUnavailable", err)
	}
	close(release)
	wg.Wait()
	if p := peak.Load(); p != int32(slots) {
		t.Errorf("%d checks ran at once, want at most (and here exactly) %d", p, slots)
	}
}

// deadlineOnly is a context with a deadline and no Done channel.
type deadlineOnly struct {
	context.Context
	deadline time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.deadline, true }

func TestFailureBudget(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	b := auth.NewFailureBudget(3, time.Minute, func() time.Time { return now })
	steps := []struct {
		name    string
		advance time.Duration
		key     string
		refund  bool
		want    time.Duration
	}{
		{"first failure", 0, "a", false, 0},
		{"second", 0, "a", false, 0},
		{"third", 0, "a", false, 0},
		{"fourth is refused until one is earned back (60s/3)", 0, "a", false, 20*time.Second + time.Millisecond},
		{"another key is not", 0, "b", true, 0},
		{"a third of the window later one more", 20 * time.Second, "a", false, 0},
		{"and no more", 0, "a", false, 20*time.Second + time.Millisecond},
		{"a verified credential gives its attempt back", 40 * time.Second, "a", true, 0},
		{"so the next one passes", 0, "a", false, 0},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		got := b.Spend(s.key)
		if got != s.want {
			t.Errorf("%s: Spend = %s, want %s", s.name, got, s.want)
		}
		if s.refund && got == 0 {
			b.Refund(s.key)
		}
	}
}

// An address's budget and a user name's are spent together; a request
// refused by one takes nothing from the other.
func TestFailures(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	const perAddress, perUser = 10, 50
	f := auth.NewFailures(perAddress, perUser, time.Minute, func() time.Time { return now })
	addrWait := time.Minute/perAddress + time.Millisecond
	userWait := time.Minute/perUser + time.Millisecond
	for i := range perAddress {
		if w := f.Spend("203.0.113.1", "alice"); w != 0 {
			t.Fatalf("failure %d: Spend = %s, want 0", i+1, w)
		}
	}
	if w := f.Spend("203.0.113.1", "bob"); w != addrWait {
		t.Errorf("the address's budget spent, another user: Spend = %s, want %s", w, addrWait)
	}
	if w := f.Spend("203.0.113.1", ""); w != addrWait {
		t.Errorf("the address's budget spent, no user: Spend = %s, want %s", w, addrWait)
	}
	// alice from many addresses: her budget is larger, but ends.
	for i := perAddress; i < perUser; i++ {
		if w := f.Spend(fmt.Sprintf("198.51.100.%d", i), "alice"); w != 0 {
			t.Fatalf("alice's failure %d: Spend = %s, want 0", i+1, w)
		}
	}
	if w := f.Spend("192.0.2.1", "alice"); w != userWait {
		t.Errorf("alice's budget spent: Spend = %s, want %s", w, userWait)
	}
	// That refusal took nothing from 192.0.2.1's budget.
	for i := range perAddress {
		if w := f.Spend("192.0.2.1", "carol"); w != 0 {
			t.Fatalf("192.0.2.1's failure %d after alice's refusal: Spend = %s, want 0", i+1, w)
		}
	}
	f.Refund("203.0.113.1", "")
	if w := f.Spend("203.0.113.1", "dave"); w != 0 {
		t.Errorf("after a refund: Spend = %s, want 0", w)
	}
}

func TestAddressKey(t *testing.T) {
	tests := []struct{ ip, want string }{
		{"203.0.113.7", "203.0.113.7"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"},
		{"not an address", "not an address"},
	}
	for _, tt := range tests {
		if got := auth.AddressKey(tt.ip); got != tt.want {
			t.Errorf("AddressKey(%q) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}
