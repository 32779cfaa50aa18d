// Package ratelimit writes the answers of the host's rate limits: the
// RateLimit-Policy and RateLimit header fields of
// draft-ietf-httpapi-ratelimit-headers (revision 10), Retry-After, and who
// a client is behind trusted proxies. The buckets themselves live in the
// app's store (storage.RateLimiter).
package ratelimit

import (
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

// SetHeaders adds the policy's items to RateLimit-Policy and RateLimit,
// structured-field lists whose items are the policy's name as a string
// with parameters: q (the quota), w (its window in seconds), r (what is
// left) and t (seconds until the quota is whole again). A refused request
// also gets Retry-After, in whole seconds, at least 1.
//
//	RateLimit-Policy: "orders";q=10;w=60
//	RateLimit: "orders";r=0;t=54
//	Retry-After: 6
//
// Policy names are tokens (letters, digits, '-', '_'), so they need no
// escaping.
func SetHeaders(h http.Header, policy string, rate storage.Rate, d storage.Decision) {
	q := rate.Burst
	if q == 0 {
		q = rate.Limit
	}
	h.Add("RateLimit-Policy", `"`+policy+`";q=`+strconv.FormatInt(q, 10)+";w="+strconv.FormatInt(seconds(rate.Window), 10))
	h.Add("RateLimit", `"`+policy+`";r=`+strconv.FormatInt(d.Remaining, 10)+";t="+strconv.FormatInt(seconds(d.Reset), 10))
	if !d.Allowed {
		h.Set("Retry-After", strconv.FormatInt(max(seconds(d.RetryAfter), 1), 10))
	}
}

// seconds rounds d up to whole seconds.
func seconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// Trusted reports whether a is in one of the trusted proxies' prefixes,
// whatever IPv6 zone it names (a proxy reached over a link-local address,
// "fe80::1%eth0": netip.Prefix.Contains holds no zoned address).
func Trusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.WithZone("")
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
