package outbound

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestErrorsSayWhatFailedWhereAndWhatToDo: the message a guest reads
// with http_error (and logs) names what failed, the host and port, and
// what to do, in words of its own rather than Go's ("Get \"url\": dial
// tcp ...: connect: connection refused"); the code stays the one
// abi/README.md §3.1 lists, and the Go error stays the error's cause
// (for the host's debug log).
func TestErrorsSayWhatFailedWhereAndWhatToDo(t *testing.T) {
	// A port nothing listens on: a listener opened, then closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	ca := newTestCA(t, "api.test", "127.0.0.1")
	tlsSrv := tlsServer(t, ca, http.HandlerFunc(hello))
	tlsPort := port(tlsSrv)
	plain := server(t, hello)
	plainPort := port(plain)
	broken := server(t, func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		conn.Write([]byte("this is not HTTP\r\n\r\n"))
		conn.Close()
	})
	brokenPort := port(broken)
	release := make(chan struct{})
	slow := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	slowPort := port(slow)
	large := server(t, func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 4096)) })
	largePort := port(large)

	n := names{"api.test": {"127.0.0.1"}, "wrong.test": {"127.0.0.1"}}
	c := newClient(t, n, Config{}, "http://"+closed, "http://nowhere.test", "https://api.test:"+tlsPort, "https://127.0.0.1:"+tlsPort,
		"https://127.0.0.1:"+plainPort, "http://127.0.0.1:"+brokenPort, "http://127.0.0.1:"+slowPort, "http://127.0.0.1:"+largePort)
	withCA := newClient(t, n, Config{CAs: ca.pem}, "https://wrong.test:"+tlsPort, "https://127.0.0.1:"+tlsPort)

	tests := []struct {
		name     string
		client   *Client
		call     time.Duration
		limits   Limits
		url      string
		code     string
		where    string
		says     []string
		wantGoIn bool // the cause keeps Go's error
	}{
		{name: "connection refused", url: "http://" + closed + "/", code: abi.HTTPErrorConnect, where: closed,
			says: []string{"refused", "nothing listens"}, wantGoIn: true},
		{name: "a name that does not resolve", url: "http://nowhere.test/", code: abi.HTTPErrorConnect, where: "nowhere.test:80",
			says: []string{"no such host", "host name"}, wantGoIn: true},
		{name: "an authority not trusted", url: "https://api.test:" + tlsPort + "/", code: abi.HTTPErrorTLS, where: "api.test:" + tlsPort,
			says: []string{"authority", "outbound.caFile"}, wantGoIn: true},
		{name: "a certificate of other names", client: withCA, url: "https://wrong.test:" + tlsPort + "/", code: abi.HTTPErrorTLS,
			where: "wrong.test:" + tlsPort, says: []string{"certificate", "not for wrong.test"}, wantGoIn: true},
		{name: "https to a server that does not speak TLS", url: "https://127.0.0.1:" + plainPort + "/", code: abi.HTTPErrorTLS,
			where: "127.0.0.1:" + plainPort, says: []string{"does not speak TLS", "http://"}, wantGoIn: true},
		{name: "a server that breaks HTTP", url: "http://127.0.0.1:" + brokenPort + "/", code: abi.HTTPErrorProtocol,
			where: "127.0.0.1:" + brokenPort, says: []string{"HTTP"}, wantGoIn: true},
		{name: "a server that does not answer in time", call: time.Second, url: "http://127.0.0.1:" + slowPort + "/", code: abi.HTTPErrorTimeout,
			where: "127.0.0.1:" + slowPort, says: []string{"did not answer in time", "timeout"}, wantGoIn: true},
		{name: "an answer too large", limits: Limits{Bytes: 1024}, url: "http://127.0.0.1:" + largePort + "/", code: abi.HTTPErrorLimit,
			where: "127.0.0.1:" + largePort, says: []string{"larger than 1024 bytes", "limits.outboundBytes", "stream"}},
		{name: "a host not allowed", url: "http://elsewhere.test:8080/", code: abi.HTTPErrorNotAllowed,
			where: "elsewhere.test:8080", says: []string{"outbound.allowedHosts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := tt.client
			if cl == nil {
				cl = c
			}
			d := tt.call
			if d == 0 {
				d = 10 * time.Second
			}
			_, _, e := get(t, sessionFor(t, d, cl, tt.limits), tt.url)
			if e == nil {
				t.Fatal("the request succeeded")
			}
			t.Logf("%s", e.JSON())
			if e.Code != tt.code {
				t.Errorf("code %q (%s), want %q", e.Code, e.Message, tt.code)
			}
			if !strings.Contains(e.Message, tt.where) {
				t.Errorf("message %q does not name %s", e.Message, tt.where)
			}
			for _, s := range tt.says {
				if !strings.Contains(e.Message, s) {
					t.Errorf("message %q does not say %q", e.Message, s)
				}
			}
			for _, goText := range []string{`Get "`, "dial tcp", "x509:", "tls:", "net/http:", "context deadline exceeded", "lookup "} {
				if strings.Contains(e.Message, goText) {
					t.Errorf("message %q carries Go's %q", e.Message, goText)
				}
			}
			if cause := errors.Unwrap(e); (cause != nil) != tt.wantGoIn {
				t.Errorf("cause %v, want one: %v", cause, tt.wantGoIn)
			}
		})
	}
}
