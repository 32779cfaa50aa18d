package ratelimit_test

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/ratelimit"
)

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	huge := strings.Repeat("6.6.6.6, ", 100_000)
	hugeTrusted := strings.Repeat("10.1.1.1, ", 100_000)
	tests := []struct {
		name, remote string
		// xff and fwd are the X-Forwarded-For and Forwarded lines sent
		// (none when nil).
		xff, fwd []string
		want     string
	}{
		{name: "no proxy", remote: "203.0.113.7:5000", want: "203.0.113.7"},
		{name: "an untrusted peer's X-Forwarded-For is ignored", remote: "203.0.113.7:5000", xff: []string{"198.51.100.1"}, want: "203.0.113.7"},
		{name: "an untrusted peer's Forwarded is ignored", remote: "203.0.113.7:5000", fwd: []string{"for=198.51.100.1"}, want: "203.0.113.7"},
		{name: "a trusted proxy: the right-most untrusted hop", remote: "10.0.0.2:80", xff: []string{"6.6.6.6, 198.51.100.1, 10.0.0.9"}, want: "198.51.100.1"},
		{name: "a trusted proxy without the header", remote: "10.0.0.2:80", want: "10.0.0.2"},
		{name: "garbage stops the walk", remote: "10.0.0.2:80", xff: []string{"nope, 10.0.0.5"}, want: "10.0.0.5"},
		{name: "an empty element stops the walk", remote: "10.0.0.2:80", xff: []string{"6.6.6.6, , 10.0.0.5"}, want: "10.0.0.5"},
		{name: "an empty header", remote: "10.0.0.2:80", xff: []string{""}, want: "10.0.0.2"},
		{name: "IPv4 in IPv6", remote: "[::ffff:203.0.113.7]:1", want: "203.0.113.7"},
		{name: "lines walked from the last", remote: "10.0.0.2:80", xff: []string{"6.6.6.6", "198.51.100.1, 10.0.0.9"}, want: "198.51.100.1"},
		{name: "a line of trusted hops, then the client's in the line before", remote: "10.0.0.2:80", xff: []string{"6.6.6.6, 198.51.100.1", "10.0.0.9"}, want: "198.51.100.1"},

		// Ports, as some proxies append them.
		{name: "an IPv4 hop with a port", remote: "10.0.0.2:80", xff: []string{"203.0.113.7:4711"}, want: "203.0.113.7"},
		{name: "an IPv6 hop with a port", remote: "10.0.0.2:80", xff: []string{"[2001:db8::1]:443"}, want: "2001:db8::1"},
		{name: "an IPv6 hop in brackets", remote: "10.0.0.2:80", xff: []string{"[2001:db8::1]"}, want: "2001:db8::1"},
		{name: "a bare IPv6 hop", remote: "10.0.0.2:80", xff: []string{"2001:db8::1"}, want: "2001:db8::1"},
		{name: "a trusted hop with a port is walked past", remote: "10.0.0.2:80", xff: []string{"203.0.113.7:4711, 10.0.0.9:80, [fd00::1]:8443"}, want: "203.0.113.7"},
		{name: "a port past 65535 is garbage", remote: "10.0.0.2:80", xff: []string{"203.0.113.7:65536"}, want: "10.0.0.2"},
		{name: "an empty port is garbage", remote: "10.0.0.2:80", xff: []string{"203.0.113.7:"}, want: "10.0.0.2"},
		{name: "an IPv4 address in brackets is garbage", remote: "10.0.0.2:80", xff: []string{"[203.0.113.7]:80"}, want: "10.0.0.2"},
		{name: "an unclosed bracket is garbage", remote: "10.0.0.2:80", xff: []string{"[2001:db8::1:443"}, want: "10.0.0.2"},
		{name: "text after the bracket is garbage", remote: "10.0.0.2:80", xff: []string{"[2001:db8::1]x443"}, want: "10.0.0.2"},
		{name: "an IPv6 zone is dropped", remote: "10.0.0.2:80", xff: []string{"2001:db8::1%eth0"}, want: "2001:db8::1"},
		{name: "an IPv6 zone in brackets is dropped", remote: "10.0.0.2:80", xff: []string{"[2001:db8::1%eth0]:443"}, want: "2001:db8::1"},
		{name: "a trusted proxy whose address has a zone", remote: "[fd00::2%eth0]:80", xff: []string{"203.0.113.7"}, want: "203.0.113.7"},
		{name: "an untrusted peer keeps its zone", remote: "[fe80::9%eth0]:80", xff: []string{"203.0.113.7"}, want: "fe80::9%eth0"},
		{name: "a host name is garbage", remote: "10.0.0.2:80", xff: []string{"client.example:80"}, want: "10.0.0.2"},

		// Spoofing: what a client writes left of what the proxy appended.
		{name: "a spoofed trusted address left of the client's", remote: "10.0.0.2:80", xff: []string{"10.9.9.9, 203.0.113.7"}, want: "203.0.113.7"},
		{name: "a huge header of spoofed hops", remote: "10.0.0.2:80", xff: []string{huge + "203.0.113.7"}, want: "203.0.113.7"},
		{name: "a huge header of trusted hops, the client's own range", remote: "10.0.0.2:80", xff: []string{hugeTrusted + "10.0.0.3"}, want: "10.1.1.1"},
		{name: "a huge hop is garbage", remote: "10.0.0.2:80", xff: []string{strings.Repeat("1", 100_000)}, want: "10.0.0.2"},

		// RFC 7239 Forwarded, read when X-Forwarded-For is absent.
		{name: "Forwarded", remote: "10.0.0.2:80", fwd: []string{"for=203.0.113.7"}, want: "203.0.113.7"},
		{name: "Forwarded with other parameters", remote: "10.0.0.2:80", fwd: []string{"proto=https;for=203.0.113.7;by=10.0.0.2"}, want: "203.0.113.7"},
		{name: "Forwarded's parameter name in any case", remote: "10.0.0.2:80", fwd: []string{"For=203.0.113.7"}, want: "203.0.113.7"},
		{name: "Forwarded, a quoted IPv6 address with a port", remote: "10.0.0.2:80", fwd: []string{`for="[2001:db8:cafe::17]:4711"`}, want: "2001:db8:cafe::17"},
		{name: "Forwarded, a quoted IPv4 address with a port", remote: "10.0.0.2:80", fwd: []string{`for="203.0.113.7:4711"`}, want: "203.0.113.7"},
		{name: "Forwarded, an obfuscated port", remote: "10.0.0.2:80", fwd: []string{`for="[2001:db8::1]:_p1"`}, want: "2001:db8::1"},
		{name: "Forwarded, the right-most untrusted element", remote: "10.0.0.2:80", fwd: []string{"for=6.6.6.6, for=203.0.113.7;proto=https, for=10.0.0.9"}, want: "203.0.113.7"},
		{name: "Forwarded, over lines", remote: "10.0.0.2:80", fwd: []string{"for=6.6.6.6", "for=203.0.113.7, for=10.0.0.9"}, want: "203.0.113.7"},
		{name: "Forwarded, unknown stops the walk", remote: "10.0.0.2:80", fwd: []string{"for=6.6.6.6, for=unknown, for=10.0.0.9"}, want: "10.0.0.9"},
		{name: "Forwarded, an obfuscated identifier stops the walk", remote: "10.0.0.2:80", fwd: []string{`for=6.6.6.6, for="_hidden"`}, want: "10.0.0.2"},
		{name: "Forwarded, an element without for stops the walk", remote: "10.0.0.2:80", fwd: []string{"for=6.6.6.6, proto=https;by=10.0.0.2"}, want: "10.0.0.2"},
		{name: "Forwarded, a quote the client left open swallows nothing", remote: "10.0.0.2:80", fwd: []string{`for="6.6.6.6, for=10.9.9.9, for=203.0.113.7`}, want: "203.0.113.7"},
		{name: "Forwarded, a quoted comma the client sent is garbage", remote: "10.0.0.2:80", fwd: []string{`for="6.6.6.6,10.0.0.7", for=10.0.0.9`}, want: "10.0.0.9"},
		{name: "Forwarded, an unquoted value with garbage", remote: "10.0.0.2:80", fwd: []string{"for=203.0.113.7x"}, want: "10.0.0.2"},
		{name: "Forwarded, a huge header of spoofed elements", remote: "10.0.0.2:80", fwd: []string{strings.Repeat("for=6.6.6.6, ", 100_000) + "for=203.0.113.7"}, want: "203.0.113.7"},
		{name: "X-Forwarded-For wins over Forwarded", remote: "10.0.0.2:80", xff: []string{"198.51.100.1"}, fwd: []string{"for=203.0.113.7"}, want: "198.51.100.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			for _, v := range tt.fwd {
				r.Header.Add("Forwarded", v)
			}
			if got := ratelimit.ClientIP(r, proxies); got != tt.want {
				t.Errorf("ClientIP = %s, want %s", got, tt.want)
			}
		})
	}
}

// BenchmarkClientIP is what finding the client behind a trusted proxy
// costs a request, by the form of its forwarding header.
func BenchmarkClientIP(b *testing.B) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tt := range []struct{ name, header, value string }{
		{"xff", "X-Forwarded-For", "198.51.100.4"},
		{"xff-3-hops", "X-Forwarded-For", "6.6.6.6, 198.51.100.4, 10.0.0.9"},
		{"xff-port", "X-Forwarded-For", "[2001:db8::1]:443"},
		{"forwarded", "Forwarded", `for="[2001:db8:cafe::17]:4711";proto=https`},
	} {
		b.Run(tt.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = "10.0.0.2:5000"
			r.Header.Set(tt.header, tt.value)
			b.ReportAllocs()
			for b.Loop() {
				_ = ratelimit.ClientIP(r, proxies)
			}
		})
	}
}
