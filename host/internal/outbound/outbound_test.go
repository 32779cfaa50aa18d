package outbound

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

func TestOnlyListedOriginsAreCalled(t *testing.T) {
	var hits atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1); hello(w, r) })
	p := port(srv)
	c := newClient(t, names{"api.test": {"127.0.0.1"}}, Config{}, "http://127.0.0.1:"+p, "http://api.test:"+p)
	for _, tc := range []struct{ name, url, code string }{
		{"a listed address", "http://127.0.0.1:" + p + "/x", ""},
		{"a listed name", "http://api.test:" + p + "/x", ""},
		{"a listed name, upper case with a dot", "http://API.test.:" + p + "/x", ""},
		{"another port", "http://127.0.0.1:1/x", abi.HTTPErrorNotAllowed},
		{"another scheme", "https://127.0.0.1:" + p + "/x", abi.HTTPErrorNotAllowed},
		{"an unlisted name", "http://other.test:" + p + "/x", abi.HTTPErrorNotAllowed},
		{"no scheme", "api.test/x", abi.HTTPErrorInvalid},
		{"a path only (never completed from the incoming Host)", "/api/users", abi.HTTPErrorInvalid},
		{"a scheme-relative URL", "//api.test/x", abi.HTTPErrorInvalid},
		{"no authority", "http:///x", abi.HTTPErrorInvalid},
		{"credentials in the URL", "http://u:p@127.0.0.1:" + p + "/x", abi.HTTPErrorInvalid},
		{"another scheme still", "file:///etc/passwd", abi.HTTPErrorInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := hits.Load()
			s := session(t, c, Limits{})
			status, body, err := get(t, s, tc.url)
			switch {
			case tc.code == "" && (err != nil || status != 200 || body != "hello"):
				t.Errorf("GET %s = %d %q %v, want 200 hello", tc.url, status, body, err)
			case tc.code != "" && (err == nil || err.Code != tc.code):
				t.Errorf("GET %s = %d %v, want code %s", tc.url, status, err, tc.code)
			case tc.code != "" && hits.Load() != before:
				t.Errorf("GET %s reached the server", tc.url)
			case tc.code != "" && s.LastError() != err:
				t.Errorf("LastError = %v, want %v", s.LastError(), err)
			}
		})
	}
	var zero Session
	zero.Start(t.Context(), time.Now().Add(time.Second), nil, newClient(t, nil, Config{}), Limits{}, nil)
	if _, _, err := get(t, &zero, "http://127.0.0.1:"+p); err == nil || err.Code != abi.HTTPErrorNotAllowed {
		t.Errorf("with no allowlist: %v, want not_allowed", err)
	}
}

// TestEveryAddressFormIsCheckedWhereItIsDialled: a listed name (or "*")
// that leads to a loopback, private, link-local or metadata address, in
// whatever form, is refused unless the address itself is listed.
func TestEveryAddressFormIsCheckedWhereItIsDialled(t *testing.T) {
	var hits atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1); hello(w, r) })
	p := port(srv)
	n := names{
		"loop.test": {"127.0.0.1"}, "ten.test": {"10.0.0.1"}, "meta.test": {"169.254.169.254"},
		"six.test": {"::1"}, "mapped.test": {"::ffff:127.0.0.1"}, "zero.test": {"0.0.0.0"},
		"ula.test": {"fc00::1"}, "cgnat.test": {"100.64.0.1"}, "nat64.test": {"64:ff9b::7f00:1"},
	}
	c := newClient(t, n, Config{}, "http://*:*")
	for _, url := range []string{
		"http://loop.test:" + p, "http://ten.test:" + p, "http://meta.test", "http://six.test:" + p,
		"http://mapped.test:" + p, "http://zero.test:" + p, "http://ula.test:" + p, "http://cgnat.test:" + p,
		"http://nat64.test:" + p,
		"http://127.0.0.1:" + p, "http://[::1]:" + p, "http://[::ffff:127.0.0.1]:" + p, "http://[::ffff:7f00:1]:" + p,
		"http://0.0.0.0:" + p, "http://169.254.169.254/latest/meta-data/",
		"http://2130706433:" + p, "http://0177.0.0.1:" + p, "http://0x7f.0.0.1:" + p, "http://0x7f000001:" + p,
		"http://127.1:" + p, "http://017700000001:" + p,
	} {
		t.Run(url, func(t *testing.T) {
			s := session(t, c, Limits{})
			_, _, err := get(t, s, url)
			if err == nil || err.Code != abi.HTTPErrorNotAllowed || err.Errno() != abi.ErrNotAllowed {
				t.Errorf("GET %s = %v, want not_allowed", url, err)
			}
		})
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests reached the loopback server", hits.Load())
	}

	t.Run("listed addresses may be dialled", func(t *testing.T) {
		c := newClient(t, n, Config{}, "http://loop.test:"+p, "http://mapped.test:"+p, "http://127.0.0.1:"+p)
		for _, url := range []string{"http://loop.test:" + p, "http://mapped.test:" + p} {
			s := session(t, c, Limits{})
			if status, _, err := get(t, s, url); err != nil || status != 200 {
				t.Errorf("GET %s = %d %v, want 200", url, status, err)
			}
		}
		// The name listed, the address listed for another port only.
		c = newClient(t, n, Config{}, "http://loop.test:"+p, "http://127.0.0.1:1")
		s := session(t, c, Limits{})
		if _, _, err := get(t, s, "http://loop.test:"+p); err == nil || err.Code != abi.HTTPErrorNotAllowed || !strings.Contains(err.Message, "127.0.0.1") {
			t.Errorf("the address listed for another port: %v, want not_allowed naming 127.0.0.1", err)
		}
	})
}

