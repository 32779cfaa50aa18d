package edge

import (
	"net/http"
	"net/netip"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
)

// ClientKey says who the client of r is for what the host keeps per
// client beyond the rate limits (a bundle route's breaker): its verified
// principal p, else its address behind the trusted proxies (as the rate
// limits take it), an IPv6 address's /64 (what one host is commonly
// given, as the failed-credentials budget keys it). It is at most 68
// bytes whatever the client sends, and a principal's key never equals an
// address's.
func ClientKey(p *abi.Principal, r *http.Request, trusted []netip.Prefix) string {
	if p != nil {
		return BoundKey("sub", p.Scheme+":"+p.Subject)
	}
	return BoundKey("ip", auth.AddressKey(ratelimit.ClientIP(r, trusted)))
}
