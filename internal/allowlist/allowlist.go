// Package allowlist reads and matches the origins a guest may call:
// endpoints.json's outbound.allowedHosts. An entry is a scheme, a host and
// an optional port:
//
//	https://api.example.com        one name, port 443
//	https://*.example.com:443      any name under example.com (not example.com itself)
//	http://127.0.0.1:8089          one address: listing it allows dialling it
//	https://[fd00::7]:8443         an IPv6 address, in brackets
//	https://api.example.com:*      any port
//	https://*                      any public host, over https
//
// Entries are checked when the settings load ([Parse]): an error names the
// entry and what is wrong with it. Matching ([List.Allows]) compares a
// request URL's scheme, host and port; [List.AllowsAddress] says whether
// an address that is not public (loopback, private, link-local...) is
// itself listed, so that it may be dialled.
package allowlist

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Entry is one allowed origin.
type Entry struct {
	// Scheme is "http" or "https".
	Scheme string
	// Host is a lower-case name without a trailing dot, "*.suffix" for
	// any name under suffix, "*" for any host, or "" when Addr is set.
	Host string
	// Addr is the entry's IP address when it names one.
	Addr netip.Addr
	// Port is the port, 0 for any.
	Port uint16
	// Text is the entry as written, for errors.
	Text string
}

// List is a parsed allowlist. The zero List allows nothing.
type List struct {
	entries []Entry
}

// Parse reads entries, each as [ParseEntry] does; the error names the
// first bad one by its index.
func Parse(entries []string) (*List, error) {
	l := &List{}
	for i, s := range entries {
		e, err := ParseEntry(s)
		if err != nil {
			return nil, fmt.Errorf("entry %d %q: %w", i, s, err)
		}
		l.entries = append(l.entries, e)
	}
	return l, nil
}

// Len is the number of entries.
func (l *List) Len() int { return len(l.entries) }

// ParseEntry reads one entry: scheme://host[:port], nothing after it but
// an optional "/". The error says what is wrong and how to write it.
func ParseEntry(s string) (Entry, error) {
	e := Entry{Text: s}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return e, fmt.Errorf("want scheme://host[:port], such as https://api.example.com")
	}
	switch scheme {
	case "http", "https":
	default:
		return e, fmt.Errorf("scheme %q: want http or https", scheme)
	}
	e.Scheme = scheme
	rest = strings.TrimSuffix(rest, "/")
	if strings.ContainsAny(rest, "/?#@") {
		return e, fmt.Errorf("an entry is an origin: no path, query, fragment or user, only scheme://host[:port]")
	}
	host, port := rest, ""
	if strings.HasPrefix(rest, "[") {
		end := strings.Index(rest, "]")
		if end < 0 {
			return e, fmt.Errorf("an IPv6 address needs its closing bracket: [::1]")
		}
		host, port = rest[1:end], rest[end+1:]
		if port != "" && !strings.HasPrefix(port, ":") {
			return e, fmt.Errorf("unexpected %q after the address", port)
		}
		port = strings.TrimPrefix(port, ":")
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" {
			return e, fmt.Errorf("%q is not an IPv6 address", host)
		}
		e.Addr = a.Unmap()
	} else {
		if a, err := netip.ParseAddr(rest); err == nil && a.Is6() {
			return e, fmt.Errorf("write an IPv6 address in brackets: [%s]", rest)
		}
		if i := strings.LastIndex(rest, ":"); i >= 0 {
			host, port = rest[:i], rest[i+1:]
			if port == "" {
				return e, fmt.Errorf("empty port after %q", host)
			}
		}
		if err := e.setHost(host); err != nil {
			return e, err
		}
	}
	switch port {
	case "":
		e.Port = DefaultPort(scheme)
	case "*":
		e.Port = 0
	default:
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return e, fmt.Errorf("port %q: want 1-65535 or *", port)
		}
		e.Port = uint16(n)
	}
	return e, nil
}

// setHost reads the host part of an entry that is not in brackets.
func (e *Entry) setHost(host string) error {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	switch {
	case host == "":
		return fmt.Errorf("no host: want scheme://host[:port]")
	case host == "*":
		e.Host = host
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Is6() {
			return fmt.Errorf("write an IPv6 address in brackets: [%s]", host)
		}
		e.Addr = a
		return nil
	}
	if NumericHost(host) {
		return fmt.Errorf("%q is not an address in dotted-decimal form (no octal, hexadecimal or single-number forms): write it as 127.0.0.1 does", host)
	}
	name := host
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		name = rest
	}
	if strings.Contains(name, "*") {
		return fmt.Errorf("%q: a wildcard is only allowed as the first label, as in *.example.com", host)
	}
	if !validName(name) {
		return fmt.Errorf("%q is not a host name (letters, digits, '-' and '.', labels of 1-63 bytes)", host)
	}
	e.Host = host
	return nil
}

// DefaultPort is the port of a URL of scheme that names none: 443 for
// https, 80 for http.
func DefaultPort(scheme string) uint16 {
	if scheme == "https" {
		return 443
	}
	return 80
}

// validName reports whether s is a DNS name of letters, digits and
// hyphens (underscores too, which service names use).
func validName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// NumericHost reports whether host, which is not a canonical IP address,
// would still be read as one by some resolver: its last label is a number
// (decimal, octal 0177, hexadecimal 0x7f), as in 2130706433, 0177.0.0.1,
// 0x7f.1 or 127.1. Such hosts are refused: they are how SSRF filters are
// bypassed.
func NumericHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndex(host, ".")+1:]
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(strings.ToLower(last), "0x"); ok {
		last = h
		if last == "" {
			return true
		}
		for i := 0; i < len(last); i++ {
			if c := last[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(last); i++ {
		if c := last[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Allows reports whether a URL with scheme, host (lower case, an IP
// address in canonical form without brackets) and port (the scheme's
// default when the URL names none) is listed.
func (l *List) Allows(scheme, host string, port uint16) bool {
	addr, err := netip.ParseAddr(host)
	isAddr := err == nil
	host = strings.TrimSuffix(host, ".")
	for _, e := range l.entries {
		if e.Scheme != scheme || e.Port != 0 && e.Port != port {
			continue
		}
		switch {
		case e.Host == "*":
			return true
		case isAddr:
			if e.Addr.IsValid() && e.Addr == addr.Unmap() {
				return true
			}
		case e.Addr.IsValid():
		case strings.HasPrefix(e.Host, "*."):
			if strings.HasSuffix(host, e.Host[1:]) {
				return true
			}
		case e.Host == host:
			return true
		}
	}
	return false
}

// AllowsAddress reports whether addr on port may be dialled: it is a
// public address, or an entry names it (with that port, or any).
func (l *List) AllowsAddress(addr netip.Addr, port uint16) bool {
	addr = addr.Unmap()
	if Public(addr) {
		return true
	}
	for _, e := range l.entries {
		if e.Addr.IsValid() && e.Addr == addr && (e.Port == 0 || e.Port == port) {
			return true
		}
	}
	return false
}