func TestRedirects(t *testing.T) {
	var privateHits atomic.Int32
	private := server(t, func(w http.ResponseWriter, r *http.Request) { privateHits.Add(1) })
	other := server(t, hello)
	var loops atomic.Int32
	var main_ *string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, "http://127.0.0.1:"+port(private)+"/", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-other":
			http.Redirect(w, r, "http://127.0.0.1:"+port(other)+"/", http.StatusFound)
		case "/to-same":
			http.Redirect(w, r, *main_+"/hello", http.StatusFound)
		case "/loop":
			loops.Add(1)
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/five":
			n := loops.Add(1)
			if n <= 5 {
				http.Redirect(w, r, "/five", http.StatusFound)
				return
			}
			hello(w, r)
		default:
			hello(w, r)
		}
	})
	base := "http://127.0.0.1:" + port(srv)
	main_ = &base
	c := newClient(t, names{"localhost": {"127.0.0.1"}}, Config{}, base, "http://localhost:"+port(other), "http://127.0.0.1:"+port(other), "http://*")
	auth := [][2]string{{"Authorization", "Bearer secret"}, {"Cookie", "session=1"}}

	t.Run("to a private address not listed", func(t *testing.T) {
		for _, path := range []string{"/to-private", "/to-metadata"} {
			s := session(t, c, Limits{})
			if _, _, err := get(t, s, base+path); err == nil || err.Code != abi.HTTPErrorNotAllowed || !strings.Contains(err.Message, "169.254.169.254") && !strings.Contains(err.Message, "redirected to") {
				t.Errorf("%s: %v, want not_allowed for the redirect", path, err)
			}
		}
		if privateHits.Load() != 0 {
			t.Error("the redirect reached the unlisted server")
		}
	})
	t.Run("credentials stay within the origin", func(t *testing.T) {
		s := session(t, c, Limits{})
		h, err := s.Send(req("GET", base+"/to-other", auth...), nil)
		if err != nil {
			t.Fatal(err)
		}
		head, _ := s.Response(h)
		if !strings.Contains(string(head), `["x-authorization",""]`) || !strings.Contains(string(head), `["x-cookie",""]`) {
			t.Errorf("another origin got the credentials: %s", head)
		}
		h, err = s.Send(req("GET", base+"/to-same", auth...), nil)
		if err != nil {
			t.Fatal(err)
		}
		head, _ = s.Response(h)
		if !strings.Contains(string(head), `["x-authorization","Bearer secret"]`) {
			t.Errorf("the same origin lost the credentials: %s", head)
		}
	})
	t.Run("at most five", func(t *testing.T) {
		loops.Store(0)
		s := session(t, c, Limits{})
		if status, body, err := get(t, s, base+"/five"); err != nil || status != 200 || body != "hello" {
			t.Errorf("five redirects: %d %q %v, want 200 hello", status, body, err)
		}
		loops.Store(0)
		if _, _, err := get(t, s, base+"/loop"); err == nil || err.Code != abi.HTTPErrorRedirect || err.Errno() != abi.ErrIO {
			t.Errorf("a loop: %v, want redirect", err)
		}
		if n := loops.Load(); n != 6 {
			t.Errorf("a loop was requested %d times, want 6 (the request and five redirects)", n)
		}
	})
}

