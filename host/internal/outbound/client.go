// Package outbound sends the HTTP requests guests make (abi/README.md
// §3.1): a [Client] per app settings holds the allowlist, the connection
// pool and the per-host bounds; a [Session] per guest call holds its open
// responses, its count of requests and its last error.
//
// What it guarantees, whatever the guest asks:
//
//   - Only listed origins are called ([allowlist.List.Allows]), the
//     request's and each redirect's (at most [abi.HTTPMaxRedirects]).
//   - The address actually dialled, after DNS, is public or itself listed
//     ([allowlist.List.AllowsAddress]): the check runs in the dialer, on
//     the resolved address, and again in the socket's Control hook, so
//     neither DNS rebinding nor a numeric host form reaches the host's
//     network. No proxy from the environment is used.
//   - TLS certificates are verified, against the system's authorities and
//     the app's caFile.
//   - The call's deadline bounds connecting, TLS, the headers and the body,
//     and a request's own timeout ([abi.HTTPRequest.Timeout]) sooner;
//     a session bounds its requests, the bytes of a response read whole
//     and those its open responses' heads hold together, and the client
//     the bytes of one response's head
//     ([abi.HTTPResponseHeaderMaxBytes]) and the requests in flight per
//     host.
//   - Authorization, Proxy-Authorization and Cookie do not follow a
//     redirect to another origin.
//
// The host never buffers a response body: the guest's reads copy from
// the connection into its memory.
package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/allowlist"
)

// Resolver looks up the addresses of a host name; *net.Resolver is one.
// Tests inject their own to point a name at 127.0.0.1.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config is what a [Client] is made from.
type Config struct {
	// Allow lists the origins and addresses guests may call; nil allows
	// none.
	Allow *allowlist.List
	// CAs is PEM certificate authorities trusted besides the system's
	// (outbound.caFile), nil for none.
	CAs []byte
	// MaxPerHost bounds the requests in flight to one host and port;
	// zero means no bound.
	MaxPerHost int
	// Resolver resolves host names; nil is net.DefaultResolver.
	Resolver Resolver
}

// Client sends the outbound requests of one app's settings. It is safe
// for concurrent use by many sessions.
type Client struct {
	allow      *allowlist.List
	resolver   Resolver
	maxPerHost int
	transport  *http.Transport
	http       *http.Client

	mu       sync.Mutex
	inFlight map[string]int // host:port -> requests holding a slot
}

// New returns a client for cfg, or an error when cfg.CAs holds no
// certificate.
func New(cfg Config) (*Client, error) {
	c := &Client{allow: cfg.Allow, resolver: cfg.Resolver, maxPerHost: cfg.MaxPerHost, inFlight: map[string]int{}}
	if c.allow == nil {
		c.allow = &allowlist.List{}
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cfg.CAs) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(cfg.CAs) {
			return nil, errors.New("the CA file holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	c.transport = &http.Transport{
		Proxy:                  nil, // never a proxy from the environment: it would dial for us
		DialContext:            c.dial,
		TLSClientConfig:        tlsConfig,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: abi.HTTPResponseHeaderMaxBytes,
	}
	c.http = &http.Client{Transport: c.transport, CheckRedirect: c.checkRedirect}
	return c, nil
}

// Close closes the client's idle connections; requests in flight finish.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// checkURL checks a request's URL: absolute, http or https, no user, a
// host that is not a numeric trick, and a listed origin. shown is the
// URL as its errors write it: the guest's own URL whole (credentials
// redacted), a redirect's without its path and query (the host logs and
// traces a redirect's error, and a service may echo the guest's tokens
// into its Location).
func (c *Client) checkURL(u *url.URL, shown string) *Error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return errorf(abi.HTTPErrorInvalid, "%s: want an absolute http:// or https:// URL", shown)
	case u.Host == "" || u.Hostname() == "":
		return errorf(abi.HTTPErrorInvalid, "%s: the URL names no host: a URL is never completed from the incoming request", shown)
	case u.User != nil:
		return errorf(abi.HTTPErrorInvalid, "%s: credentials in the URL; send an Authorization header instead", shown)
	}
	host, port, err := hostPort(u)
	if err != nil {
		return errorf(abi.HTTPErrorInvalid, "%s: %v", shown, err)
	}
	if _, err := netip.ParseAddr(host); err != nil && allowlist.NumericHost(host) {
		return errorf(abi.HTTPErrorNotAllowed, "%s: %q is a numeric host that is not an address in dotted-decimal form; write the address as 127.0.0.1 does", shown, host)
	}
	if !c.allow.Allows(u.Scheme, host, port) {
		return errorf(abi.HTTPErrorNotAllowed, "%s://%s is not in outbound.allowedHosts; add it there for the app to call it", u.Scheme, net.JoinHostPort(host, strconv.Itoa(int(port))))
	}
	return nil
}

