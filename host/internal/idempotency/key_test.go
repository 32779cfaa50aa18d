package idempotency

import (
	"regexp"
	"strings"
	"testing"

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
