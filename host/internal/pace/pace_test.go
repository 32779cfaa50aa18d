package pace_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/pace"
)

// bound is how long a test waits for what must happen, at most: a
// failure, not a measure.
const bound = 30 * time.Second

// events is the server side's log, in order.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, s)
}

func (e *events) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.log)
}

// server is a paced http.Server on loopback TCP whose handler logs each
// request's path and query and answers: /refuse a 429 the host marked
// (pace.Refused), /guest429 a 429 it did not, /close a marked 429 with
// Connection: close, /chunked a marked 429 of unknown length, anything
// else 200. The host's refusals declare their length, as these do.
type server struct {
	srv    *http.Server
	addr   string
	ev     *events
	closed chan string // a connection's remote address, when net/http closed it
}

func serve(t *testing.T, p *pace.Pacer, options ...func(*http.Server)) *server {
	t.Helper()
	s := &server{ev: &events{}, closed: make(chan string, 16)}
	s.srv = &http.Server{
		Handler: p.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.ev.add("read " + r.URL.RequestURI())
			switch r.URL.Path {
			case "/refuse", "/close", "/chunked":
				pace.Refused(r.Context())
				if r.URL.Path == "/close" {
					w.Header().Set("Connection", "close")
				}
				if r.URL.Path != "/chunked" {
					w.Header().Set("Content-Length", "2")
				}
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, "no")
			case "/guest429":
				w.Header().Set("Content-Length", "2")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, "no")
			}
		})),
		ConnContext: pace.ConnContext,
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateClosed {
				s.closed <- c.RemoteAddr().String()
			}
		},
	}
	s.srv.RegisterOnShutdown(p.Stop)
	for _, o := range options {
		o(s.srv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// client is one keep-alive connection to a server.
type client struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(bound))
	return &client{t, c, bufio.NewReader(c)}
}

// send writes a GET of target.
func (c *client) send(target string) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.conn, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", target); err != nil {
		c.t.Fatal(err)
	}
}

// status reads the next answer's status, or fails the test.
func (c *client) status() int {
	c.t.Helper()
	res, err := http.ReadResponse(c.r, nil)
	if err != nil {
		c.t.Fatalf("reading an answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// manualTimer is a timer a test ends: began receives each pause's
// length when it begins, and a pause ends when end is closed.
type manualTimer struct {
	began chan time.Duration
	end   chan time.Time
}

func newManualTimer(p *pace.Pacer) *manualTimer {
	m := &manualTimer{began: make(chan time.Duration, 16), end: make(chan time.Time)}
	p.SetTimer(func(d time.Duration) (<-chan time.Time, func() bool) {
		m.began <- d
		return m.end, func() bool { return true }
	})
	return m
}

func (m *manualTimer) waitBegan(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-m.began:
		return d
	case <-time.After(bound):
		t.Fatal("no pause began")
		return 0
	}
}

// TestNextRequestWaitsForThePause: the refusal is answered at once; the
// connection's next request is read only once the pause ends, while
// another connection is served meanwhile.
func TestNextRequestWaitsForThePause(t *testing.T) {
	p := pace.New(time.Hour, nil)
	m := newManualTimer(p)
	s := serve(t, p)
	a := dial(t, s.addr)
	a.send("/refuse")
	if got := a.status(); got != http.StatusTooManyRequests {
		t.Fatalf("the refusal: %d, want 429", got)
	}
	// The 429 was read before the pause could end: the test ends it.
	if d := m.waitBegan(t); d != time.Hour {
		t.Errorf("the pause: %s, want 1h", d)
	}
	a.send("/next")
	b := dial(t, s.addr)
	b.send("/other")
	if got := b.status(); got != http.StatusOK {
		t.Fatalf("another connection's request: %d, want 200", got)
	}
	s.ev.add("pause ends")
	close(m.end)
	if got := a.status(); got != http.StatusOK {
		t.Fatalf("the next request: %d, want 200", got)
	}
	want := []string{"read /refuse", "read /other", "pause ends", "read /next"}
	if got := s.ev.all(); !slices.Equal(got, want) {
		t.Errorf("the server's events %q, want %q", got, want)
	}
}

// TestShutdownEndsThePause: a server shutting down does not wait for a
// paused connection (an hour's pause, on a real timer), and does not read
// its next request.
func TestShutdownEndsThePause(t *testing.T) {
	p := pace.New(time.Hour, nil)
	began := realTimerTold(p)
	s := serve(t, p)
	a := dial(t, s.addr)
	a.send("/refuse")
	if got := a.status(); got != http.StatusTooManyRequests {
		t.Fatalf("the refusal: %d, want 429", got)
	}
	a.send("/next")
	waitFor(t, began, "no pause began")
	ctx, cancel := context.WithTimeout(t.Context(), bound)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v, want it to end the pause", err)
	}
	if _, err := http.ReadResponse(a.r, nil); err == nil {
		t.Error("the next request was answered; want the connection closed unanswered")
	}
	if got, want := s.ev.all(), []string{"read /refuse"}; !slices.Equal(got, want) {
		t.Errorf("the server's events %q, want %q", got, want)
	}
}

// realTimerTold makes p's pauses wait on real timers, and returns the
// channel that says a pause began.
func realTimerTold(p *pace.Pacer) <-chan struct{} {
	began := make(chan struct{}, 16)
	p.SetTimer(func(d time.Duration) (<-chan time.Time, func() bool) {
		began <- struct{}{}
		tm := time.NewTimer(d)
		return tm.C, tm.Stop
	})
	return began
}

// waitFor waits for ch, or fails the test with msg.
func waitFor(t *testing.T, ch <-chan struct{}, msg string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(bound):
		t.Fatal(msg)
	}
}

