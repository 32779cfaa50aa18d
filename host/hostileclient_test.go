package host_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// clientTestApp is the app the hostile clients talk to: a JSON endpoint
// that echoes what it got, a stream without end, and a plain route.
func clientTestApp(t *testing.T) *app {
	return newApp(t).
		wat("server/api/echo.post.wasm", watModule{contract: `{"request":{"body":{"schema":{"type":"object"}}}}`, handle: echoEnvelope}).
		wat("server/api/stream.get.wasm", watModule{contract: streamContract, handle: `(loop $l (drop (call $write (i32.const 65536) (i32.const 65536))) (br $l)) (i32.const 0)`}).
		wat("server/routes/ok.get.wasm", watModule{handle: plainOK, extra: okData})
}

// serveTCP serves h with the http.Server it configures, on a real TCP
// listener, and returns its address.
func serveTCP(t testing.TB, h *host.Host) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := h.HTTPServer()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// rawConn is one client connection speaking HTTP/1.1 by hand.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // the test's own bound
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// response reads one response.
func (c *rawConn) response(method string) (*http.Response, string, error) {
	res, err := http.ReadResponse(c.r, &http.Request{Method: method})
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, string(b), err
}

// closedByServer reports whether the server closed the connection: a read
// ends with EOF (or a reset) rather than the test's own deadline.
func (c *rawConn) closedByServer() error {
	_, err := c.r.ReadByte()
	var ne net.Error
	switch {
	case err == nil:
		return errors.New("the server sent more bytes")
	case errors.As(err, &ne) && ne.Timeout():
		return errors.New("the connection was still open when the test gave up")
	}
	return nil
}

