package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Bounds of fetching a JWKS URL.
const (
	// maxJWKSRedirects is how many redirects within the key set's own
	// origin a fetch follows; a redirect to another origin is never
	// followed.
	maxJWKSRedirects = 3
	// jwksRetryFirst is the wait after a failed fetch; it doubles with
	// each failure in a row, up to jwksRetryMax (or the refresh interval
	// when that is shorter).
	jwksRetryFirst = time.Second
	jwksRetryMax   = 5 * time.Minute
)

// keySource holds the keys of a verifier: fixed (an environment
// secret), or loaded (from a URL, or a file read again when it changes).
type keySource struct {
	fixed  []jose.JSONWebKey
	loaded *loadedKeys
}

func (s *keySource) algorithms() []jose.SignatureAlgorithm {
	keys := s.fixed
	if s.loaded != nil {
		if s.loaded.file == "" {
			return []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA}
		}
		s.loaded.mu.Lock()
		keys = s.loaded.set
		s.loaded.mu.Unlock()
	}
	var out []jose.SignatureAlgorithm
	for _, k := range keys {
		if a := keyAlg(k); a != "" && slices.Contains(supported, a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// lookup returns the keys that may have signed a token with kid (all,
// without one) and the generation of the key set they belong to.
func (s *keySource) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, uint64, error) {
	if s.loaded == nil {
		return matching(s.fixed, kid), 0, nil
	}
	return s.loaded.lookup(ctx, kid)
}

// poll checks a file the keys come from for a change, when that is due
// (keyFileCheck), and waits for the keys read again if it changed.
func (s *keySource) poll(ctx context.Context) {
	if s.loaded != nil {
		s.loaded.poll(ctx)
	}
}

// generation counts the key sets loaded: a token verified with an older
// one is verified again.
func (s *keySource) generation() uint64 {
	if s.loaded == nil {
		return 0
	}
	return s.loaded.gen.Load()
}

// mayBeUnavailable: only the keys of a URL may not be loaded yet.
func (s *keySource) mayBeUnavailable() bool { return s.loaded != nil && s.loaded.file == "" }

func (s *keySource) close() error {
	if s.loaded != nil {
		s.loaded.close()
	}
	return nil
}

func matching(keys []jose.JSONWebKey, kid string) []jose.JSONWebKey {
	if kid == "" {
		return keys
	}
	var out []jose.JSONWebKey
	for _, k := range keys {
		if k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// loadedKeys is a key set loaded again while the verifier serves: that of
// a JWKS URL, or of a file (a key set, or an HS256 secret) a deployment
// mounts and may rotate in place.
//
// A JWKS URL: a goroutine fetches it at start and every refresh, sooner
// again after a failure (backing off from jwksRetryFirst to jwksRetryMax).
// With Env.Offline nothing fetches it.
//
// A file: it is read at start, by the constructor; then a verification at
// least keyFileCheck after the last check looks at the file's identity,
// size and modification time (a stat), and reads it again when they
// changed. A file that became unreadable or invalid keeps the last good
// keys and logs a warning.
//
// Both: a token naming a kid the set lacks asks for a full load too, at
// most every unknownKidRefetch. At most one load is in flight, and none
// runs under mu: requests whose keys are cached never wait for it, and
// while no set was ever loaded they are refused at once (ErrUnavailable)
// rather than each fetching.
type loadedKeys struct {
	url, file, member string
	client            *http.Client
	refresh, timeout  time.Duration
	env               Env
	ctx               context.Context // cancelled by close: ends a fetch in flight
	cancel            context.CancelFunc
	loaded            chan struct{} // closed by the first load that succeeds
	// load gets the key set; unchanged when it is a file whose stat did
	// not change and force is false. One runs at a time.
	load func(ctx context.Context, force bool) (keys []jose.JSONWebKey, unchanged bool, err error)

	mu       sync.Mutex
	set      []jose.JSONWebKey
	gen      atomic.Uint64 // counts the changes of set; written under mu, read without it
	inflight chan struct{} // closed when the load in flight ends; nil when none is
	lastTry  time.Time     // when the last load started, by env.Now
	// nextCheck is when poll may look at a file again (Unix nanoseconds
	// by env.Now): read without mu, so that a verification between two
	// checks takes no lock.
	nextCheck atomic.Int64
	lastFull  time.Time // when the last load that reads the set whole started
	failures  int       // loads failed in a row
	lastErr   error     // why the last load failed; nil after a success
}

// where names the key set in errors: its URL or file.
func (r *loadedKeys) where() string {
	if r.file != "" {
		return r.file
	}
	return r.url
}

func urlKeys(env Env, member string, c *JWTConfig) (*keySource, error) {
	if err := checkJWKSURL(c.JWKSURL); err != nil {
		return nil, fmt.Errorf("%s: %v", member, err)
	}
	r := &loadedKeys{url: c.JWKSURL, member: member, refresh: c.Refresh.or(DefaultRefresh), timeout: c.Timeout.or(DefaultTimeout),
		env: env, loaded: make(chan struct{})}
	r.client = jwksClient(env.HTTPClient, r.timeout)
	r.load = func(context.Context, bool) ([]jose.JSONWebKey, bool, error) {
		keys, err := r.get()
		return keys, false, err
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if !env.Offline {
		go r.run()
	}
	return &keySource{loaded: r}, nil
}

// jwksClient is base (a default client when nil) with the timeout and a
// redirect policy that stays within the first request's origin: a key
// set redirected to another host is an attacker's as far as the host can
// tell.
func jwksClient(base *http.Client, timeout time.Duration) *http.Client {
	c := &http.Client{Timeout: timeout}
	if base != nil {
		cp := *base
		c = &cp
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxJWKSRedirects {
			return fmt.Errorf("stopped after %d redirects", maxJWKSRedirects)
		}
		if from, to := origin(via[0].URL), origin(req.URL); from != to {
			return fmt.Errorf("refused a redirect from %s to %s: a key set is fetched from its own origin only; configure the URL it moved to", from, to)
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return c
}

// origin is the scheme, host and port of u, with the scheme's default
// port written out (RFC 6454).
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// loopback reports whether host names this machine: "localhost" or a
// loopback address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (r *loadedKeys) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, uint64, error) {
	r.mu.Lock()
	select {
	case <-r.loaded:
	default:
		err := r.lastErr
		r.mu.Unlock()
		if err == nil {
			err = errors.New("the first fetch has not answered yet")
		}
		return nil, 0, fmt.Errorf("%w: the key set of %s was never loaded (%v); it is fetched again in the background", ErrUnavailable, r.where(), err)
	}
	keys, gen := matching(r.set, kid), r.gen.Load()
	if len(keys) > 0 || kid == "" {
		r.mu.Unlock()
		return keys, gen, nil
	}
	// A kid the set lacks: the provider, or the operator of the file,
	// may have rotated its keys. Wait for the load in flight, or one
	// started now unless a full one started less than unknownKidRefetch
	// ago.
	done := r.inflight
	if done == nil && r.env.Now().Sub(r.lastFull) >= unknownKidRefetch {
		done = r.startLocked(true)
	}
	r.mu.Unlock()
	if done == nil {
		return nil, gen, nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil, gen, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return matching(r.set, kid), r.gen.Load(), nil
}

// poll starts a check of the file, when keyFileCheck passed since the
// last load started and none is in flight, and waits for it (a stat; a
// read when the file changed) or for ctx.
func (r *loadedKeys) poll(ctx context.Context) {
	if r.file == "" || r.env.Now().UnixNano() < r.nextCheck.Load() {
		return
	}
	r.mu.Lock()
	if r.inflight != nil || r.env.Now().Sub(r.lastTry) < keyFileCheck {
		r.mu.Unlock()
		return
	}
	done := r.startLocked(false)
	r.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// startLocked starts a load, unless one is in flight, and returns the
// channel closed when it ends. A forced load reads the set whole; one
// that is not may find a file unchanged by its stat. r.mu is held.
func (r *loadedKeys) startLocked(force bool) chan struct{} {
	if r.inflight != nil {
		return r.inflight
	}
	done := make(chan struct{})
	r.inflight, r.lastTry = done, r.env.Now()
	r.nextCheck.Store(r.lastTry.Add(keyFileCheck).UnixNano())
	if force {
		r.lastFull = r.lastTry
	}
	go r.fetch(done, force)
	return done
}

// fetch loads the key set, outside r.mu, and keeps it; a failure keeps
// the last good set.
func (r *loadedKeys) fetch(done chan struct{}, force bool) {
	keys, unchanged, err := r.load(r.ctx, force)
	r.mu.Lock()
	switch {
	case err != nil:
		r.failures++
		r.lastErr = err
	case unchanged:
	default:
		if !slices.EqualFunc(r.set, keys, sameKey) {
			r.gen.Add(1)
		}
		r.set, r.failures, r.lastErr = keys, 0, nil
		select {
		case <-r.loaded:
		default:
			close(r.loaded)
		}
	}
	r.inflight = nil
	r.mu.Unlock()
	close(done)
}

// get makes one GET of the key set, within the timeout.
func (r *loadedKeys) get() ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	res, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET answered %s", res.Status)
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJWKSBytes {
		return nil, fmt.Errorf("the key set is larger than %d bytes", maxJWKSBytes)
	}
	return parseKeySet(b, false)
}

// run fetches the key set at start and every refresh until close; after
// a failure, again after retryAfter.
func (r *loadedKeys) run() {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-timer.C:
		}
		r.mu.Lock()
		done := r.startLocked(true)
		r.mu.Unlock()
		select {
		case <-r.ctx.Done():
			return
		case <-done:
		}
		r.mu.Lock()
		failures, err := r.failures, r.lastErr
		r.mu.Unlock()
		wait := r.refresh
		if failures > 0 {
			wait = retryAfter(failures, r.refresh)
			r.env.Logger.Warn("fetching the JWKS failed; the last keys keep serving, if any", "member", r.member, "url", r.url,
				"error", err, "failures", failures, "retryIn", wait)
		}
		timer.Reset(wait)
	}
}

// retryAfter is the wait after the nth failed fetch in a row: from
// jwksRetryFirst, doubling, to jwksRetryMax or refresh, the shorter.
func retryAfter(n int, refresh time.Duration) time.Duration {
	limit := min(jwksRetryMax, refresh)
	d := jwksRetryFirst
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

func (r *loadedKeys) close() { r.cancel() }
