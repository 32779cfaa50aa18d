package edge_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/edge"
)

// TestHeaderBytes reads requests as net/http's server does and checks that
// HeaderBytes counts exactly the bytes of their request line and headers.
func TestHeaderBytes(t *testing.T) {
	for _, c := range []struct{ name, head string }{
		{"request line and Host", "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"no Host", "GET / HTTP/1.0\r\n\r\n"},
		{"a query and several fields", "POST /api/orders?x=1&y=%20 HTTP/1.1\r\nHost: example.test:8080\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n"},
		{"a field twice", "GET / HTTP/1.1\r\nHost: x\r\nAccept: a/b\r\nAccept: c/d\r\n\r\n"},
		{"a long value", "GET / HTTP/1.1\r\nHost: x\r\nX-Client: " + strings.Repeat("x", 60<<10) + "\r\n\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(c.head)))
			if err != nil {
				t.Fatal(err)
			}
			if got := edge.HeaderBytes(r); got != len(c.head) {
				t.Errorf("HeaderBytes = %d, want %d", got, len(c.head))
			}
		})
	}
}
