package pipelining_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/pipelining"
)

// serve runs an http.Server whose handler reads the request's body and
// answers its length, wrapped by pipelining.Handler, with
// pipelining.ConnContext unless bare, and the client's address exempt
// when trusted; it returns the address.
func serve(t *testing.T, bare, trusted bool) string {
	t.Helper()
	exempt := func(a netip.Addr) bool { return trusted && a == netip.MustParseAddr("127.0.0.1") }
	h := pipelining.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%d", n)
	}), exempt)
	srv := &http.Server{Handler: h}
	if !bare {
		srv.ConnContext = pipelining.ConnContext
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// get is a GET request with a header of pad bytes: requests bigger than
// net/http's 4 KiB read buffer leave the next one in the socket.
func get(pad int) string {
	return "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("p", pad) + "\r\n\r\n"
}

// post is a POST with a body of n bytes, by Content-Length or chunked.
func post(n int, chunked bool) string {
	body := strings.Repeat("b", n)
	if chunked {
		return fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", n, body)
	}
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", n, body)
}

// answer is what a client read of one answer.
type answer struct {
	status int
	close  bool // Connection: close
	body   string
}

func TestHandler(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the bytes waiting in a socket are asked on Linux only")
	}
	for _, c := range []struct {
		name string
		bare bool // no ConnContext
		// writes are sent one after the other, each once the answers
		// before it are read (answers[i] answers writes' requests in
		// order; a write may hold several requests: a pipeline).
		writes  [][]string
		answers []answer
		// closed: the connection ends after the answers (the client
		// reads EOF); otherwise it stays open for another request.
		closed bool
	}{
		{"one request at a time keeps the connection",
			false, [][]string{{get(8000)}, {get(8000)}, {post(100, false)}}, []answer{{200, false, "0"}, {200, false, "0"}, {200, false, "100"}}, false},
		{"a pipelined request closes the connection after its answer",
			false, [][]string{{get(8000), get(8000), get(8000)}}, []answer{{200, true, "0"}}, true},
		{"the request before a pipeline keeps the connection",
			false, [][]string{{get(8000)}, {get(8000), get(8000)}}, []answer{{200, false, "0"}, {200, true, "0"}}, true},
		{"a body still arriving is not a pipeline",
			false, [][]string{{post(1<<20, false)}, {get(10)}}, []answer{{200, false, "1048576"}, {200, false, "0"}}, false},
		{"a body of unknown length followed by a request closes at the next",
			false, [][]string{{post(100, true), get(8000), get(8000)}}, []answer{{200, false, "100"}, {200, true, "0"}}, true},
		{"a chunked body alone keeps the connection",
			false, [][]string{{post(100, true)}, {get(10)}}, []answer{{200, false, "100"}, {200, false, "0"}}, false},
		{"without ConnContext a pipeline is served in turn",
			true, [][]string{{get(8000), get(8000), get(8000)}}, []answer{{200, false, "0"}, {200, false, "0"}, {200, false, "0"}}, false},
		// A trusted proxy's connection: served in turn, as net/http does.
		{"a trusted proxy's pipeline is served in turn",
			false, [][]string{{get(8000), get(8000), get(8000)}}, []answer{{200, false, "0"}, {200, false, "0"}, {200, false, "0"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", serve(t, c.bare, strings.HasPrefix(c.name, "a trusted proxy")))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(30 * time.Second)) // the test's own bound
			r := bufio.NewReader(conn)
			var got []answer
			for _, w := range c.writes {
				if _, err := io.WriteString(conn, strings.Join(w, "")); err != nil {
					t.Fatal(err)
				}
				for range w {
					res, err := http.ReadResponse(r, nil)
					if err != nil {
						break // closed: what was left of the pipeline is unanswered
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					got = append(got, answer{res.StatusCode, res.Close, string(b)})
					if res.Close {
						break
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.answers) {
				t.Errorf("answers %v, want %v", got, c.answers)
			}
			// A closed connection reads EOF; an open one serves another
			// request.
			io.WriteString(conn, get(10))
			res, err := http.ReadResponse(r, nil)
			if closed := err != nil; closed != c.closed {
				t.Errorf("the connection closed: %v (%v), want %v", closed, err, c.closed)
			}
			if err == nil {
				res.Body.Close()
			}
		})
	}
}
