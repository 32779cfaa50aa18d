package allowlist

import "net/netip"

// nonPublic are the address blocks that do not reach the public internet
// (IANA's IPv4 and IPv6 special-purpose registries, RFC 6890): a listed
// name that resolves into one of them is refused unless the address itself
// is listed. IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are unmapped
// before the check; NAT64 and 6to4 prefixes, which embed an IPv4 address
// a gateway would reach, are refused whole. An IPv6 address outside
// globalUnicast is never public, whether listed here or not.
var nonPublic = mustPrefixes(
	"0.0.0.0/8",          // "this network": 0.0.0.0 reaches the local host
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // carrier-grade NAT
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local, cloud metadata (169.254.169.254)
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments
	"192.0.2.0/24",       // documentation
	"192.88.99.0/24",     // 6to4 relay anycast
	"192.168.0.0/16",     // private
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // documentation
	"203.0.113.0/24",     // documentation
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved, broadcast
	"::/128",             // unspecified
	"::1/128",            // loopback
	"::ffff:0:0/96",      // IPv4-mapped, when not unmapped
	"64:ff9b::/96",       // NAT64
	"64:ff9b:1::/48",     // local NAT64
	"100::/64",           // discard
	"2001::/23",          // IETF protocol assignments (Teredo, ORCHID...)
	"2001:db8::/32",      // documentation
	"3fff::/20",          // documentation (RFC 9637)
	"2002::/16",          // 6to4
	"fc00::/7",           // unique local
	"fe80::/10",          // link-local
	"fec0::/10",          // site-local (deprecated)
	"ff00::/8",           // multicast
	"fd00:ec2::254/128",  // AWS metadata over IPv6 (inside fc00::/7, named for the reader)
	"100.100.100.200/32", // Alibaba Cloud metadata (inside 100.64.0.0/10)
)

// globalUnicast is the IPv6 space allocated for global unicast (RFC 4291
// §2.4, IANA's IPv6 address space registry): the rest is reserved or
// special, and reaches no public host. Some of it embeds an IPv4 address
// that the kernel's sit tunnel or a stateless translator (SIIT, RFC 7915)
// reaches: the IPv4-compatible ::127.0.0.1 (::7f00:1) and the
// IPv4-translated ::ffff:0:169.254.169.254.
var globalUnicast = netip.MustParsePrefix("2000::/3")

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Public reports whether addr is a public unicast address: not loopback,
// private, link-local, multicast, reserved, documentation, NAT64 or 6to4,
// nor unspecified, and for IPv6 within global unicast (2000::/3). An
// IPv4-mapped IPv6 address is judged as its IPv4 address; an address with
// a zone (fe80::1%eth0) is never public.
func Public(addr netip.Addr) bool {
	if !addr.IsValid() || addr.Zone() != "" {
		return false
	}
	addr = addr.Unmap()
	if addr.Is6() && !globalUnicast.Contains(addr) {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}
