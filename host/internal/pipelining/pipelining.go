// Package pipelining closes the connection of a client that pipelines
// (HTTP/1.1: sends a request before it has the answer to the previous
// one, RFC 9112 §9.3.2) after the answer to the request it pipelined, so
// that one client's backlog cannot keep the server from the others.
//
// Why: net/http serves a connection's requests one after the other on
// one goroutine, and reads the next as soon as an answer is written.
// When the next request is already there, that goroutine never waits
// for the network, and the Go scheduler looks for connections that
// became readable only when no goroutine is runnable, or every 10 ms.
// So a few connections that pipeline at full speed keep the other
// clients' requests waiting tens of milliseconds each
// (BenchmarkJunkKeyFlood, package host: the good requests' median went
// from about 2 ms under the same flood unpipelined to 75-90 ms). A client
// whose connection is closed dials again, which goes through the
// network poller like everyone else's request; RFC 9112 §9.3.2 tells
// clients that pipeline to retry what a closed connection left
// unanswered.
//
// What counts as pipelined: when the host starts on a request, its
// connection already holds more bytes than what is left of the
// request's body (Content-Length), so the next request has come; or,
// for a body of unknown length (chunked), the connection holds bytes once
// the request is answered, in which case the next request (the one
// already there) is answered with Connection: close. The bytes counted
// are those the kernel holds for the socket (SIOCINQ); net/http may have
// read up to 4 KiB further, so a pipeline short enough to fit its buffer
// is served as it is, and it cannot hold a goroutine longer than that.
//
// It applies to HTTP/1 over TCP (and Unix sockets) on Linux; other
// platforms, TLS connections (whose records the kernel counts, not the
// requests) and HTTP/2 are served as net/http serves them, and so are
// connections from the addresses Handler is told to exempt (the host's
// trusted proxies).
package pipelining

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"syscall"
)

// connKey is the context key of a connection's *conn.
type connKey struct{}

// conn is what Handler knows of a connection: the socket it asks how
// many bytes wait, and whether the previous request (of a body of
// unknown length) left the next one waiting. net/http serves an HTTP/1
// connection's requests one at a time on one goroutine, so its fields
// need no lock.
type conn struct {
	raw  syscall.RawConn
	peer netip.Addr // the client's address, unmapped; zero when unknown
	// inq is the method value of waiting's control function, made once
	// so that a request allocates nothing.
	inq       func(fd uintptr)
	n         int // the last count inq made, or -1
	closeNext bool
}

// ConnContext is an [http.Server] ConnContext: it keeps, in the
// connection's context, what [Handler] needs of the connection. A
// connection without a socket of its own (TLS, a pipe) gets nothing, and
// Handler leaves its requests alone.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return ctx
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return ctx
	}
	st := &conn{raw: raw}
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		st.peer = a.AddrPort().Addr().Unmap()
	}
	st.inq = st.count
	return context.WithValue(ctx, connKey{}, st)
}

// Handler serves each request with next, and answers with Connection:
// close (net/http then closes the connection after the answer) a request
// its client pipelined, as the package says. It needs the server's
// ConnContext to be [ConnContext]; without it, it only calls next.
// A connection from an address exempt reports true for (a trusted proxy,
// which does not pipeline, and whose connection carries many clients'
// requests) is served as net/http serves it, without the system call a
// request the check costs; exempt may be nil.
//
//	srv := &http.Server{Handler: pipelining.Handler(h, nil), ConnContext: pipelining.ConnContext}
func Handler(next http.Handler, exempt func(netip.Addr) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(*conn)
		if c == nil || r.ProtoMajor != 1 || exempt != nil && c.peer.IsValid() && exempt(c.peer) {
			next.ServeHTTP(w, r)
			return
		}
		pipelined := c.closeNext
		c.closeNext = false
		if !pipelined && r.ContentLength >= 0 {
			pipelined = c.waiting() > r.ContentLength
		}
		if pipelined {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
		if !pipelined && r.ContentLength < 0 {
			// A body of unknown length: what waits once the request is
			// answered is the next request, or the rest of a body the
			// handler did not read, which net/http reads and drops; in
			// either case the next request closes the connection.
			c.closeNext = c.waiting() > 0
		}
	})
}

// waiting is how many bytes the kernel holds for the connection's
// socket, or -1 when it cannot tell.
func (c *conn) waiting() int64 {
	c.n = -1
	if c.raw.Control(c.inq) != nil {
		return -1
	}
	return int64(c.n)
}
