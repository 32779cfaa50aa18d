// Package pace holds back the next request of an HTTP/1 connection whose
// request the host refused for abuse (a rate limit's 429, the per-client
// Idempotency-Key quota's, the failed-authentication budget's):
// server.refusalPause. The refusal itself is written and flushed at once;
// then the connection's goroutine waits the pause before it returns to
// net/http, which reads the connection's next request only then. So a
// client that keeps sending on one keep-alive connection what the host
// keeps refusing is served at most once a pause on it, whatever its
// speed, while the refusal costs a well-behaved client nothing (it should
// wait Retry-After anyway).
//
// Why: a refusal is cheap, but not free. Under a flood at full speed on a
// few connections, the server's core is busy reading the junk requests
// (net/http parsing 16 KB of header fields, the garbage it makes) and the
// good clients' requests wait behind them, however fast the host refuses
// (BenchmarkJunkKeyFlood, package host). Pausing the connection bounds
// what each connection can make the server read; it closes nothing (the
// client would dial again at once) and counts no connections per address
// (which a client behind a NAT shares with its neighbours).
//
// What is not paced: HTTP/2 (a connection's streams are other requests,
// some of them another client's behind a proxy); a connection from a
// trusted proxy (it carries many clients' requests: rate-limit at the
// proxy too); an answer that closes its connection (Connection: close);
// an answer without Content-Length (flushed, it would go on until the
// handler returns: the host's refusals all declare their length); a
// refusal the host did not mark (a guest's own 429, a 4xx of
// validation). A pause ends early when the request's context ends (the
// client closed the connection) and when the server shuts down
// ([Pacer.Stop], which Host.HTTPServer registers with RegisterOnShutdown):
// it never delays a shutdown. It runs outside the host's handler, so the
// host does not count a paused connection as a request in flight.
//
// What it does not bound: a client with many connections, which gets a
// request served per pause on each (rate-limit by address at the edge,
// and bound connections there).
package pace

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// connKey is the context key of a connection's *conn.
type connKey struct{}

// conn is what the pacer knows of a connection: its peer's address, and
// whether the host refused the request it serves now.
type conn struct {
	peer netip.Addr // invalid when the peer has no IP address (a Unix socket)
	// refused is set by [Refused], from the handler's goroutine (or, on
	// HTTP/2, which is never paced, from any stream's), hence atomic.
	refused atomic.Bool
}

// ConnContext is an [http.Server] ConnContext: it keeps, in the
// connection's context, the state [Pacer.Handler] and [Refused] share.
// Without it, Refused marks nothing and nothing is paced.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	st := &conn{}
	switch a := c.RemoteAddr().(type) {
	case *net.TCPAddr:
		st.peer = a.AddrPort().Addr().Unmap()
	case nil:
	default:
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			st.peer = ap.Addr().Unmap()
		}
	}
	return context.WithValue(ctx, connKey{}, st)
}

// Refused marks the request of ctx as refused for abuse: the host calls
// it where it answers 429 for a rate limit, the per-client
// Idempotency-Key quota or the failed-authentication budget. A context
// of a server without [ConnContext] holds nothing to mark, and Refused
// does nothing.
func Refused(ctx context.Context) {
	if c, _ := ctx.Value(connKey{}).(*conn); c != nil {
		c.refused.Store(true)
	}
}

// Pacer pauses connections after refusals, as the package says. Make one
// with [New] per http.Server.
type Pacer struct {
	pause   time.Duration
	trusted func(netip.Addr) bool
	stopped chan struct{}
	stop    sync.Once
	// timer starts a pause of d: the channel that says it ended, and the
	// function that releases it early (time.NewTimer's, replaced in
	// tests).
	timer func(d time.Duration) (<-chan time.Time, func() bool)
}

// New returns a Pacer that pauses a connection for pause after each
// refusal, unless trusted (which may be nil: none is) reports its peer's
// address is a trusted proxy's. trusted is asked at each refusal, so it
// may follow a configuration that reloads.
func New(pause time.Duration, trusted func(netip.Addr) bool) *Pacer {
	return &Pacer{pause: pause, trusted: trusted, stopped: make(chan struct{}), timer: func(d time.Duration) (<-chan time.Time, func() bool) {
		t := time.NewTimer(d)
		return t.C, t.Stop
	}}
}

// Stop ends every pause in progress and every later one at once: the
// server is shutting down. It may be called more than once.
//
//	srv.RegisterOnShutdown(p.Stop)
func (p *Pacer) Stop() { p.stop.Do(func() { close(p.stopped) }) }

// Handler serves each request with next and, when the host marked it
// refused ([Refused]), flushes the answer and pauses before it returns,
// as the package says. It needs the server's ConnContext to be
// [ConnContext]; without it, it only calls next.
//
//	srv := &http.Server{Handler: p.Handler(h), ConnContext: pace.ConnContext}
func (p *Pacer) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(*conn)
		if c == nil || r.ProtoMajor != 1 {
			next.ServeHTTP(w, r)
			return
		}
		c.refused.Store(false)
		next.ServeHTTP(w, r)
		h := w.Header()
		if !c.refused.Load() || p.pause <= 0 || r.Close || closes(h) || h.Get("Content-Length") == "" {
			return
		}
		if p.trusted != nil && c.peer.IsValid() && p.trusted(c.peer) {
			return
		}
		// The refusal goes out now; only the next request waits. A
		// flush also makes net/http read what is left of the body, so
		// that it notices when the client closes the connection (and
		// ends r's context).
		if http.NewResponseController(w).Flush() != nil {
			return
		}
		done, release := p.timer(p.pause)
		select {
		case <-done:
		case <-r.Context().Done():
			release()
		case <-p.stopped:
			release()
		}
	})
}

// closes reports whether an answer's header fields close its connection.
func closes(h http.Header) bool {
	for _, v := range h.Values("Connection") {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "close") {
				return true
			}
		}
	}
	return false
}
