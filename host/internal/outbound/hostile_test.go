package outbound

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/allowlist"
)

// rawServer serves each connection's first request with answer, given
// the request line ("GET /path HTTP/1.1"): a service that writes what it
// likes, where net/http would refuse to. It returns the server's port.
func rawServer(t testing.TB, answer func(line string, conn net.Conn)) string {
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

// askedNames is a test resolver that records the names it was asked.
type askedNames struct {
	names
	mu    sync.Mutex
	asked []string
}

func (a *askedNames) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	a.mu.Lock()
	a.asked = append(a.asked, host)
	a.mu.Unlock()
	return a.names.LookupNetIP(ctx, network, host)
}

// TestHostileURLsReachOnlyListedNames: URLs a guest writes to slip past
// the allowlist (Unicode dots and letters the transport maps to ASCII,
// userinfo and fragments that move the host, zones, mapped addresses,
// ports with leading zeros or signs, control characters) are refused, or
// call a listed name and nothing else: the resolver is never asked for a
// name the list does not allow.
func TestHostileURLsReachOnlyListedNames(t *testing.T) {
	srv := server(t, hello)
	p := port(srv)
	rn := &askedNames{names: names{"evil.example.test": {"127.0.0.1"}, "api.test": {"127.0.0.1"},
		"evil.test": {"127.0.0.1"}, "example.test.evil.test": {"127.0.0.1"},
		"compat.example.test": {"::7f00:1"}, "siit.example.test": {"::ffff:0:a9fe:a9fe"}}}
	l, err := allowlist.Parse([]string{"http://*.example.test:" + p, "http://api.test:" + p, "http://127.0.0.1:" + p})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Allow: l, Resolver: rn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for _, tc := range []struct {
		name, url string
		code      string // "" when the request is sent
	}{
		{"an ideographic full stop before the listed suffix", "http://evil\u3002example.test:" + p, abi.HTTPErrorNotAllowed},
		{"a fullwidth full stop before the listed suffix", "http://evil\uff0eexample.test:" + p, abi.HTTPErrorNotAllowed},
		{"the listed suffix followed by an ideographic dot", "http://example.test\u3002evil.test:" + p, abi.HTTPErrorNotAllowed},
		{"the same, percent-encoded", "http://example.test%E3%80%82evil.test:" + p, abi.HTTPErrorNotAllowed},
		{"fullwidth letters of a listed name", "http://\uff21\uff30\uff29.test:" + p, abi.HTTPErrorNotAllowed},
		{"the Kelvin sign for a K", "http://\u212Api.test:" + p, abi.HTTPErrorNotAllowed},
		{"a listed name after a fragment", "http://evil.test#@api.test:" + p, abi.HTTPErrorNotAllowed},
		{"a listed name after a backslash", "http://evil.test\\@api.test:" + p, abi.HTTPErrorInvalid},
		{"a listed name as userinfo", "http://api.test:" + p + "@evil.test:" + p, abi.HTTPErrorInvalid},
		{"another name after a fragment", "http://api.test:" + p + "#@evil.test", ""},
		{"a zone on a link-local address", "http://[fe80::1%25lo]:" + p, abi.HTTPErrorNotAllowed},
		{"a listed address, IPv4-mapped", "http://[::ffff:127.0.0.1]:" + p, ""},
		{"a listed address, IPv4-mapped in hexadecimal", "http://[::ffff:7f00:1]:" + p, ""},
		{"a listed name with a trailing dot", "http://api.test.:" + p, ""},
		{"a port with a leading zero", "http://api.test:0" + p, ""},
		{"a port with a sign", "http://api.test:+" + p, abi.HTTPErrorInvalid},
		{"a listed name resolving to 127.0.0.1, IPv4-compatible", "http://compat.example.test:" + p, abi.HTTPErrorNotAllowed},
		{"a listed name resolving to 169.254.169.254, IPv4-translated", "http://siit.example.test:" + p, abi.HTTPErrorNotAllowed},
		{"CR LF in the path", "http://api.test:" + p + "/x\r\nHost: evil.test", abi.HTTPErrorInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := get(t, session(t, c, Limits{}), tc.url)
			switch {
			case tc.code == "" && err != nil:
				t.Errorf("%q: %v, want it sent", tc.url, err)
			case tc.code != "" && (err == nil || err.Code != tc.code):
				t.Errorf("%q: %v, want %s", tc.url, err, tc.code)
			}
		})
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, name := range rn.asked {
		if name = strings.TrimSuffix(name, "."); name != "api.test" && !strings.HasSuffix(name, ".example.test") {
			t.Errorf("the resolver was asked for %q, which the list does not allow", name)
		}
	}
}

