package allowlist

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseEntryRefusesWhatIsNotAnOrigin(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{"api.example.com", "want scheme://host[:port]"},
		{"ftp://api.example.com", `scheme "ftp"`},
		{"https://", "no host"},
		{"https://api.example.com/v1", "no path"},
		{"https://user@api.example.com", "no path, query, fragment or user"},
		{"https://api.example.com:", "empty port"},
		{"https://api.example.com:0", `port "0"`},
		{"https://api.example.com:70000", `port "70000"`},
		{"https://api.*.example.com", "only allowed as the first label"},
		{"https://exa mple.com", "is not a host name"},
		{"http://2130706433", "not an address in dotted-decimal form"},
		{"http://0177.0.0.1", "not an address in dotted-decimal form"},
		{"http://0x7f.1", "not an address in dotted-decimal form"},
		{"http://127.1", "not an address in dotted-decimal form"},
		{"http://::1", "in brackets"},
		{"http://[::1", "closing bracket"},
		{"http://[example]:80", "is not an IPv6 address"},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			_, err := ParseEntry(tc.entry)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseEntry(%q) = %v, want an error containing %q", tc.entry, err, tc.want)
			}
		})
	}
}

func TestParseNamesTheBadEntry(t *testing.T) {
	_, err := Parse([]string{"https://ok.example", "gopher://x"})
	if err == nil || !strings.Contains(err.Error(), `entry 1 "gopher://x"`) {
		t.Errorf("Parse = %v, want it to name entry 1", err)
	}
}

func TestAllows(t *testing.T) {
	if _, err := Parse([]string{"HTTPS://Upper.Example./"}); err == nil {
		t.Fatal("an upper-case scheme was accepted")
	}
	l, err := Parse([]string{
		"https://api.example.com",
		"https://*.svc.example:8443",
		"http://127.0.0.1:8089",
		"https://[fd00::7]",
		"http://any.example:*",
		"https://Upper.Example./",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		scheme, host string
		port         uint16
		want         bool
	}{
		{"https", "api.example.com", 443, true},
		{"https", "api.example.com.", 443, true},
		{"http", "api.example.com", 80, false},
		{"https", "api.example.com", 8443, false},
		{"https", "evil-api.example.com", 443, false},
		{"https", "a.svc.example", 8443, true},
		{"https", "a.b.svc.example", 8443, true},
		{"https", "svc.example", 8443, false},
		{"https", "a.svc.example", 443, false},
		{"https", "xsvc.example", 8443, false},
		{"http", "127.0.0.1", 8089, true},
		{"http", "127.0.0.1", 8090, false},
		{"https", "fd00::7", 443, true},
		{"https", "::ffff:127.0.0.1", 443, false},
		{"http", "any.example", 1, true},
		{"https", "upper.example", 443, true},
	} {
		if got := l.Allows(tc.scheme, tc.host, tc.port); got != tc.want {
			t.Errorf("Allows(%s, %s, %d) = %v, want %v", tc.scheme, tc.host, tc.port, got, tc.want)
		}
	}
	var zero List
	if zero.Allows("https", "api.example.com", 443) {
		t.Error("the zero List allows a host")
	}
}

func TestAllowsAddressRefusesWhatIsNotPublicUnlessListed(t *testing.T) {
	l, err := Parse([]string{"http://127.0.0.1:8089", "https://[fd00::7]:*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr string
		port uint16
		want bool
	}{
		{"93.184.215.14", 443, true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", 443, true},
		{"127.0.0.1", 8089, true},
		{"127.0.0.1", 80, false},
		{"::ffff:127.0.0.1", 8089, true},
		{"127.0.0.2", 8089, false},
		{"10.1.2.3", 443, false},
		{"172.16.0.1", 443, false},
		{"172.31.255.255", 443, false},
		{"172.32.0.1", 443, true},
		{"192.168.1.1", 443, false},
		{"169.254.169.254", 80, false},
		{"0.0.0.0", 80, false},
		{"100.64.0.1", 80, false},
		{"::1", 443, false},
		{"::", 443, false},
		{"fc00::1", 443, false},
		{"fd00::7", 1234, true},
		{"fe80::1", 443, false},
		{"::ffff:10.0.0.1", 443, false},
		{"::ffff:169.254.169.254", 80, false},
		{"64:ff9b::7f00:1", 80, false},
		{"2002:7f00:1::", 80, false},
		{"224.0.0.1", 80, false},
		{"255.255.255.255", 80, false},
		// IPv6 outside global unicast (2000::/3) reaches no public
		// host; some forms embed an IPv4 address that the kernel's sit
		// tunnel or a stateless translator (SIIT) reaches: 127.0.0.1 and
		// 169.254.169.254, IPv4-compatible and IPv4-translated.
		{"::7f00:1", 80, false},
		{"::a9fe:a9fe", 80, false},
		{"::ffff:0:7f00:1", 80, false},
		{"::ffff:0:a9fe:a9fe", 80, false},
		{"100:0:0:1::1", 80, false},
		{"5f00::1", 80, false},
		{"4000::1", 80, false},
		{"3fff::1", 80, false},
	} {
		if got := l.AllowsAddress(netip.MustParseAddr(tc.addr), tc.port); got != tc.want {
			t.Errorf("AllowsAddress(%s, %d) = %v, want %v", tc.addr, tc.port, got, tc.want)
		}
	}
}

func TestNumericHost(t *testing.T) {
	for host, want := range map[string]bool{
		"2130706433": true, "0177.0.0.1": true, "0x7f.0.0.1": true, "127.1": true, "0x7f000001": true,
		"1.2.3.4": true, "example.com": false, "1password.com": false, "a.0x": true, "x1": false,
	} {
		if got := NumericHost(host); got != want {
			t.Errorf("NumericHost(%q) = %v, want %v", host, got, want)
		}
	}
}