// TestTLSIsVerifiedAgainstTheCAFile: an internal service's certificate
// is trusted through caFile, never without it.
func TestTLSIsVerifiedAgainstTheCAFile(t *testing.T) {
	ca := newTestCA(t, "api.test", "127.0.0.1")
	srv := tlsServer(t, ca, http.HandlerFunc(hello))
	p := port(srv)
	n := names{"api.test": {"127.0.0.1"}, "wrong.test": {"127.0.0.1"}}
	entries := []string{"https://api.test:" + p, "https://wrong.test:" + p, "https://127.0.0.1:" + p}

	s := session(t, newClient(t, n, Config{CAs: ca.pem}, entries...), Limits{})
	if status, body, err := get(t, s, "https://api.test:"+p+"/"); err != nil || status != 200 || body != "hello" {
		t.Errorf("with the CA: %d %q %v, want 200 hello", status, body, err)
	}
	if _, _, err := get(t, s, "https://wrong.test:"+p+"/"); err == nil || err.Code != abi.HTTPErrorTLS {
		t.Errorf("a name the certificate does not hold: %v, want tls", err)
	}
	s = session(t, newClient(t, n, Config{}, entries...), Limits{})
	if _, _, err := get(t, s, "https://api.test:"+p+"/"); err == nil || err.Code != abi.HTTPErrorTLS {
		t.Errorf("without the CA: %v, want tls", err)
	}
	if _, err := New(Config{CAs: []byte("not PEM")}); err == nil {
		t.Error("a CA file without a certificate was accepted")
	}
}

// TestTheDeadlineStopsSlowServers: a server that never sends its headers,
// or stops sending its body, holds the call only until its deadline.
func TestTheDeadlineStopsSlowServers(t *testing.T) {
	release := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			io.WriteString(w, "first")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for handlers
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+port(srv))
	base := "http://127.0.0.1:" + port(srv)

	s := sessionFor(t, time.Second, c, Limits{})
	if _, err := s.Send(req("GET", base+"/slow-headers"), nil); err == nil || err.Code != abi.HTTPErrorTimeout {
		t.Errorf("slow headers: %v, want timeout", err)
	}
	s = sessionFor(t, time.Second, c, Limits{})
	h, err := s.Send(req("GET", base+"/slow-body"), nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	var got []byte
	for {
		n, err := s.Read(h, buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if err.Code != abi.HTTPErrorTimeout || string(got) != "first" {
				t.Errorf("slow body: read %q then %v, want first then timeout", got, err)
			}
			break
		}
		if n == 0 {
			t.Fatalf("slow body: ended after %q, want a timeout", got)
		}
	}
}