// TestHostileResponsesAreBounded: a service that sends headers without
// end, informational (1xx) answers without end, or a small gzip body
// that decompresses to 100 MiB is stopped by the host's bounds (the
// head's bytes, abi.HTTPResponseHeaderMaxBytes; limits.outboundBytes
// counted on the decompressed body)
// long before the deadline, with an error that says which bound.
func TestHostileResponsesAreBounded(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zw.Write(make([]byte, 100<<20))
	zw.Close()
	p := rawServer(t, func(line string, conn net.Conn) {
		switch {
		case strings.Contains(line, "/endless-headers"):
			conn.Write([]byte("HTTP/1.1 200 OK\r\n"))
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(conn, "X-%d: %s\r\n", i, strings.Repeat("a", 100)); err != nil {
					return
				}
			}
		case strings.Contains(line, "/endless-1xx"):
			for {
				if _, err := conn.Write([]byte("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n")); err != nil {
					return
				}
			}
		case strings.Contains(line, "/gzip-bomb"):
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", bomb.Len())
			conn.Write(bomb.Bytes())
		}
	})
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+p)
	for _, tc := range []struct{ path, code, says string }{
		{"/endless-headers", abi.HTTPErrorLimit, "(abi.HTTPResponseHeaderMaxBytes)"},
		{"/endless-1xx", abi.HTTPErrorLimit, "(abi.HTTPResponseHeaderMaxBytes)"},
		{"/gzip-bomb", abi.HTTPErrorLimit, "larger than 1048576 bytes (limits.outboundBytes)"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			// A minute: reaching the deadline would be the failure.
			s := sessionFor(t, time.Minute, c, Limits{Bytes: 1 << 20})
			_, body, err := get(t, s, "http://127.0.0.1:"+p+tc.path)
			if err == nil || err.Code != tc.code || !strings.Contains(err.Message, tc.says) {
				t.Fatalf("%v, want %s saying %q", err, tc.code, tc.says)
			}
			if len(body) > 1<<20 {
				t.Errorf("the guest read %d bytes, past the limit of %d", len(body), 1<<20)
			}
		})
	}
}

// TestTheEnvironmentsProxyIsNotUsed: HTTP_PROXY in the host's
// environment does not carry the guests' requests (a proxy dials for the
// client, past the address check); they go to the listed service
// directly, even when the proxy's own address is listed too.
func TestTheEnvironmentsProxyIsNotUsed(t *testing.T) {
	var proxied atomic.Int32
	proxy := server(t, func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		io.WriteString(w, "proxied")
	})
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:"+port(proxy))
	t.Setenv("http_proxy", "http://127.0.0.1:"+port(proxy))
	t.Setenv("NO_PROXY", "")
	srv := server(t, hello)
	c := newClient(t, names{"api.test": {"127.0.0.1"}}, Config{}, "http://api.test:"+port(srv), "http://127.0.0.1:"+port(srv), "http://127.0.0.1:"+port(proxy))
	status, body, err := get(t, session(t, c, Limits{}), "http://api.test:"+port(srv)+"/")
	if err != nil || status != 200 || body != "hello" || proxied.Load() != 0 {
		t.Errorf("%d %q %v, %d requests through the proxy; want 200 hello from the service, none through the proxy", status, body, err, proxied.Load())
	}
}

// TestRequestHeadersAreBounded: a request's headers are at most
// abi.HTTPRequestHeaderMaxCount values of abi.HTTPRequestHeaderMaxBytes
// (names and values); past either, http_send is invalid and nothing is
// sent. The request JSON's own bound (1 MiB) let a guest send 90,000
// headers, 53 MB of the host's allocations each time it called.
func TestRequestHeadersAreBounded(t *testing.T) {
	var got atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { got.Store(int32(len(r.Header))) })
	url := "http://127.0.0.1:" + port(srv) + "/"
	c := newClient(t, nil, Config{}, url)
	headers := func(n, size int) [][2]string {
		out := make([][2]string, n)
		for i := range out {
			out[i] = [2]string{fmt.Sprintf("x-%05d", i), strings.Repeat("v", size)}
		}
		return out
	}
	perValue := abi.HTTPRequestHeaderMaxBytes / abi.HTTPRequestHeaderMaxCount
	for _, tc := range []struct {
		name    string
		headers [][2]string
		says    string // "" when sent
	}{
		{"as many as allowed", headers(abi.HTTPRequestHeaderMaxCount, 1), ""},
		{"as many bytes as allowed", headers(abi.HTTPRequestHeaderMaxCount, perValue-len("x-00000")), ""},
		{"one value too many", headers(abi.HTTPRequestHeaderMaxCount+1, 1), fmt.Sprintf("%d header values, more than the %d", abi.HTTPRequestHeaderMaxCount+1, abi.HTTPRequestHeaderMaxCount)},
		{"past the bytes", append(headers(1, abi.HTTPRequestHeaderMaxBytes-len("x-00000")), [2]string{"y", "z"}), fmt.Sprintf("more than the %d", abi.HTTPRequestHeaderMaxBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got.Store(-1)
			s := session(t, c, Limits{})
			h, err := s.Send(req("GET", url, tc.headers...), nil)
			switch {
			case tc.says == "" && err != nil:
				t.Fatalf("%v, want it sent", err)
			case tc.says == "":
				s.CloseHandle(h)
				if n := got.Load(); n < int32(len(tc.headers)) {
					t.Errorf("the service got %d headers, want at least %d", n, len(tc.headers))
				}
			case err == nil || err.Errno() != abi.ErrInvalid || !strings.Contains(err.Message, tc.says):
				t.Errorf("%v, want invalid saying %q", err, tc.says)
			case got.Load() != -1:
				t.Error("the request reached the service")
			}
		})
	}
}
