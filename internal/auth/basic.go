package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Bounds of the cache of passwords a basic verifier checked: bcrypt is
// slow on purpose (50-100 ms at cost 10), so a client repeating a good
// password must not cost that each time.
const (
	basicCacheEntries = 1000
	basicCacheTTL     = 5 * time.Minute
)

// hashSlots bounds the bcrypt comparisons running at once in the
// process, whichever scheme asks: each holds a core for tens of
// milliseconds, and a flood of guesses must not take them all.
// hashWaiting counts the verifications waiting for a slot.
var (
	hashSlots   = make(chan struct{}, runtime.GOMAXPROCS(0))
	hashWaiting atomic.Int64
)

// dummyPassword is what the dummy hashes hash.
const dummyPassword = "endpoints: no such user"

// dummyHashes are bcrypt hashes of dummyPassword by cost, made when a
// verifier first needs one (generating costs as much as comparing) and
// kept for the verifiers of later reloads.
var dummyHashes struct {
	mu     sync.Mutex
	byCost map[int][]byte
}

func dummyHash(cost int) ([]byte, error) {
	dummyHashes.mu.Lock()
	defer dummyHashes.mu.Unlock()
	if h, ok := dummyHashes.byCost[cost]; ok {
		return h, nil
	}
	h, err := bcrypt.GenerateFromPassword([]byte(dummyPassword), cost)
	if err != nil {
		return nil, err
	}
	if dummyHashes.byCost == nil {
		dummyHashes.byCost = map[int][]byte{}
	}
	dummyHashes.byCost[cost] = h
	return h, nil
}

type basicVerifier struct {
	scheme Scheme
	realm  string
	users  map[string]basicEntry
	// unknown is what a user name nobody has is compared with: a dummy
	// hash of the highest cost of the users.
	unknown [][]byte
	now     func() time.Time
	// compare is bcrypt.CompareHashAndPassword; tests count its calls.
	compare func(hash, password []byte) error
	mu      sync.Mutex
	cache   map[[sha256.Size]byte]time.Time // verified user+password → until
}

// basicEntry is a user with the hashes a check of its password compares:
// its own, then dummies (pad) that bring the work to that of the highest
// cost among the users. bcrypt's work doubles with each cost, so a user
// of cost c is padded with dummies of costs c, c+1... up to the highest
// minus one: 2^c + (2^c + ... + 2^(max-1)) = 2^max. Whether a user exists
// or which cost its hash has does not show in the time of a failure.
type basicEntry struct {
	hash   []byte
	pad    [][]byte
	scopes []string
}

func newBasic(s Scheme, c *BasicConfig) (*basicVerifier, error) {
	// c passed Config.Check: users, their names and hashes.
	member := "security." + s.Name + ".basic"
	costs := map[string]int{}
	highest := 0
	for name, u := range c.Users {
		cost, err := bcrypt.Cost([]byte(u.Bcrypt))
		if err != nil {
			return nil, fmt.Errorf("%s.users.%s.bcrypt: not a bcrypt hash (\"$2a$10$...\", from htpasswd -nbB or bcrypt.GenerateFromPassword): %v", member, name, err)
		}
		costs[name] = cost
		highest = max(highest, cost)
	}
	realm := c.Realm
	if realm == "" {
		realm = s.Name
	}
	v := &basicVerifier{scheme: s, realm: realm, users: map[string]basicEntry{}, now: time.Now,
		compare: bcrypt.CompareHashAndPassword, cache: map[[sha256.Size]byte]time.Time{}}
	for name, u := range c.Users {
		e := basicEntry{hash: []byte(u.Bcrypt), scopes: u.Scopes}
		for cost := costs[name]; cost < highest; cost++ {
			h, err := dummyHash(cost)
			if err != nil {
				return nil, fmt.Errorf("%s.users.%s.bcrypt: cost %d: %v", member, name, cost, err)
			}
			e.pad = append(e.pad, h)
		}
		v.users[name] = e
	}
	h, err := dummyHash(highest)
	if err != nil {
		return nil, fmt.Errorf("%s.users: cost %d: %v", member, highest, err)
	}
	v.unknown = [][]byte{h}
	return v, nil
}

func (v *basicVerifier) Close() error { return nil }

// MayBeUnavailable: a password is checked (bcrypt) in one of a bounded
// number of slots, which a request waits for until its deadline.
func (v *basicVerifier) MayBeUnavailable() bool { return true }

func (v *basicVerifier) Challenge(*Failure) string {
	return "Basic realm=" + quote(v.realm) + `, charset="UTF-8"`
}

// BasicUserName returns the user name of r's basic credentials, without
// checking them: what a [FailureBudget] counts failures of.
func BasicUserName(r *http.Request) (string, bool) {
	user, _, err := basicCredentials(r)
	return user, err == nil
}

// basicCredentials reads r's Authorization: Basic credentials; a
// *Failure when there are none or they do not decode.
func basicCredentials(r *http.Request) (user, pass string, err error) {
	h := r.Header.Get("Authorization")
	scheme, enc, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Basic") {
		return "", "", missing()
	}
	if len(enc) > 1024 {
		return "", "", rejected("the credentials are longer than 1024 bytes")
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return "", "", rejected("the credentials are not base64")
	}
	user, pass, ok = strings.Cut(string(b), ":")
	if !ok {
		return "", "", rejected("the credentials are not user:password")
	}
	return user, pass, nil
}

func (v *basicVerifier) Verify(ctx context.Context, r *http.Request) (*Principal, error) {
	user, pass, err := basicCredentials(r)
	if err != nil {
		return nil, err
	}
	e, known := v.users[user]
	key := sha256.Sum256([]byte(user + "\x00" + pass))
	if known && v.cached(key) {
		return &Principal{Scheme: v.scheme.Name, Subject: user, Scopes: e.scopes}, nil
	}
	if err := acquireHashSlot(ctx); err != nil {
		return nil, fmt.Errorf("%w: waiting to check a password: %v", ErrUnavailable, err)
	}
	ok := false
	if known {
		ok = v.compare(e.hash, []byte(pass)) == nil
	} else {
		e.pad = v.unknown
	}
	for _, h := range e.pad {
		_ = v.compare(h, []byte(pass))
	}
	<-hashSlots
	if !ok {
		return nil, rejected("the user name or password is wrong")
	}
	v.remember(key)
	return &Principal{Scheme: v.scheme.Name, Subject: user, Scopes: e.scopes}, nil
}

// acquireHashSlot takes a slot of hashSlots, waiting no longer than ctx's
// deadline (the request's) or its end.
func acquireHashSlot(ctx context.Context) error {
	select {
	case hashSlots <- struct{}{}:
		return nil
	default:
	}
	hashWaiting.Add(1)
	defer hashWaiting.Add(-1)
	var expired <-chan time.Time
	if deadline, ok := ctx.Deadline(); ok {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case hashSlots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-expired:
		return context.DeadlineExceeded
	}
}

func (v *basicVerifier) cached(key [sha256.Size]byte) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	until, ok := v.cache[key]
	if ok && v.now().After(until) {
		delete(v.cache, key)
		return false
	}
	return ok
}

func (v *basicVerifier) remember(key [sha256.Size]byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	if len(v.cache) >= basicCacheEntries {
		for k, until := range v.cache {
			if now.After(until) || len(v.cache) >= basicCacheEntries {
				delete(v.cache, k)
			}
		}
	}
	v.cache[key] = now.Add(basicCacheTTL)
}