// withoutPath is u as a redirect's errors show it: its scheme and host
// (and port, as written), without user, path, query or fragment.
func withoutPath(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}

// hostPort is the lower-case host of u, without brackets or a trailing
// dot, and its port (the scheme's default when it names none).
func hostPort(u *url.URL) (string, uint16, error) {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	p := u.Port()
	if p == "" {
		return host, allowlist.DefaultPort(u.Scheme), nil
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return "", 0, fmt.Errorf("port %q: want 1-65535", p)
	}
	return host, uint16(n), nil
}

// checkRedirect follows at most abi.HTTPMaxRedirects redirects, each to a
// listed origin, and drops credentials when the origin changes.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > abi.HTTPMaxRedirects {
		return errorf(abi.HTTPErrorRedirect, "%s: more than %d redirects", withoutPath(via[0].URL), abi.HTTPMaxRedirects)
	}
	if err := c.checkURL(req.URL, withoutPath(req.URL)); err != nil {
		err.Message = "redirected to " + err.Message
		return err
	}
	if origin(req.URL) != origin(via[0].URL) {
		for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
			req.Header.Del(h)
		}
	}
	return nil
}

// origin is u's scheme, host and port.
func origin(u *url.URL) string {
	host, port, _ := hostPort(u)
	return u.Scheme + "://" + net.JoinHostPort(host, strconv.Itoa(int(port)))
}

// dial connects to addr (host:port) once its addresses pass the
// allowlist's address check: a name resolving only to addresses that are
// not public and not listed is refused, naming them.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return nil, err
	}
	port := uint16(n)
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = c.resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, &Error{Code: abi.HTTPErrorConnect, Message: dnsMessage(addr, err), Cause: err}
	}
	var allowed []netip.Addr
	var refused []string
	for _, a := range addrs {
		if a = a.Unmap(); c.allow.AllowsAddress(a, port) {
			allowed = append(allowed, a)
		} else {
			refused = append(refused, a.String())
		}
	}
	d := net.Dialer{Control: c.control}
	var last error
	for i, a := range allowed {
		// Each address gets its share of the time left (at least
		// minDialShare), as net.Dialer does for a name: one that does not
		// answer must not use up the deadline of those after it.
		actx, cancel := ctx, context.CancelFunc(func() {})
		if dl, ok := ctx.Deadline(); ok && i < len(allowed)-1 {
			share := max(time.Until(dl)/time.Duration(len(allowed)-i), minDialShare)
			actx, cancel = context.WithTimeout(ctx, share)
		}
		conn, err := d.DialContext(actx, network, netip.AddrPortFrom(a, port).String())
		cancel()
		if err == nil {
			return conn, nil
		}
		last = err
	}
	if last != nil {
		return nil, last
	}
	if len(refused) > 0 {
		return nil, errorf(abi.HTTPErrorNotAllowed, "%s resolves to %s, which is not a public address and not listed in outbound.allowedHosts", host, strings.Join(refused, ", "))
	}
	return nil, errorf(abi.HTTPErrorConnect, "resolving the host of %s: it has no address; check the URL's host name", addr)
}

// minDialShare is the least time one of a name's addresses gets to
// answer before the next is tried.
const minDialShare = 2 * time.Second

// control checks the address a socket is about to connect to, the last
// line of defence should an address reach the dialer unchecked.
func (c *Client) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errorf(abi.HTTPErrorNotAllowed, "dialling %s: not an address", address)
	}
	if !c.allow.AllowsAddress(ap.Addr(), ap.Port()) {
		return errorf(abi.HTTPErrorNotAllowed, "%s is not a public address and not listed in outbound.allowedHosts", ap.Addr())
	}
	return nil
}

// acquire takes a slot for a request to hostport, or reports that
// MaxPerHost requests are in flight there. release gives it back.
func (c *Client) acquire(hostport string) (release func(), ok bool) {
	if c.maxPerHost <= 0 {
		return func() {}, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inFlight[hostport] >= c.maxPerHost {
		return nil, false
	}
	c.inFlight[hostport]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.inFlight[hostport]--; c.inFlight[hostport] <= 0 {
				delete(c.inFlight, hostport)
			}
		})
	}, true
}