// TestALargeAnswerIsCappedWithoutBuffering: a 1 GB answer read whole
// stops at limits.outboundBytes, and what the host allocates meanwhile
// does not grow with the answer: bytes go from the connection into the
// guest's buffer.
func TestALargeAnswerIsCappedWithoutBuffering(t *testing.T) {
	const size, limit = 1 << 30, 1 << 20
	written := make(chan int64, 1)
	chunk := make([]byte, 32<<10)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1073741824")
		var n int64
		for n < size {
			m, err := w.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		written <- n
	})
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+port(srv))
	s := session(t, c, Limits{Bytes: limit})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, err := s.Send(req("GET", "http://127.0.0.1:"+port(srv)+"/big"), nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10) // the guest's buffer
	var read int64
	var last *Error
	for {
		n, err := s.Read(h, buf)
		read += int64(n)
		if err != nil {
			last = err
			break
		}
		if n == 0 {
			break
		}
	}
	runtime.ReadMemStats(&after)
	if read != limit || last == nil || last.Code != abi.HTTPErrorLimit || last.Errno() != abi.ErrLimit {
		t.Errorf("read %d bytes then %v, want %d then limit", read, last, limit)
	}
	if n, err := s.Read(h, buf); n != 0 || err != last {
		t.Errorf("a read after the limit: %d, %v; want the limit again", n, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("the host allocated %d bytes to pass %d on, want under 2 MiB", alloc, read)
	}
	s.Close()
	if n := <-written; n >= size {
		t.Errorf("the server wrote the whole answer (%d bytes): the connection was not closed at the limit", n)
	}

	t.Run("streamed past the limit", func(t *testing.T) {
		const size = 64 << 20
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			for n := 0; n < size; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		})
		c := newClient(t, nil, Config{}, "http://127.0.0.1:"+port(srv))
		s := session(t, c, Limits{Bytes: limit})
		runtime.GC()
		runtime.ReadMemStats(&before)
		h, err := s.Send([]byte(`{"url":"http://127.0.0.1:`+port(srv)+`/","stream":true}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		var read int64
		for {
			n, err := s.Read(h, buf)
			if err != nil {
				t.Fatalf("after %d bytes: %v", read, err)
			}
			if n == 0 {
				break
			}
			read += int64(n)
		}
		runtime.ReadMemStats(&after)
		if read != size {
			t.Errorf("streamed %d bytes, want %d", read, size)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
			t.Errorf("the host allocated %d bytes to stream %d, want under 2 MiB", alloc, read)
		}
	})
}

// TestRequestsPerCallAreCapped: of 1000 requests one call sends, the
// first limits.outboundRequests go out and the others fail at once.
func TestRequestsPerCallAreCapped(t *testing.T) {
	var hits atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+port(srv))
	s := session(t, c, Limits{Requests: 100})
	var limited int
	for range 1000 {
		h, err := s.Send(req("GET", "http://127.0.0.1:"+port(srv)+"/"), nil)
		if err != nil {
			if err.Code != abi.HTTPErrorLimit {
				t.Fatalf("a request failed: %v", err)
			}
			limited++
			continue
		}
		s.CloseHandle(h)
	}
	if hits.Load() != 100 || limited != 900 {
		t.Errorf("%d requests reached the server and %d were refused, want 100 and 900", hits.Load(), limited)
	}
	if n, _ := s.Stats(); n != 100 {
		t.Errorf("Stats counts %d requests, want 100", n)
	}
}

// TestConcurrentRequestsPerHostAreBounded: past MaxPerHost responses open
// to one host, the next request fails at once; releasing one frees a slot.
func TestConcurrentRequestsPerHostAreBounded(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hello(w, r) })
	url := "http://127.0.0.1:" + port(srv) + "/"
	c := newClient(t, nil, Config{MaxPerHost: 2}, "http://127.0.0.1:"+port(srv))
	a, b := session(t, c, Limits{}), session(t, c, Limits{})
	h1, err1 := a.Send(req("GET", url), nil)
	_, err2 := b.Send(req("GET", url), nil)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := b.Send(req("GET", url), nil); err == nil || err.Code != abi.HTTPErrorLimit {
		t.Errorf("a third request in flight: %v, want limit", err)
	}
	a.CloseHandle(h1)
	if _, err := b.Send(req("GET", url), nil); err != nil {
		t.Errorf("after a release: %v", err)
	}
	b.Close()
	if len(c.inFlight) != 0 {
		t.Errorf("slots held after every session closed: %v", c.inFlight)
	}
}

func TestMalformedRequestsAreInvalid(t *testing.T) {
	c := newClient(t, nil, Config{}, "http://127.0.0.1:8089")
	s := session(t, c, Limits{})
	for _, tc := range []struct{ name, json string }{
		{"not JSON", `{`},
		{"an unknown member", `{"url":"http://127.0.0.1:8089","body":"x"}`},
		{"a bad method", `{"method":"GE T","url":"http://127.0.0.1:8089"}`},
		{"a bad header name", `{"url":"http://127.0.0.1:8089","headers":[["a b","1"]]}`},
		{"CR LF in a value", `{"url":"http://127.0.0.1:8089","headers":[["x","1\r\nHost: evil"]]}`},
		{"Host", `{"url":"http://127.0.0.1:8089","headers":[["host","evil.example"]]}`},
		{"Transfer-Encoding", `{"url":"http://127.0.0.1:8089","headers":[["transfer-encoding","chunked"]]}`},
		{"an upgrade to WebSocket", `{"url":"http://127.0.0.1:8089","headers":[["Connection","Upgrade"],["Upgrade","websocket"]]}`},
		{"an upgrade to h2c", `{"url":"http://127.0.0.1:8089","headers":[["upgrade","h2c"]]}`},
		{"Host in upper case", `{"url":"http://127.0.0.1:8089","headers":[["HOST","evil.example"]]}`},
		{"Content-Length", `{"url":"http://127.0.0.1:8089","headers":[["content-length","0"]]}`},
		{"TE", `{"url":"http://127.0.0.1:8089","headers":[["te","trailers"]]}`},
		{"a header with three members", `{"url":"http://127.0.0.1:8089","headers":[["x","1","2"]]}`},
		{"a request JSON past 1 MiB", `{"url":"http://127.0.0.1:8089","headers":[["x","` + strings.Repeat("a", 1<<20) + `"]]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Send([]byte(tc.json), nil); err == nil || err.Errno() != abi.ErrInvalid {
				t.Errorf("Send(%s) = %v, want invalid", tc.json, err)
			}
		})
	}
	if _, err := s.Read(7, make([]byte, 8)); err == nil || err.Errno() != abi.ErrInvalid {
		t.Errorf("Read of an unknown handle: %v", err)
	}
	if _, ok := s.Response(-1); ok {
		t.Error("Response of handle -1 succeeded")
	}
}

func TestRequestBodyAndHeadersGoOut(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Add("X-Seen", r.Method+" "+r.Header.Get("Content-Type")+" "+string(b))
		w.Header().Add("X-Seen", "second")
		w.WriteHeader(201)
	})
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+port(srv))
	s := session(t, c, Limits{})
	body := []byte(`{"a":1}`)
	h, err := s.Send(req("POST", "http://127.0.0.1:"+port(srv)+"/", [2]string{"content-type", "application/json"}), body)
	if err != nil {
		t.Fatal(err)
	}
	copy(body, "XXXXXXX") // the guest reuses its memory
	head, _ := s.Response(h)
	if want := `{"status":201,"headers":[["content-length","0"],["date",`; !strings.HasPrefix(string(head), want) ||
		!strings.Contains(string(head), `["x-seen","POST application/json {\"a\":1}"],["x-seen","second"]`) {
		t.Errorf("response = %s", head)
	}
}

