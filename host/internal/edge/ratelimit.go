package edge

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
	"github.com/wasmendpoints/endpoints/openapi"
	"github.com/wasmendpoints/endpoints/storage"
)

// RateLimit is one policy of the settings, ready to apply.
type RateLimit struct {
	// Name is the policy's name in endpoints.json's rateLimits.
	Name    string
	cfg     config.RateLimit
	rate    storage.Rate
	methods []string
	header  string // for key "header:NAME"
}

// NewRateLimits builds endpoints.json's rateLimits, in name order, and
// trustedProxies, which config.Parse checked.
func NewRateLimits(cfg *config.App) ([]*RateLimit, []netip.Prefix, error) {
	var trusted []netip.Prefix
	for i, p := range cfg.TrustedProxies {
		pfx, err := config.TrustedProxy(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: /trustedProxies/%d: %v", config.File, i, err)
		}
		trusted = append(trusted, pfx)
	}
	var out []*RateLimit
	for _, name := range slices.Sorted(maps.Keys(cfg.RateLimits)) {
		c := cfg.RateLimits[name]
		rl := &RateLimit{Name: name, cfg: c, methods: c.Methods,
			rate: storage.Rate{Limit: c.Limit, Window: time.Duration(c.Window), Burst: c.Burst}}
		if key, ok := strings.CutPrefix(c.Key, "header:"); ok {
			rl.header = http.CanonicalHeaderKey(key)
		}
		out = append(out, rl)
	}
	return out, trusted, nil
}

// Applies reports whether the policy limits requests to route (client
// form) with method.
func (rl *RateLimit) Applies(route, method string) bool {
	if len(rl.methods) > 0 && !slices.Contains(rl.methods, method) &&
		!(method == http.MethodHead && slices.Contains(rl.methods, http.MethodGet)) {
		return false
	}
	if len(rl.cfg.Routes) == 0 {
		return true
	}
	for _, p := range rl.cfg.Routes {
		if openapi.MatchRoutePattern(p, route) {
			return true
		}
	}
	return false
}

// clientKey says who the client of r is, for the policy: at most
// [maxClientKey] bytes and a prefix, whatever the client sends.
func (rl *RateLimit) clientKey(p *abi.Principal, r *http.Request, trusted []netip.Prefix) string {
	switch {
	case rl.cfg.Key == "subject" && p != nil:
		return BoundKey("sub", p.Scheme+":"+p.Subject)
	case rl.header != "":
		if v := r.Header.Get(rl.header); v != "" {
			return BoundKey("hdr", v)
		}
	}
	// An IPv6 address by its /64, as ClientKey names it: a host is
	// commonly given a /64, and each of its addresses would otherwise
	// have a bucket of its own.
	return "ip:" + auth.AddressKey(ratelimit.ClientIP(r, trusted))
}

// maxClientKey is the longest client value a rate-limit key holds as it
// is; a longer one (a 60 KB header, a long subject) is replaced by its
// SHA-256, so a bucket costs the store the same whatever the client sends.
const maxClientKey = 64

// BoundKey returns kind:value, or kind#sha256-of-value in hex when value is
// longer than maxClientKey. The separators differ, so a value cannot pass
// for another's hash.
func BoundKey(kind, value string) string {
	if len(value) <= maxClientKey {
		return kind + ":" + value
	}
	return kind + "#" + hex.EncodeToString(sha256String(value))
}

// sha256String returns the SHA-256 of s without copying s whole: a 60 KB
// header converted to []byte cost a 60 KB allocation per request, more
// than the hash itself (BenchmarkBoundKey).
func sha256String(s string) []byte {
	h := sha256.New()
	var chunk [4096]byte
	for s != "" {
		n := copy(chunk[:], s)
		h.Write(chunk[:n])
		s = s[n:]
	}
	return h.Sum(nil)
}

// rateLimitKeyPrefix keeps the buckets apart from other data of the store.
const rateLimitKeyPrefix = "endpoints:ratelimit:"

// Limiter applies the rate limits of one settings.
type Limiter struct {
	// Policies are the settings' rate limits; Trusted the proxies whose
	// forwarding headers say who the client is.
	Policies []*RateLimit
	Trusted  []netip.Prefix
	// Store keeps the buckets, under Namespace: the app's store.
	Store     storage.Store
	Namespace string
	Logger    *slog.Logger
}

// Refusal is how the host must answer a request a policy refused: Status
// (429, or 503 when the store cannot be reached or has no room, 500 when
// it failed otherwise), with Retry-After when RetryAfter is set, and Data
// as the error body's data. Discard says the request's body is read and
// dropped first, so that the client reads the answer.
type Refusal struct {
	Status     int
	RetryAfter string
	Data       any
	Discard    bool
}

