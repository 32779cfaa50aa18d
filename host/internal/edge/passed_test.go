package edge

import (
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestPassedSetContext: the bounds of context_set, a value set again
// counted once.
func TestPassedSetContext(t *testing.T) {
	full := func() *Passed {
		p := &Passed{}
		for i := range abi.ContextMaxValues {
			if p.SetContext([]byte{'k', byte('a' + i%26), byte('a' + i/26)}, []byte("v")) != 0 {
				t.Fatalf("value %d refused", i)
			}
		}
		return p
	}
	for _, tc := range []struct {
		name        string
		p           func() *Passed
		key, value  string
		want        abi.Errno
		wantValue   string
		wantEntries int
	}{
		{"set", func() *Passed { return &Passed{} }, "tenant", "acme", 0, "acme", 1},
		{"empty name", func() *Passed { return &Passed{} }, "", "acme", abi.ErrInvalid, "", 0},
		{"name not UTF-8", func() *Passed { return &Passed{} }, "\xff", "acme", abi.ErrInvalid, "", 0},
		{"value not UTF-8", func() *Passed { return &Passed{} }, "tenant", "\xff", abi.ErrInvalid, "", 0},
		{"too large", func() *Passed { return &Passed{} }, "tenant", strings.Repeat("x", abi.ContextMaxBytes), abi.ErrInvalid, "", 0},
		{"as large as allowed", func() *Passed { return &Passed{} }, "t", strings.Repeat("x", abi.ContextMaxBytes-1), 0, strings.Repeat("x", abi.ContextMaxBytes-1), 1},
		{"one value too many", full, "tenant", "acme", abi.ErrInvalid, "", abi.ContextMaxValues},
		{"replacing when full", full, "kaa", "w", 0, "w", abi.ContextMaxValues},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p()
			if got := p.SetContext([]byte(tc.key), []byte(tc.value)); got != tc.want {
				t.Fatalf("SetContext = %d, want %d", got, tc.want)
			}
			if got := p.Values()[tc.key]; got != tc.wantValue {
				t.Errorf("value %q, want %q", got, tc.wantValue)
			}
			if len(p.Values()) != tc.wantEntries {
				t.Errorf("%d values, want %d", len(p.Values()), tc.wantEntries)
			}
		})
	}
	// A value replaced frees its bytes: the bound counts what is held.
	p := &Passed{}
	big := strings.Repeat("x", abi.ContextMaxBytes-10)
	for range 3 {
		if p.SetContext([]byte("big"), []byte(big)) != 0 {
			t.Fatal("replacing a value counted the old one too")
		}
	}
}

// TestPassedSetRequestHeader: request_set_header refuses forbidden and
// invalid headers, counts growth over the client's headers and removes
// with an empty value.
func TestPassedSetRequestHeader(t *testing.T) {
	h := http.Header{"X-Client": {"sent"}}
	p := &Passed{}
	for _, tc := range []struct {
		name, key, value string
		want             abi.Errno
		fault            bool
		after            string
	}{
		{"set", "x-tenant", "acme", 0, false, "acme"},
		{"replace the client's", "X-Client", "changed", 0, false, "changed"},
		{"forbidden", "Content-Length", "1", abi.ErrInvalid, false, ""},
		{"invalid name", "x tenant", "acme", abi.ErrInvalid, false, ""},
		{"invalid value", "x-tenant", "a\nb", abi.ErrInvalid, false, "acme"},
		{"too large", "x-big", strings.Repeat("x", abi.ResponseHeaderMaxBytes), abi.ErrInvalid, true, ""},
		{"remove", "x-tenant", "", 0, false, ""},
	} {
		errno, fault := p.SetRequestHeader(h, []byte(tc.key), []byte(tc.value))
		if errno != tc.want || (fault != "") != tc.fault {
			t.Errorf("%s: SetRequestHeader = %d, %q; want %d, fault %v", tc.name, errno, fault, tc.want, tc.fault)
		}
		if tc.after != "" || tc.want == 0 {
			if got := h.Get(tc.key); got != tc.after {
				t.Errorf("%s: header %s = %q, want %q", tc.name, tc.key, got, tc.after)
			}
		}
	}
	// Growth is counted across calls: many headers reach the bound.
	p, h = &Passed{}, http.Header{}
	var errno abi.Errno
	var n int
	for n = 0; n <= abi.ResponseHeaderMaxCount && errno == 0; n++ {
		errno, _ = p.SetRequestHeader(h, []byte("X-H"+strings.Repeat("a", n)), []byte("v"))
	}
	if errno != abi.ErrInvalid || n != abi.ResponseHeaderMaxCount+1 {
		t.Errorf("refused at header %d (errno %d), want at %d", n, errno, abi.ResponseHeaderMaxCount+1)
	}
}

// TestParsePrincipal: principal_set takes an object with a subject and
// nothing else.
func TestParsePrincipal(t *testing.T) {
	for _, tc := range []struct {
		in      string
		subject string
	}{
		{`{"subject":"ada","scopes":["read"]}`, "ada"},
		{` {"subject":"ada","claims":{"tenant":"acme"}}`, "ada"},
		{`{"scopes":["read"]}`, ""},
		{`{"subject":"ada","role":"admin"}`, ""},
		{`"ada"`, ""},
		{`null`, ""},
		{`{"subject":"` + strings.Repeat("a", abi.ContextMaxBytes) + `"}`, ""},
	} {
		p, errno := ParsePrincipal([]byte(tc.in))
		switch {
		case tc.subject == "" && (errno != abi.ErrInvalid || p != nil):
			t.Errorf("ParsePrincipal(%.40s) = %v, %d; want ErrInvalid", tc.in, p, errno)
		case tc.subject != "" && (errno != 0 || p == nil || p.Subject != tc.subject):
			t.Errorf("ParsePrincipal(%.40s) = %v, %d; want subject %q", tc.in, p, errno, tc.subject)
		}
	}
}
