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

// dummyHash is compared against for unknown users, so that the time taken
// does not tell which users exist.
// It is made on first use: bcrypt costs tens of milliseconds, which
// every program linking this package would otherwise pay at start.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("endpoints: no such user"), bcrypt.DefaultCost)
	return h
})

type basicVerifier struct {
	scheme Scheme
	realm  string
	users  map[string]BasicUser
	now    func() time.Time
	// sem bounds the bcrypt comparisons running at once.
	sem   chan struct{}
	mu    sync.Mutex
	cache map[[sha256.Size]byte]time.Time // verified user+password → until
}

func newBasic(s Scheme, c *BasicConfig) (*basicVerifier, error) {
	member := "security." + s.Name + ".basic"
	if len(c.Users) == 0 {
		return nil, fmt.Errorf("%s.users: list at least one user: {\"alice\": {\"bcrypt\": \"$2a$10$...\"}}", member)
	}
	for name, u := range c.Users {
		if strings.Contains(name, ":") || name == "" {
			return nil, fmt.Errorf("%s.users: %q: a user name is not empty and holds no ':' (RFC 7617)", member, name)
		}
		if _, err := bcrypt.Cost([]byte(u.Bcrypt)); err != nil {
			return nil, fmt.Errorf("%s.users.%s.bcrypt: not a bcrypt hash (\"$2a$10$...\", from htpasswd -nbB or bcrypt.GenerateFromPassword): %v", member, name, err)
		}
	}
	realm := c.Realm
	if realm == "" {
		realm = s.Name
	}
	return &basicVerifier{scheme: s, realm: realm, users: c.Users, now: time.Now,
		sem: make(chan struct{}, runtime.GOMAXPROCS(0)), cache: map[[sha256.Size]byte]time.Time{}}, nil
}

func (v *basicVerifier) Close() error { return nil }

func (v *basicVerifier) Challenge(*Failure) string {
	return "Basic realm=" + quote(v.realm) + `, charset="UTF-8"`
}

func (v *basicVerifier) Verify(ctx context.Context, r *http.Request) (*Principal, error) {
	h := r.Header.Get("Authorization")
	scheme, enc, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Basic") {
		return nil, missing()
	}
	if len(enc) > 1024 {
		return nil, rejected("the credentials are longer than 1024 bytes")
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return nil, rejected("the credentials are not base64")
	}
	user, pass, ok := strings.Cut(string(b), ":")
	if !ok {
		return nil, rejected("the credentials are not user:password")
	}
	u, known := v.users[user]
	key := sha256.Sum256([]byte(user + "\x00" + pass))
	if known && v.cached(key) {
		return &Principal{Scheme: v.scheme.Name, Subject: user, Scopes: u.Scopes}, nil
	}
	select {
	case v.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, ctx.Err())
	}
	var hash []byte
	if known {
		hash = []byte(u.Bcrypt)
	} else {
		hash = dummyHash()
	}
	err = bcrypt.CompareHashAndPassword(hash, []byte(pass))
	<-v.sem
	if err != nil || !known {
		return nil, rejected("the user name or password is wrong")
	}
	v.remember(key)
	return &Principal{Scheme: v.scheme.Name, Subject: user, Scopes: u.Scopes}, nil
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
