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