// TestANameIsDialledAddressByAddress: an address that refuses the
// connection gives way to the next of the name's addresses, and an
// unlisted private one among them is skipped, never dialled.
func TestANameIsDialledAddressByAddress(t *testing.T) {
	srv := server(t, hello) // listens on 127.0.0.1 only
	p := port(srv)
	n := names{"multi.test": {"10.0.0.1", "127.0.0.2", "127.0.0.1"}}
	c := newClient(t, n, Config{}, "http://multi.test:"+p, "http://127.0.0.2:"+p, "http://127.0.0.1:"+p)
	s := session(t, c, Limits{})
	if status, body, err := get(t, s, "http://multi.test:"+p+"/"); err != nil || status != 200 || body != "hello" {
		t.Errorf("got %d %q %v, want 200 hello from 127.0.0.1", status, body, err)
	}
}

// TestPerHostBoundUnderAHammer: many sessions sending at once never have
// more than MaxPerHost requests in flight to one host, and every slot is
// given back.
func TestPerHostBoundUnderAHammer(t *testing.T) {
	var now, most atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		io.WriteString(w, "x")
		now.Add(-1)
	})
	url := "http://127.0.0.1:" + port(srv) + "/"
	c := newClient(t, nil, Config{MaxPerHost: 4}, "http://127.0.0.1:"+port(srv))
	start := make(chan struct{})
	var wg sync.WaitGroup
	var sent, limited atomic.Int32
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &Session{}
			s.Start(t.Context(), time.Now().Add(30*time.Second), nil, c, Limits{}, nil)
			defer s.Close()
			<-start
			for range 20 {
				h, err := s.Send(req("GET", url), nil)
				if err != nil {
					if err.Code != abi.HTTPErrorLimit {
						t.Errorf("a request failed: %v", err)
						return
					}
					limited.Add(1)
					continue
				}
				sent.Add(1)
				io.ReadAll(readerOf(s, h))
				s.CloseHandle(h)
			}
		}()
	}
	close(start)
	wg.Wait()
	if most.Load() > 4 || sent.Load() == 0 || sent.Load()+limited.Load() != 640 {
		t.Errorf("at most %d in flight (want ≤ 4), %d sent, %d refused", most.Load(), sent.Load(), limited.Load())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.inFlight) != 0 {
		t.Errorf("slots held after every session closed: %v", c.inFlight)
	}
}