// TestClosedConnectionEndsThePause: when the client closes a paused
// connection, the pause (an hour's) ends and net/http lets it go.
func TestClosedConnectionEndsThePause(t *testing.T) {
	p := pace.New(time.Hour, nil)
	began := realTimerTold(p)
	s := serve(t, p)
	a := dial(t, s.addr)
	a.send("/refuse")
	if got := a.status(); got != http.StatusTooManyRequests {
		t.Fatalf("the refusal: %d, want 429", got)
	}
	waitFor(t, began, "no pause began")
	local := a.conn.LocalAddr().String()
	a.conn.Close()
	for {
		select {
		case c := <-s.closed:
			if c == local {
				return
			}
		case <-time.After(bound):
			t.Fatal("the paused connection was not let go once its client closed it")
		}
	}
}

// TestWhatIsPaced: which answers pause their connection. A pause that
// should not begin fails the test at once (its timer ends it); one that
// should is seen beginning, then ended.
func TestWhatIsPaced(t *testing.T) {
	loopback := func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") }
	for _, tt := range []struct {
		name    string
		pause   time.Duration
		trusted func(netip.Addr) bool
		target  string
		status  int
		paced   bool
	}{
		{"a refusal the host marked", time.Hour, nil, "/refuse", 429, true},
		{"a refusal, other proxies trusted", time.Hour, func(netip.Addr) bool { return false }, "/refuse", 429, true},
		{"a trusted proxy's connection", time.Hour, loopback, "/refuse", 429, false},
		{"a guest's own 429", time.Hour, nil, "/guest429", 429, false},
		{"an answer", time.Hour, nil, "/ok", 200, false},
		{"a pause of 0: off", 0, nil, "/refuse", 429, false},
		{"a refusal that closes its connection", time.Hour, nil, "/close", 429, false},
		{"a refusal of unknown length", time.Hour, nil, "/chunked", 429, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := pace.New(tt.pause, tt.trusted)
			began := make(chan struct{}, 1)
			end := make(chan time.Time)
			p.SetTimer(func(time.Duration) (<-chan time.Time, func() bool) {
				began <- struct{}{}
				if !tt.paced {
					t.Error("a pause began")
					close(end)
				}
				return end, func() bool { return true }
			})
			s := serve(t, p)
			a := dial(t, s.addr)
			a.send(tt.target)
			if got := a.status(); got != tt.status {
				t.Fatalf("status %d, want %d", got, tt.status)
			}
			if tt.paced {
				select {
				case <-began:
				case <-time.After(bound):
					t.Fatal("no pause began")
				}
				close(end)
			}
			if tt.target == "/close" {
				return
			}
			a.send("/next")
			if got := a.status(); got != http.StatusOK {
				t.Fatalf("the next request: %d, want 200", got)
			}
			if !strings.HasPrefix(strings.Join(s.ev.all(), ","), "read "+tt.target+",read /next") {
				t.Errorf("the server's events %q", s.ev.all())
			}
		})
	}
}

// TestHTTP2IsNotPaced: an HTTP/2 connection's streams are other requests
// (another client's, behind a proxy), so a refusal on one pauses nothing.
func TestHTTP2IsNotPaced(t *testing.T) {
	p := pace.New(time.Hour, nil)
	p.SetTimer(func(time.Duration) (<-chan time.Time, func() bool) {
		t.Error("a pause began on HTTP/2")
		ch := make(chan time.Time)
		close(ch)
		return ch, func() bool { return true }
	})
	s := serve(t, p, func(srv *http.Server) {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
	})
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: bound}
	for _, target := range []string{"/refuse", "/refuse", "/next"} {
		res, err := client.Get("http://" + s.addr + target)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.ProtoMajor != 2 {
			t.Fatalf("%s over HTTP/%d, want HTTP/2", target, res.ProtoMajor)
		}
	}
	if got, want := s.ev.all(), []string{"read /refuse", "read /refuse", "read /next"}; !slices.Equal(got, want) {
		t.Errorf("the server's events %q, want %q", got, want)
	}
}
