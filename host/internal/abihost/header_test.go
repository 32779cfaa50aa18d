package abihost

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"
)

var headerCases = []struct {
	name, value string
	valid       bool
}{
	{"X-Guest", "yes", true},
	{"content-type", "text/csv; charset=utf-8", true},
	{"Set-Cookie", "a=b; Path=/", true},
	{"X-Empty", "", true},
	{"", "x", false},
	{"X Bad", "x", false},
	{"X-Bad:", "x", false},
	{"X-Split", "a\r\nInjected: yes", false},
	{"X-Lf", "a\nb", false},
	{"X-Nul", "a\x00b", false},
	{"Content-Length", "5", false},
	{"transfer-encoding", "chunked", false},
	{"Connection", "close", false},
	{"Keep-Alive", "timeout=5", false},
	{"Upgrade", "h2c", false},
	{"Trailer", "X", false},
	{"TE", "trailers", false},
	{"Proxy-Connection", "keep-alive", false},
}

func TestValidHeader(t *testing.T) {
	for _, tt := range headerCases {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			if got := ValidHeader(tt.name, tt.value); got != tt.valid {
				t.Errorf("ValidHeader(%q, %q) = %v, want %v", tt.name, tt.value, got, tt.valid)
			}
		})
	}
}

// FuzzValidHeader: whatever a guest passes, an accepted header is one
// net/http can send as is and the host does not own.
func FuzzValidHeader(f *testing.F) {
	for _, tt := range headerCases {
		f.Add(tt.name, tt.value)
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		if !ValidHeader(name, value) {
			return
		}
		if !httpguts.ValidHeaderFieldName(name) {
			t.Errorf("accepted name %q that is not a field name", name)
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			t.Errorf("accepted value %q with CR, LF or NUL", value)
		}
		for _, f := range []string{"Connection", "Content-Length", "Transfer-Encoding", "Upgrade", "Te", "Trailer", "Keep-Alive", "Proxy-Connection"} {
			if http.CanonicalHeaderKey(name) == f {
				t.Errorf("accepted %q, which the host owns", name)
			}
		}
	})
}

// TestCommonHeaders checks the interned names and values: each name is
// one ValidHeader accepts and maps to its canonical form, each value
// valid, and a common one read from a guest costs no allocation while
// another is copied as it is.
func TestCommonHeaders(t *testing.T) {
	for spelled, canonical := range commonNames {
		if !ValidHeader(spelled, "") || canonical != http.CanonicalHeaderKey(spelled) {
			t.Errorf("common name %q -> %q: valid %v, canonical %q", spelled, canonical, ValidHeader(spelled, ""), http.CanonicalHeaderKey(spelled))
		}
	}
	for v := range commonValues {
		if !ValidHeader("X", v) {
			t.Errorf("common value %q is not valid", v)
		}
	}
	for _, tc := range []struct {
		name, value         string
		wantName, wantValue string
		allocs              float64
	}{
		{"content-type", "application/json", "Content-Type", "application/json", 0},
		{"Cache-Control", "no-store", "Cache-Control", "no-store", 0},
		{"x-trace", "abc", "x-trace", "abc", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, value := []byte(tc.name), []byte(tc.value)
			if !validName(name) || !validValue(value) {
				t.Fatalf("validName, validValue = %v, %v, want true", validName(name), validValue(value))
			}
			if got := headerName(name); got != tc.wantName {
				t.Errorf("headerName = %q, want %q", got, tc.wantName)
			}
			if got := headerValue(value); got != tc.wantValue {
				t.Errorf("headerValue = %q, want %q", got, tc.wantValue)
			}
			if n := testing.AllocsPerRun(100, func() { sinkName, sinkValue = headerName(name), headerValue(value) }); n != tc.allocs {
				t.Errorf("headerName and headerValue allocate %.0f times, want %.0f", n, tc.allocs)
			}
		})
	}
	// What the guest's bytes are checked with accepts what ValidHeader
	// accepts.
	for _, tc := range headerCases {
		if got := validName([]byte(tc.name)) && validValue([]byte(tc.value)); got != tc.valid {
			t.Errorf("%q: %q: valid %v, want %v", tc.name, tc.value, got, tc.valid)
		}
	}
}

// sinkName and sinkValue keep what an allocation test makes.
var sinkName, sinkValue string
