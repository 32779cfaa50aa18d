package ratelimit

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP is the address of the client of r: RemoteAddr's, unless it is a
// trusted proxy, in which case the right-most address of the forwarding
// header that is not a trusted proxy (proxies append what they saw, so the
// addresses left of it may be forged by the client).
//
// The forwarding header is X-Forwarded-For, or, when a request has none,
// RFC 7239's Forwarded (its elements' "for" parameters). An address may
// carry a port, as some proxies write it ("203.0.113.7:4711",
// "[2001:db8::1]:443"; Forwarded quotes an IPv6 one). The walk from the
// right stops at the first hop that names no address, and the client is
// then the last trusted proxy walked: garbage, an empty element, a
// Forwarded element without "for", "unknown" and an obfuscated identifier
// ("_hidden") alike, since nothing says which client they are. It
// allocates nothing but the address's text.
func ClientIP(r *http.Request, trusted []netip.Prefix) string {
	addr := remoteAddr(r.RemoteAddr)
	if !addr.IsValid() {
		return r.RemoteAddr
	}
	if !Trusted(addr, trusted) {
		return addr.String()
	}
	lines, forwarded := r.Header["X-Forwarded-For"], false
	if len(lines) == 0 {
		lines, forwarded = r.Header["Forwarded"], true
	}
	for i := len(lines) - 1; i >= 0; i-- {
		rest := lines[i]
		for {
			j := strings.LastIndexByte(rest, ',')
			hop, ok := netip.Addr{}, false
			if forwarded {
				hop, ok = forwardedFor(rest[j+1:])
			} else {
				hop, ok = parseHop(rest[j+1:])
			}
			if !ok {
				return addr.String()
			}
			if !Trusted(hop, trusted) {
				return hop.String()
			}
			addr = hop
			if j < 0 {
				break
			}
			rest = rest[:j]
		}
	}
	return addr.String()
}

// maxHop bounds the text of one hop parseHop reads: the longest IPv6
// address in brackets with a port is 47 bytes, with an obfuscated port
// a few more.
const maxHop = 64

// parseHop reads one hop of a forwarding header: an address, maybe with a
// port ("203.0.113.7", "203.0.113.7:4711", "2001:db8::1",
// "[2001:db8::1]", "[2001:db8::1]:443"), within spaces. A port is digits,
// or, as RFC 7239 allows, an obfuscated one ("_p1"). An IPv6 zone is
// dropped: the client is its address, whatever zone it names.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if len(s) == 0 || len(s) > maxHop {
		return netip.Addr{}, false
	}
	host, port := s, ""
	switch {
	case s[0] == '[':
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return netip.Addr{}, false
		}
		host, port = s[1:end], s[end+1:]
		if port != "" {
			if port[0] != ':' {
				return netip.Addr{}, false
			}
			port = port[1:]
			if port == "" {
				return netip.Addr{}, false
			}
		}
	case strings.Count(s, ":") == 1:
		host, port, _ = strings.Cut(s, ":")
		if port == "" {
			return netip.Addr{}, false
		}
	}
	if port != "" && !validPort(port) {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Is4() && s[0] == '[' {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// validPort reports whether p is a port of a forwarding header's hop: up
// to 5 digits, at most 65535, or "_" and up to 15 letters, digits, '.',
// '_' or '-' (RFC 7239 §6.3's obfport).
func validPort(p string) bool {
	if p[0] == '_' {
		if len(p) > 16 {
			return false
		}
		for i := 1; i < len(p); i++ {
			if !obfuscatedChar(p[i]) {
				return false
			}
		}
		return true
	}
	if len(p) > 5 {
		return false
	}
	n := 0
	for i := range len(p) {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		n = n*10 + int(p[i]-'0')
	}
	return n <= 65535
}

// obfuscatedChar reports whether c may follow the '_' of an obfuscated
// identifier or port (RFC 7239 §6.3).
func obfuscatedChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// forwardedFor reads the address of one element of a Forwarded header
// (RFC 7239 §4): the value of its "for" parameter, a token or a quoted
// string, which parseHop reads. An element without one, or whose "for" is
// "unknown" or an obfuscated identifier, names no address (false).
// Parameters are split at ';' without regard to quotes, as elements are
// at ','. No address holds either, and a quote a client left open must
// not swallow what a proxy appended after it.
func forwardedFor(element string) (netip.Addr, bool) {
	for element != "" {
		var pair string
		pair, element, _ = strings.Cut(element, ";")
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || !strings.EqualFold(name, "for") {
			continue
		}
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		if value == "" || value[0] == '_' || strings.EqualFold(value, "unknown") {
			return netip.Addr{}, false
		}
		return parseHop(value)
	}
	return netip.Addr{}, false
}

func remoteAddr(s string) netip.Addr {
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		host = s
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}