// TestHostileClients is the fault matrix of the client side, over real
// TCP with the server settings of endpoints.json: clients that send too
// slowly, go idle, send too much, or stop reading.
func TestHostileClients(t *testing.T) {
	const short = 300 * time.Millisecond
	a := clientTestApp(t)
	h, logs := a.host(host.Options{Mode: host.Development,
		Limits: config.Limits{Instances: 1, Timeout: config.Duration(time.Minute)},
		Server: config.Server{ReadHeaderTimeout: config.Duration(short), ReadTimeout: config.Duration(short),
			WriteTimeout: config.Duration(short), IdleTimeout: config.Duration(short)}})
	addr := serveTCP(t, h)
	healthy := func(t *testing.T) {
		t.Helper()
		c := dial(t, addr)
		fmt.Fprintf(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
		if res, body, err := c.response("GET"); err != nil || res.StatusCode != 200 || body != "ok" {
			t.Errorf("the healthy route: %v %v %q, want 200 ok", err, res, body)
		}
	}

	t.Run("a body slower than its Content-Length", func(t *testing.T) {
		c := dial(t, addr)
		fmt.Fprintf(c, "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"a\":\"%s", strings.Repeat("x", 24))
		res, body, err := c.response("POST")
		if err != nil || res.StatusCode != 408 || !strings.Contains(body, "server.readTimeout") {
			t.Fatalf("got %v %v %s, want 408 naming server.readTimeout", err, res, body)
		}
		if err := c.closedByServer(); err != nil {
			t.Error(err)
		}
	})

	t.Run("a hundred slow bodies at once", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i := 0; i < 100; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := dial(t, addr)
				fmt.Fprintf(c, "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{")
				if res, _, err := c.response("POST"); err != nil || res.StatusCode != 408 {
					errs <- fmt.Errorf("got %v %v, want 408", err, res)
				}
			}()
		}
		healthy(t)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("an idle keep-alive connection", func(t *testing.T) {
		c := dial(t, addr)
		fmt.Fprintf(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
		if res, _, err := c.response("GET"); err != nil || res.StatusCode != 200 {
			t.Fatalf("first request: %v %v", err, res)
		}
		if err := c.closedByServer(); err != nil {
			t.Error(err)
		}
	})

	t.Run("a connection that never sends a request", func(t *testing.T) {
		c := dial(t, addr)
		if err := c.closedByServer(); err != nil {
			t.Error(err)
		}
	})

	t.Run("a 5 MiB body to a 1 MiB endpoint, sent whole before reading", func(t *testing.T) {
		c := dial(t, addr)
		body := `{"a":"` + strings.Repeat("x", 5<<20) + `"}`
		fmt.Fprintf(c, "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		if _, err := io.WriteString(c, body); err != nil {
			t.Fatalf("sending the body: %v (the server reset the connection)", err)
		}
		res, got, err := c.response("POST")
		if err != nil || res.StatusCode != 413 || !strings.Contains(got, `"limit":1048576`) {
			t.Fatalf("got %v %v %s, want 413 with the limit", err, res, got)
		}
	})

	t.Run("a 5 MiB body announced with Expect: 100-continue", func(t *testing.T) {
		c := dial(t, addr)
		fmt.Fprintf(c, "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", 5<<20)
		res, _, err := c.response("POST")
		if err != nil || res.StatusCode != 413 {
			t.Fatalf("got %v %v, want 413 before any body is sent", err, res)
		}
	})

	t.Run("header fields past server.maxHeaderBytes", func(t *testing.T) {
		// A 64 KiB header was taken before; each cost the server 5x its
		// bytes in garbage (BenchmarkJunkKeyFlood).
		for _, c := range []struct {
			name   string
			past   int // bytes past the bound
			status int
			says   string
		}{
			{"at the bound", 0, 200, "ok"},
			{"a byte past", 1, 431, "server.maxHeaderBytes (16384)"},
			// net/http refuses them itself, before reading them all.
			{"8 KiB past", 8 << 10, 431, "Request Header Fields Too Large"},
		} {
			t.Run(c.name, func(t *testing.T) {
				head := "GET /ok HTTP/1.1\r\nHost: x\r\nX-Junk: \r\n\r\n"
				fill := strings.Repeat("x", config.DefaultMaxHeaderBytes+c.past-len(head))
				conn := dial(t, addr)
				if _, err := io.WriteString(conn, strings.Replace(head, "X-Junk: ", "X-Junk: "+fill, 1)); err != nil {
					t.Fatal(err)
				}
				res, body, err := conn.response("GET")
				if err != nil || res.StatusCode != c.status || !strings.Contains(body, c.says) {
					t.Fatalf("got %v %v %s, want %d saying %q", err, res, body, c.status, c.says)
				}
			})
		}
	})

	t.Run("a client that stops reading a stream", func(t *testing.T) {
		c := dial(t, addr)
		fmt.Fprintf(c, "GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")
		// It reads nothing: the socket buffers fill, writes block, and the
		// write deadline ends the stream and its guest.
		if !waitFor(t, 20*time.Second, func() bool { return strings.Contains(logs.String(), "client went away; guest stopped") }) {
			t.Fatalf("the guest still streams to a client that stopped reading:\n%.2000s", logs)
		}
		// Its only instance is free again: another client gets the stream.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/api/stream", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if _, err := io.ReadFull(res.Body, make([]byte, 1<<20)); err != nil || res.StatusCode != 200 {
			t.Errorf("the next stream: %d %v", res.StatusCode, err)
		}
	})

	healthy(t)
}

