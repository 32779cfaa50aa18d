package host

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
	"github.com/wasmendpoints/endpoints/openapi"
	"github.com/wasmendpoints/endpoints/storage"
)

// rateLimit is one policy of the settings, ready to apply.
type rateLimit struct {
	name    string
	cfg     config.RateLimit
	rate    storage.Rate
	methods []string
	header  string // for key "header:NAME"
}

// newRateLimits builds endpoints.json's rateLimits and trustedProxies,
// which config.Parse checked.
func newRateLimits(cfg *config.App) ([]*rateLimit, []netip.Prefix, error) {
	var trusted []netip.Prefix
	for i, p := range cfg.TrustedProxies {
		pfx, err := config.TrustedProxy(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: /trustedProxies/%d: %v", config.File, i, err)
		}
		trusted = append(trusted, pfx)
	}
	var out []*rateLimit
	for _, name := range slices.Sorted(maps.Keys(cfg.RateLimits)) {
		c := cfg.RateLimits[name]
		rl := &rateLimit{name: name, cfg: c, methods: c.Methods,
			rate: storage.Rate{Limit: c.Limit, Window: time.Duration(c.Window), Burst: c.Burst}}
		if key, ok := strings.CutPrefix(c.Key, "header:"); ok {
			rl.header = http.CanonicalHeaderKey(key)
		}
		out = append(out, rl)
	}
	return out, trusted, nil
}

// applies reports whether the policy limits requests to route (client
// form) with method.
func (rl *rateLimit) applies(route, method string) bool {
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

// clientKey says who the client of c is, for the policy: at most
// [maxClientKey] bytes and a prefix, whatever the client sends.
func (rl *rateLimit) clientKey(c *call, r *http.Request, trusted []netip.Prefix) string {
	switch {
	case rl.cfg.Key == "subject" && c.principal != nil:
		return boundKey("sub", c.principal.Scheme+":"+c.principal.Subject)
	case rl.header != "":
		if v := r.Header.Get(rl.header); v != "" {
			return boundKey("hdr", v)
		}
	}
	return "ip:" + ratelimit.ClientIP(r, trusted)
}

// maxClientKey is the longest client value a rate-limit key holds as it
// is; a longer one (a 60 KB header, a long subject) is replaced by its
// SHA-256, so a bucket costs the store the same whatever the client sends.
const maxClientKey = 64

// boundKey returns kind:value, or kind#sha256-of-value in hex when value is
// longer than maxClientKey. The separators differ, so a value cannot pass
// for another's hash.
func boundKey(kind, value string) string {
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

// limitRate takes a token from each policy that applies to the request.
// It reports whether the request may go on; when it may not, it answered
// 429 (or 503 when the store cannot be reached or has no room).
func (h *Host) limitRate(w http.ResponseWriter, r *http.Request, c *call) bool {
	set := c.set
	if len(set.rateLimits) == 0 {
		return true
	}
	route := c.route.rf.Pattern()
	for _, rl := range set.rateLimits {
		if !rl.applies(route, r.Method) {
			continue
		}
		limiter, ok := h.store.(storage.RateLimiter)
		if !ok {
			// Checked at load: unreachable unless an embedder swaps stores.
			writeError(w, r, http.StatusInternalServerError, "", nil)
			return false
		}
		key := rateLimitKeyPrefix + h.namespace + ":" + rl.name + ":" + rl.clientKey(c, r, set.trustedProxies)
		stored := c.startSpan(StepStore, "take")
		d, err := limiter.Take(c, key, rl.rate)
		endSpan(stored, err)
		if err != nil {
			h.observeStoreError("take", err)
			h.logger.Warn("rate limit not checked: the store failed", "policy", rl.name, "error", err, "requestId", c.requestID)
			if errors.Is(err, storage.ErrUnavailable) || errors.Is(err, storage.ErrFull) {
				h.discardBody(w, r, c)
				w.Header().Set("Retry-After", "5")
				writeError(w, r, http.StatusServiceUnavailable, "", nil)
				return false
			}
			writeError(w, r, http.StatusInternalServerError, "", nil)
			return false
		}
		ratelimit.SetHeaders(w.Header(), rl.name, rl.rate, d)
		if !d.Allowed {
			h.discardBody(w, r, c)
			writeError(w, r, http.StatusTooManyRequests, "", map[string]any{"policy": rl.name, "retryAfter": retrySeconds(d.RetryAfter)})
			return false
		}
	}
	return true
}

// retrySeconds rounds a wait up to whole seconds, at least 1, as
// Retry-After says it.
func retrySeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// documentRateLimits lists the 429 of every operation a policy limits.
func documentRateLimits(doc *openapi.Document, limits []*rateLimit) error {
	if len(limits) == 0 {
		return nil
	}
	var err error
	doc.Operations(func(path, method string, op *openapi.Operation) {
		route := openapi.ClientPath(path)
		var names []string
		for _, rl := range limits {
			if rl.applies(route, method) {
				names = append(names, rl.name)
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
			Description: "Too many requests: rate limit " + strings.Join(names, ", "),
			Schema:      openapi.SchemaTooManyRequests,
			Headers: map[string]*openapi.Header{
				"Retry-After":      {Description: "Seconds until a request may pass.", Required: true, Schema: []byte(`{"type":"integer","minimum":1}`)},
				"RateLimit-Policy": policy,
				"RateLimit":        left,
			},
		})
		// Every answer of a limited operation carries the policy and what
		// is left of it.
		for _, r := range op.Responses {
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
