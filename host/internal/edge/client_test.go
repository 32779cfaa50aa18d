package edge

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

func TestClientKey(t *testing.T) {
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	long := strings.Repeat("s", 200)
	tests := []struct {
		name       string
		principal  *abi.Principal
		remote     string
		forwarded  string
		rfc7239    string // Forwarded
		trusted    []netip.Prefix
		want       string
		wantPrefix string
	}{
		{name: "an IPv4 client", remote: "192.0.2.7:5000", want: "ip:192.0.2.7"},
		{name: "an IPv6 client: its /64", remote: "[2001:db8:1:2:3:4:5:6]:5000", want: "ip:2001:db8:1:2::/64"},
		{name: "another address of the same /64", remote: "[2001:db8:1:2:ffff::1]:5000", want: "ip:2001:db8:1:2::/64"},
		{name: "an IPv4 address in IPv6", remote: "[::ffff:192.0.2.7]:5000", want: "ip:192.0.2.7"},
		{name: "behind a trusted proxy", remote: "10.1.1.1:5000", forwarded: "198.51.100.4", trusted: proxy, want: "ip:198.51.100.4"},
		{name: "behind a trusted proxy that appends a port", remote: "10.1.1.1:5000", forwarded: "198.51.100.4:4711", trusted: proxy, want: "ip:198.51.100.4"},
		{name: "behind a trusted proxy that writes Forwarded", remote: "10.1.1.1:5000", rfc7239: `for="[2001:db8:1:2::7]:443"`, trusted: proxy, want: "ip:2001:db8:1:2::/64"},
		{name: "an untrusted peer's forwarding header is ignored", remote: "192.0.2.7:5000", forwarded: "198.51.100.4", trusted: proxy, want: "ip:192.0.2.7"},
		{name: "a verified principal, whatever the address", principal: &abi.Principal{Scheme: "bearer", Subject: "alice"}, remote: "192.0.2.7:5000", want: "sub:bearer:alice"},
		{name: "a principal named like an address stays apart", principal: &abi.Principal{Scheme: "ip", Subject: "192.0.2.7"}, remote: "192.0.2.7:5000", want: "sub:ip:192.0.2.7"},
		{name: "a long subject is hashed", principal: &abi.Principal{Scheme: "bearer", Subject: long}, remote: "192.0.2.7:5000", wantPrefix: "sub#"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/x", nil)
			r.RemoteAddr = tt.remote
			if tt.forwarded != "" {
				r.Header.Set("X-Forwarded-For", tt.forwarded)
			}
			if tt.rfc7239 != "" {
				r.Header.Set("Forwarded", tt.rfc7239)
			}
			got := ClientKey(tt.principal, r, tt.trusted)
			switch {
			case tt.wantPrefix != "":
				if !strings.HasPrefix(got, tt.wantPrefix) || len(got) != len(tt.wantPrefix)+64 {
					t.Errorf("ClientKey = %q, want %s and a SHA-256 in hex", got, tt.wantPrefix)
				}
			case got != tt.want:
				t.Errorf("ClientKey = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkClientKey is what naming a client costs the host, per call of
// a route whose breaker keeps some client's state.
func BenchmarkClientKey(b *testing.B) {
	proxy := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	for _, tt := range []struct{ name, remote, forwarded string }{
		{"ipv4", "192.0.2.7:5000", ""},
		{"ipv6", "[2001:db8:1:2:3:4:5:6]:5000", ""},
		{"forwarded", "127.0.0.1:5000", "198.51.100.4"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/api/x", nil)
			r.RemoteAddr = tt.remote
			if tt.forwarded != "" {
				r.Header.Set("X-Forwarded-For", tt.forwarded)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = ClientKey(nil, r, proxy)
			}
		})
	}
}
