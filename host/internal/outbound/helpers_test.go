package outbound

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/allowlist"
)

// names is a test resolver: host names to the addresses it gives.
type names map[string][]string

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	as, ok := n[strings.TrimSuffix(strings.ToLower(host), ".")]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(as))
	for i, a := range as {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

// newClient is a client allowing entries, resolving with n.
func newClient(t testing.TB, n names, cfg Config, entries ...string) *Client {
	t.Helper()
	l, err := allowlist.Parse(entries)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Allow, cfg.Resolver = l, n
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// session is a started session of c with limits, whose call has 10 s.
func session(t *testing.T, c *Client, l Limits) *Session {
	return sessionFor(t, 10*time.Second, c, l)
}

// sessionFor is a started session of c with limits, whose call has d.
func sessionFor(t *testing.T, d time.Duration, c *Client, l Limits) *Session {
	s := &Session{}
	s.Start(t.Context(), time.Now().Add(d), nil, c, l, nil)
	t.Cleanup(s.Close)
	return s
}

// req is http_send's JSON for a request.
func req(method, url string, headers ...[2]string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"method":%q,"url":%q,"headers":[`, method, url)
	for i, h := range headers {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%q,%q]", h[0], h[1])
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// get sends a GET and reads the whole answer: the status and body, or the
// error's code.
func get(t *testing.T, s *Session, url string, headers ...[2]string) (int, string, *Error) {
	t.Helper()
	h, err := s.Send(req("GET", url, headers...), nil)
	if err != nil {
		return 0, "", err
	}
	head, _ := s.Response(h)
	var status int
	fmt.Sscanf(string(head), `{"status":%d`, &status)
	var body []byte
	buf := make([]byte, 4096)
	for {
		n, err := s.Read(h, buf)
		if err != nil {
			return status, string(body), err
		}
		if n == 0 {
			break
		}
		body = append(body, buf[:n]...)
	}
	s.CloseHandle(h)
	return status, string(body), nil
}

// port is the port of a test server.
func port(srv *httptest.Server) string {
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return p
}

// testCA is a certificate authority and a server certificate it signed
// for the names and addresses given.
type testCA struct {
	pem  []byte
	cert tls.Certificate
}

func newTestCA(t *testing.T, hosts ...string) testCA {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "endpoints test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{
		pem:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		cert: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
	}
}

// tlsServer starts a TLS test server with ca's server certificate.
func tlsServer(t *testing.T, ca testCA, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// server starts a plain test server.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// hello answers "hello" with the request's Authorization echoed in a
// header.
func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Authorization", r.Header.Get("Authorization"))
	w.Header().Set("X-Cookie", r.Header.Get("Cookie"))
	io.WriteString(w, "hello")
}