// readerOf reads handle h's body.
func readerOf(s *Session, h int32) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		n, err := s.Read(h, p)
		switch {
		case err != nil:
			return n, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestRequestsEndBeforeTheCallsDeadline: a request's deadline is a
// margin before the call's (a tenth of the time left, 50 ms to 1 s),
// so that a guest whose service is too slow gets its timeout while it
// can still answer it (a 504 of its own) rather than being stopped at
// the deadline, where the host answers 500.
func TestRequestsEndBeforeTheCallsDeadline(t *testing.T) {
	srv := server(t, hello)
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+port(srv))
	for _, call := range []time.Duration{200 * time.Millisecond, 3 * time.Second, time.Minute} {
		t.Run(call.String(), func(t *testing.T) {
			deadline := time.Now().Add(call)
			var got time.Time
			s := &Session{}
			s.Start(t.Context(), deadline, nil, c, Limits{}, func(r *http.Request) func(int, *Error) {
				got, _ = r.Context().Deadline()
				return nil
			})
			t.Cleanup(s.Close)
			h, err := s.Send(req("GET", "http://127.0.0.1:"+port(srv)+"/"), nil)
			if err != nil {
				t.Fatal(err)
			}
			s.CloseHandle(h)
			if margin := deadline.Sub(got); margin < 50*time.Millisecond || margin > time.Second {
				t.Errorf("the request's deadline is %v before the call's, want 50ms to 1s", margin)
			}
		})
	}
}

// TestARequestsOwnTimeout: a request's "timeout" ends it (its headers,
// then its body) long before the call's deadline, with a message naming
// the request's timeout, and leaves the call its time: the session's next
// request is sent and answered. A timeout longer than the call's time
// left changes nothing: the margin before the call's deadline ends it,
// and the message says so.
func TestARequestsOwnTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fast":
			io.WriteString(w, "fast")
			return
		case "/slow-body":
			io.WriteString(w, "first")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for handlers
	c := newClient(t, nil, Config{}, "http://127.0.0.1:"+port(srv))
	base := "http://127.0.0.1:" + port(srv)
	timed := func(path string, ms int) []byte {
		return fmt.Appendf(nil, `{"url":%q,"timeout":%d}`, base+path, ms)
	}
	const own = "within the request's timeout of 100ms"

	s := session(t, c, Limits{}) // the call has 10 s
	if _, err := s.Send(timed("/slow-headers", 100), nil); err == nil || err.Code != abi.HTTPErrorTimeout ||
		err.Errno() != abi.ErrIO || !strings.Contains(err.Message, own) {
		t.Errorf("slow headers: %v, want timeout naming the request's timeout", err)
	}
	h, err := s.Send(timed("/slow-body", 100), nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	var got []byte
	for {
		n, err := s.Read(h, buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if err.Code != abi.HTTPErrorTimeout || !strings.Contains(err.Message, own) || string(got) != "first" {
				t.Errorf("slow body: read %q then %v, want first then a timeout naming the request's", got, err)
			}
			break
		}
		if n == 0 {
			t.Fatalf("slow body: ended after %q, want a timeout", got)
		}
	}
	if s.ctx.Err() != nil {
		t.Errorf("the call's context ended with the request's timeout: %v", context.Cause(s.ctx))
	}
	if status, body, err := get(t, s, base+"/fast"); err != nil || status != 200 || body != "fast" {
		t.Errorf("the next request of the call: %d %q %v, want 200 fast", status, body, err)
	}

	short := sessionFor(t, 300*time.Millisecond, c, Limits{})
	if _, err := short.Send(timed("/slow-headers", 60_000), nil); err == nil || err.Code != abi.HTTPErrorTimeout ||
		strings.Contains(err.Message, "request's timeout") || !strings.Contains(err.Message, "call's deadline") {
		t.Errorf("a timeout past the call's deadline: %v, want the call's timeout", err)
	}
}

func TestATimeoutOutOfRangeIsInvalid(t *testing.T) {
	c := newClient(t, nil, Config{}, "http://127.0.0.1:8089")
	s := session(t, c, Limits{})
	for _, tc := range []struct{ name, timeout, want string }{
		{"negative", `-1`, "from 1 to 3600000"},
		{"past an hour", `3600001`, "from 1 to 3600000"},
		{"a fraction", `1.5`, "timeout"},
		{"a string", `"300ms"`, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := `{"url":"http://127.0.0.1:8089/","timeout":` + tc.timeout + `}`
			if _, err := s.Send([]byte(js), nil); err == nil || err.Errno() != abi.ErrInvalid || !strings.Contains(err.Message, tc.want) {
				t.Errorf("Send(%s) = %v, want invalid saying %q", js, err, tc.want)
			}
		})
	}
}