// Take takes a token from each policy that applies to the request, a
// request of route (client form), and sets the RateLimit headers in
// header. It returns nil when the request may go on, else how to refuse
// it.
func (l *Limiter) Take(r *http.Request, route string, req Request, header http.Header) *Refusal {
	if len(l.Policies) == 0 {
		return nil
	}
	for _, rl := range l.Policies {
		if !rl.Applies(route, r.Method) {
			continue
		}
		limiter, ok := l.Store.(storage.RateLimiter)
		if !ok {
			// Checked at load: unreachable unless an embedder swaps stores.
			return &Refusal{Status: http.StatusInternalServerError}
		}
		key := rateLimitKeyPrefix + l.Namespace + ":" + rl.Name + ":" + rl.clientKey(req.Principal(), r, l.Trusted)
		stored := req.StoreSpan("take")
		d, err := limiter.Take(req, key, rl.rate)
		if stored != nil {
			stored(err)
		}
		if err != nil {
			req.ObserveStoreError("take", err)
			l.Logger.Warn("rate limit could not be checked, the store failed: the request is refused (503, Retry-After: 5) until the store answers", "policy", rl.Name, "error", err, "requestId", req.RequestID())
			if errors.Is(err, storage.ErrUnavailable) || errors.Is(err, storage.ErrFull) {
				return &Refusal{Status: http.StatusServiceUnavailable, RetryAfter: "5", Discard: true}
			}
			return &Refusal{Status: http.StatusInternalServerError}
		}
		ratelimit.SetHeaders(header, rl.Name, rl.rate, d)
		if !d.Allowed {
			return &Refusal{Status: http.StatusTooManyRequests, Discard: true, Data: map[string]any{"policy": rl.Name, "retryAfter": RetrySeconds(d.RetryAfter)}}
		}
	}
	return nil
}

// TokenWait is how long the policy's bucket takes to refill one token
// (its window over its limit): the wait the first request it refuses is
// told (Retry-After, the 429's retryAfter), a moment after a client's
// bucket ran out, the longest any refusal is told.
func (rl *RateLimit) TokenWait() time.Duration {
	return rl.rate.Window / time.Duration(rl.rate.Limit)
}

// RetrySeconds rounds a wait up to whole seconds, at least 1, as
// Retry-After says it.
func RetrySeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// limitsDescription describes the 429 of the rate limits named (in name
// order), as the document says it: DocumentGuard finds it there to add
// the failed-credentials budget.
func limitsDescription(names []string) string {
	return "Too many requests: rate limit " + strings.Join(names, ", ")
}

// DocumentRateLimits lists the 429 of every operation a policy limits.
func DocumentRateLimits(doc *openapi.Document, limits []*RateLimit) error {
	if len(limits) == 0 {
		return nil
	}
	var err error
	doc.Operations(func(path, method string, op *openapi.Operation) {
		route := openapi.ClientPath(path)
		var names []string
		var first *RateLimit // the one Limiter.Take asks first
		for _, rl := range limits {
			if rl.Applies(route, method) {
				names = append(names, rl.Name)
				if first == nil {
					first = rl
				}
			}
		}
		if len(names) == 0 || err != nil {
			return
		}
		str := []byte(`{"type":"string"}`)
		policy := &openapi.Header{Description: "The rate limits of the operation (draft-ietf-httpapi-ratelimit-headers).", Schema: str}
		left := &openapi.Header{Description: "What is left of each limit.", Schema: str}
		err = doc.AddHostResponse(op, openapi.HostResponse{
			Status:      http.StatusTooManyRequests,
			Description: limitsDescription(names),
			Schema:      openapi.SchemaTooManyRequests,
			Headers: map[string]*openapi.Header{
				"Retry-After":      {Description: "Seconds until a request may pass.", Required: true, Schema: []byte(`{"type":"integer","minimum":1}`)},
				"RateLimit-Policy": policy,
				"RateLimit":        left,
			},
			Example: hostExample(http.StatusTooManyRequests, map[string]any{"policy": first.Name, "retryAfter": RetrySeconds(first.TokenWait())}),
		})
		if err == nil {
			// The buckets are in the app's store: while it is down (or
			// full) the limits cannot be checked, and the host refuses
			// the request (Limiter.Take).
			err = doc.AddHostResponse(op, openapi.HostResponse{
				Status:      http.StatusServiceUnavailable,
				Description: "The rate limit " + strings.Join(names, ", ") + " cannot be checked now (the store is down)",
				Schema:      openapi.SchemaServiceUnavailable,
				Headers:     map[string]*openapi.Header{"Retry-After": retryAfter(RetryAfterUnavailableDescription)},
			})
		}
		// Every answer of a limited operation carries the policy and what
		// is left of it.
		for status := range op.Responses {
			// The host's shared 500 and 503 become this operation's own:
			// they carry the headers too.
			r := doc.OwnResponse(op, status)
			if r == nil || r.Ref != "" {
				continue // a reference has no members beside it
			}
			if r.Headers == nil {
				r.Headers = map[string]*openapi.Header{}
			}
			for name, h := range map[string]*openapi.Header{"RateLimit-Policy": policy, "RateLimit": left} {
				if _, ok := r.Headers[name]; !ok {
					r.Headers[name] = h
				}
			}
		}
	})
	return err
}
