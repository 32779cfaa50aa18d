package host_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestAnswerGetsItsOwnWriteTimeout: server.writeTimeout bounds each write
// of the answer, not the request. A request whose body arrives over longer
// than the write timeout (within its read timeout) still gets its answer,
// which gets a fresh write deadline when the guest returns; a host that
// kept the one set when the request began would cut the answer off.
func TestAnswerGetsItsOwnWriteTimeout(t *testing.T) {
	const writeTimeout = 100 * time.Millisecond
	h, _ := clientTestApp(t).host(host.Options{Mode: host.Development,
		Server: config.Server{ReadTimeout: config.Duration(20 * time.Second), WriteTimeout: config.Duration(writeTimeout)}})
	addr := serveTCP(t, h)
	for _, tt := range []struct {
		name string
		wait time.Duration // between the two halves of the body
	}{
		{"a body sent at once", 0},
		{"a body whose second half comes after the write timeout", 3 * writeTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, addr)
			body := `{"a":"` + strings.Repeat("x", 100) + `"}`
			fmt.Fprintf(c, "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:50])
			if tt.wait > 0 {
				// Nothing tells the client that the deadline set when
				// the request began has passed: it waits that long.
				<-time.After(tt.wait)
			}
			if _, err := io.WriteString(c, body[50:]); err != nil {
				t.Fatal(err)
			}
			res, got, err := c.response("POST")
			if err != nil || res.StatusCode != 200 || !strings.Contains(got, strings.Repeat("x", 100)) {
				t.Fatalf("got %v %v %.300s, want 200 with the echoed body", err, res, got)
			}
		})
	}
}
