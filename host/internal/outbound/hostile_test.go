package outbound

import (
	"bufio"
	"net"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
)

// rawServer serves each connection's first request with answer, given
// the request line ("GET /path HTTP/1.1"): a service that writes what it
// likes, where net/http would refuse to. It returns the server's port.
func rawServer(t *testing.T, answer func(line string, conn net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				line, err := br.ReadString('\n')
				for err == nil {
					var l string
					if l, err = br.ReadString('\n'); l == "\r\n" {
						break
					}
				}
				if err == nil {
					answer(strings.TrimSpace(line), conn)
				}
			}()
		}
	}()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

// TestResponseHeadersNotUTF8AreReplaced: a service may send header
// values of any byte but CR, LF and NUL (Latin-1 from an old server, or
// junk from a hostile one); http_response still gives the whole head as
// valid JSON, such bytes replaced by U+FFFD, as the incoming request's
// envelope does. The head was cut short at the first such value, which
// no guest could read: a service made its answers unreadable, status
// included.
func TestResponseHeadersNotUTF8AreReplaced(t *testing.T) {
	p := rawServer(t, func(_ string, conn net.Conn) {
		conn.Write([]byte("HTTP/1.1 200 OK\r\nX-Name: caf\xe9\r\nX-Z: after\r\nContent-Length: 2\r\n\r\nok"))
	})
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+p)
	s := session(t, c, Limits{})
	h, err := s.Send(req("GET", "http://127.0.0.1:"+p+"/"), nil)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := s.Response(h)
	var got abi.HTTPResponse
	if err := json.Unmarshal(head, &got); err != nil {
		t.Fatalf("the head is not the JSON of abi.HTTPResponse (%v): %s", err, head)
	}
	want := [][2]string{{"content-length", "2"}, {"x-name", "caf\uFFFD"}, {"x-z", "after"}}
	if got.Status != 200 || len(got.Headers) != len(want) {
		t.Fatalf("head = %s, want status 200 and headers %q", head, want)
	}
	for i := range want {
		if got.Headers[i] != want[i] {
			t.Errorf("header %d = %q, want %q", i, got.Headers[i], want[i])
		}
	}
}