// TestHostileValues sends values that JSON Schema accepts but readers
// disagree on, over real TCP: the guest must get exactly what the host
// validated, in canonical form, or the client a 400 that says why.
func TestHostileValues(t *testing.T) {
	contract := `{"request":{
		"params":{"type":"object","properties":{"id":{"type":"integer"}}},
		"query":{"type":"object","properties":{"n":{"type":"integer"},"q":{"type":"string"}}},
		"body":{"required":false,"schema":{"type":"object","properties":{"userId":{"type":"integer"},"name":{"type":"string"},"tree":{}}}}}}`
	a := newApp(t).wat("server/api/items/[id].post.wasm", watModule{contract: contract, handle: echoEnvelope})
	// Room for a query of 10,001 parameters (40 KB): an app that raised
	// server.maxHeaderBytes.
	h, _ := a.host(host.Options{Mode: host.Development, Server: config.Server{MaxHeaderBytes: 64 << 10}})
	base := "http://" + serveTCP(t, h)
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	tests := []struct {
		name, path, body string
		status           int
		want             []string // in the answer
	}{
		{"integers written as 2.0, 1e1 and 2e0 reach the guest as integers", "/api/items/2.0?n=1e1", `{"userId":2e0,"name":"Ada"}`,
			200, []string{`"params":{"id":2}`, `"query":{"n":10}`, `"body":{"name":"Ada","userId":2}`}},
		{"an integer beyond int64 stays exact", "/api/items/9223372036854775808", "", 200, []string{`"params":{"id":9223372036854775808}`}},
		{"an integer beyond float64 is refused", "/api/items/1e400", "", 400, []string{`"params":[{"path":["id"],"message":"number out of range`}},
		{"a body number beyond float64 is refused", "/api/items/1", `{"userId":1e999999999}`, 400, []string{`"path":["userId"],"message":"invalid JSON at byte 10: number out of range`}},
		{"duplicate names are refused", "/api/items/1", `{"userId":"x","userId":2}`, 400, []string{`duplicate member name \"userId\"`}},
		{"invalid UTF-8 in a string is refused", "/api/items/1", "{\"name\":\"caf\xe9\"}", 400, []string{`invalid UTF-8 in a string: byte \\xe9`}},
		{"invalid UTF-8 in a name is refused", "/api/items/1", "{\"na\xe2me\":1}", 400, []string{`invalid UTF-8 in a string: byte \\xe2`}},
		{"invalid UTF-8 in the query is refused", "/api/items/1?q=caf%E9", "", 400, []string{`"query":[{"path":["q"],"message":"is not valid UTF-8: byte \\xe9 at offset 3`}},
		{"a ';' in the query is refused whole, not validated in part", "/api/items/1?n=x;q=1", "", 400, []string{`"query":[{"path":[],"message":"the query string has a ';' at byte 3`}},
		{"a bad escape in the query is refused whole", "/api/items/1?n=x%zz&q=1", "", 400, []string{`"query":[{"path":[],"message":"the query string has an invalid escape \"%zz\"`}},
		{"more query parameters than limits.queryParams are refused", "/api/items/1?n=1" + strings.Repeat("&q=1", 1000), "", 400,
			[]string{`"message":"the query string has 1001 parameters, more than the 1000 the host accepts (limits.queryParams)"`}},
		{"more query parameters than Go parses are refused", "/api/items/1?n=x" + strings.Repeat("&q=1", 10000), "", 400, []string{`has 10001 parameters`}},
		{"invalid UTF-8 in the path is refused", "/api/items/%FF", "", 400, []string{`"params":[{"path":["id"],"message":"is not valid UTF-8: byte \\xff at offset 0`}},
		{"a byte order mark says so", "/api/items/1", "\xef\xbb\xbf{}", 400, []string{`U+FEFF`}},
		{"a non-ASCII character where a value belongs is quoted as itself", "/api/items/1", `{"name":…}`, 400, []string{`'…' (U+2026)`}},
		{"more values than limits.jsonValues are refused before validation", "/api/items/1", `{"tree":[` + strings.Repeat("1,", 5000) + `1]}`, 400,
			[]string{`"path":["tree",4094],"message":"invalid JSON at byte 8197: holds more than 4096 values`}},
		{"nesting 5000 deep is refused before validation", "/api/items/1", `{"tree":` + deep + `}`, 400, []string{`nests deeper than 32 levels`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req, _ := http.NewRequest("POST", base+tt.path, body)
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.status {
				t.Fatalf("got %d %s, want %d", res.StatusCode, b, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("answer %s\ndoes not contain %s", b, w)
				}
			}
		})
	}
}

// TestLongPathsAreCutInTheLog: the host's own log lines carry a few
// hundred bytes of what a client sent, however long: a 30 KB path to a
// failing guest is logged cut, saying how much was left out.
func TestLongPathsAreCutInTheLog(t *testing.T) {
	a := newApp(t).wat("server/api/items/[id].get.wasm", watModule{handle: `(unreachable)`})
	// Room for the 30 KB path: an app that raised server.maxHeaderBytes.
	h, logs := a.host(host.Options{Mode: host.Production, Server: config.Server{MaxHeaderBytes: 64 << 10}})
	base := "http://" + serveTCP(t, h)
	res, err := http.Get(base + "/api/items/" + strings.Repeat("a", 30000))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 500 {
		t.Fatalf("got %d, want 500 from the trapping guest", res.StatusCode)
	}
	var line string
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, "guest failed") {
			line = l
		}
	}
	if line == "" || len(line) > 2000 || !strings.Contains(line, "…[+29755 bytes]") {
		t.Errorf("the log line of the failure has %d bytes, want at most 2000, cut saying …[+29755 bytes]:\n%.3000s", len(line), line)
	}
}
