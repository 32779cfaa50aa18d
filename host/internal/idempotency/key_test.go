package idempotency

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/openapi"
)

var keyCases = []struct {
	raw, want string // want "" means refused
}{
	{"abc", "abc"},
	{"2b0e8f4e-6c2a-4f7e-9d8e-1f2a3b4c5d6e", "2b0e8f4e-6c2a-4f7e-9d8e-1f2a3b4c5d6e"},
	{`"abc"`, "abc"},
	{`"a\"b"`, `a"b`},
	{`"a\\b"`, `a\b`},
	{`a"b`, `a"b`},
	{strings.Repeat("k", 255), strings.Repeat("k", 255)},
	{strings.Repeat("k", 256), ""},
	{"", ""},
	{`""`, ""},
	{"a,b", ""},
	{`"a,b"`, ""},
	{"a b", ""},
	{`"a b"`, ""},
	{`"abc`, ""},
	{`"a\b"`, ""},
	{"caf\xc3\xa9", ""},
	{"tab\tkey", ""},
}

func TestParseIdempotencyKey(t *testing.T) {
	for _, tt := range keyCases {
		t.Run(tt.raw, func(t *testing.T) {
			got, reason := parseKey([]string{tt.raw})
			if got != tt.want || (tt.want == "") != (reason != "") {
				t.Errorf("parse(%q) = %q, %q; want %q", tt.raw, got, reason, tt.want)
			}
		})
	}
}

// FuzzIdempotencyKeyPattern: the document's pattern for the header accepts
// exactly the keys the host accepts.
func FuzzIdempotencyKeyPattern(f *testing.F) {
	re := regexp.MustCompile(openapi.IdempotencyKeyPattern)
	for _, tt := range keyCases {
		f.Add(tt.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.TrimSpace(raw) != raw {
			return // the host trims header whitespace, as HTTP does
		}
		_, reason := parseKey([]string{raw})
		if ok := reason == ""; ok != re.MatchString(raw) {
			t.Errorf("%q: host accepts=%v, document pattern matches=%v (%s)", raw, ok, !ok, reason)
		}
	})
}

// TestStorageKeyIsTheClients: requests that differ in their client (its
// scheme or subject, or having none) or in any other part never share a
// record, even when a subject holds the bytes that separate parts.
func TestStorageKeyIsTheClients(t *testing.T) {
	type parts struct {
		scope  string
		client *abi.Principal
		key    string
	}
	alice := &abi.Principal{Scheme: "bearer", Subject: "alice"}
	base := parts{client: alice, key: "k"}
	tests := []struct {
		name  string
		other parts
	}{
		{"another subject", parts{client: &abi.Principal{Scheme: "bearer", Subject: "bob"}, key: "k"}},
		{"another scheme, same subject", parts{client: &abi.Principal{Scheme: "partners", Subject: "alice"}, key: "k"}},
		{"no client", parts{key: "k"}},
		{"an empty principal is not anonymous", parts{client: &abi.Principal{}, key: "k"}},
		{"a subject that holds the scheme's end", parts{client: &abi.Principal{Scheme: "bearer\x00alice", Subject: ""}, key: "k"}},
		{"a subject that runs into the key", parts{client: &abi.Principal{Scheme: "bearer", Subject: "alice\x01k"}, key: ""}},
		{"a scope", parts{scope: "tenant-1", client: alice, key: "k"}},
		{"another key", parts{client: alice, key: "k2"}},
	}
	key := func(p parts) string { return storageKey("shop", "POST", "/api/orders", p.scope, p.client, p.key) }
	if a, b := key(base), key(parts{client: &abi.Principal{Scheme: "bearer", Subject: "alice", Scopes: []string{"x"}}, key: "k"}); a != b {
		t.Errorf("the same client with other scopes has another record: %s != %s", a, b)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, b := key(base), key(tt.other); a == b {
				t.Errorf("%+v and %+v share the record %s", base, tt.other, a)
			}
		})
	}
}

// TestClientID checks whose share a record counts against: a principal by
// a hash of its scheme and subject (short whatever the subject), else the
// address, and no two clients alike.
func TestClientID(t *testing.T) {
	long := &abi.Principal{Scheme: "bearer", Subject: strings.Repeat("s", 10000)}
	ids := map[string]string{}
	for _, c := range []struct {
		name    string
		p       *abi.Principal
		address string
	}{
		{"an address", nil, "192.0.2.7"},
		{"an IPv6 /64", nil, "2001:db8::/64"},
		{"a principal", &abi.Principal{Scheme: "bearer", Subject: "alice"}, "192.0.2.7"},
		{"the subject under another scheme", &abi.Principal{Scheme: "apiKey", Subject: "alice"}, "192.0.2.7"},
		{"a subject that moves the scheme's bytes", &abi.Principal{Scheme: "beare", Subject: "ralice"}, "192.0.2.7"},
		{"a long subject", long, "192.0.2.7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := clientID(c.p, c.address)
			switch {
			case c.p == nil && id != "addr:"+c.address:
				t.Errorf("clientID(nil, %q) = %q, want addr:%s", c.address, id, c.address)
			case c.p != nil && !regexp.MustCompile(`^sub:[0-9a-f]{64}$`).MatchString(id):
				t.Errorf("clientID(%+.40v) = %q, want sub: and a SHA-256 in hex", c.p, id)
			}
			if other, ok := ids[id]; ok {
				t.Errorf("clientID is %q for %s and for %s", id, c.name, other)
			}
			ids[id] = c.name
		})
	}
}
