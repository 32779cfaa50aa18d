//go:build !wasip1

package fetch

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/httphost/httphosttest"
)

func TestSendReadsTheWholeResponse(t *testing.T) {
	tests := []struct {
		name       string
		req        Request
		head, body string
		wantSent   []string // parts of the http_send JSON
		notSent    string
		wantBody   string
	}{
		{
			name: "a POST with headers and a body",
			req: Request{Method: "POST", URL: "https://api.example.com/v1/charges?x=1",
				Header: Header{"Authorization": {"Bearer k"}}, Body: []byte(`{"amount":5}`)},
			head:     `{"status":201,"headers":[["content-type","application/json"],["content-length","11"],["x-a","1"],["x-a","2"]]}`,
			body:     `{"id":"c1"}`,
			wantSent: []string{`"method":"POST"`, `"url":"https://api.example.com/v1/charges?x=1"`, `["Authorization","Bearer k"]`},
			notSent:  "stream",
			wantBody: `{"id":"c1"}`,
		},
		{
			name:     "no method is GET; a Content-Length smaller than the body",
			req:      Request{URL: "https://api.example.com/me"},
			head:     `{"status":200,"headers":[["content-length","1"]]}`,
			body:     "hello",
			wantSent: []string{`"method":"GET"`},
			wantBody: "hello",
		},
		{
			name:     "a streamed request, an empty body",
			req:      Request{URL: "https://api.example.com/big", Stream: true},
			head:     `{"status":204,"headers":[]}`,
			wantSent: []string{`"stream":true`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := httphosttest.Install(t, &httphosttest.Host{Head: tt.head, Body: tt.body})
			res, err := Send(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Body) != tt.wantBody {
				t.Errorf("body %q, want %q", res.Body, tt.wantBody)
			}
			for _, w := range tt.wantSent {
				if !strings.Contains(f.Sent, w) {
					t.Errorf("sent %s, want %s in it", f.Sent, w)
				}
			}
			if tt.notSent != "" && strings.Contains(f.Sent, tt.notSent) {
				t.Errorf("sent %s, want no %s", f.Sent, tt.notSent)
			}
			if f.SentBody != string(tt.req.Body) {
				t.Errorf("sent body %q, want %q", f.SentBody, tt.req.Body)
			}
			if f.Closed != 1 || f.ReadsAfterEnd != 1 {
				t.Errorf("closed %d times, read %d times past the end; want 1 and 1", f.Closed, f.ReadsAfterEnd)
			}
		})
	}

	f := httphosttest.Install(t, &httphosttest.Host{Head: tests[0].head, Body: tests[0].body})
	res, err := Send(tests[0].req)
	if err != nil || res.StatusCode != 201 || strings.Join(res.Header.Values("X-A"), ",") != "1,2" ||
		res.Header.Get("Content-Type") != "application/json" || f.Closed != 1 {
		t.Errorf("got %+v, %v; want 201, X-A 1 and 2, a JSON content type", res, err)
	}
}

func TestErrorsCarryTheHostsReason(t *testing.T) {
	tests := []struct {
		name      string
		host      *httphosttest.Host
		wantErrno abi.Errno
		wantCode  string
		wantText  string
	}{
		{
			name: "refused",
			host: &httphosttest.Host{Errno: abi.ErrNotAllowed,
				ErrJSON: `{"code":"not_allowed","message":"https://evil.example:443 is not in outbound.allowedHosts"}`},
			wantErrno: abi.ErrNotAllowed, wantCode: abi.HTTPErrorNotAllowed, wantText: "is not in outbound.allowedHosts",
		},
		{
			name: "past limits.outboundBytes while reading",
			host: &httphosttest.Host{Head: `{"status":200,"headers":[]}`, Body: "abc", BodyErrno: abi.ErrLimit,
				ErrJSON: `{"code":"limit","message":"the response body passed limits.outboundBytes (16777216)"}`},
			wantErrno: abi.ErrLimit, wantCode: "limit", wantText: "limits.outboundBytes",
		},
		{
			name:      "a failure the host does not explain",
			host:      &httphosttest.Host{Errno: abi.ErrIO},
			wantErrno: abi.ErrIO, wantText: "outbound request: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			httphosttest.Install(t, tt.host)
			_, err := Send(Request{URL: "https://evil.example/"})
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.wantCode || !errors.Is(err, tt.wantErrno) ||
				!strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("got %v, want an *Error %v %q saying %q", err, tt.wantErrno, tt.wantCode, tt.wantText)
			}
			if tt.host.Errno == 0 && tt.host.Closed != 1 {
				t.Errorf("closed %d times, want 1", tt.host.Closed)
			}
		})
	}

	httphosttest.Install(t, &httphosttest.Host{Head: `not json`})
	if _, err := Send(Request{URL: "https://api.example.com/"}); err == nil || !strings.Contains(err.Error(), "response head") {
		t.Errorf("a malformed head: %v, want an error about the response head", err)
	}
}

func TestNativeBuildsSendWithNetHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Add("X-Got", r.Method+" "+r.Header.Get("X-Key")+" "+string(b))
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, strings.Repeat("x", 5000))
	}))
	defer srv.Close()
	res, err := Send(Request{Method: "PUT", URL: srv.URL + "/a", Header: Header{"X-Key": {"k"}}, Body: []byte("hi")})
	if err != nil || res.StatusCode != 202 || res.Header.Get("X-Got") != "PUT k hi" || string(res.Body) != strings.Repeat("x", 5000) {
		t.Fatalf("got %+v, %v; want 202, X-Got PUT k hi, 5000 x", res, err)
	}

	srv.Close()
	_, err = Send(Request{URL: srv.URL + "/a"})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, abi.ErrIO) || e.Code != abi.HTTPErrorConnect {
		t.Errorf("a closed server: %v, want an *Error io connect", err)
	}
	if _, err := Send(Request{Method: "BAD METHOD", URL: srv.URL}); !errors.Is(err, abi.ErrInvalid) {
		t.Errorf("a bad method: %v, want an *Error invalid", err)
	}
}

func TestOpenReadsAsTheBodyComes(t *testing.T) {
	f := httphosttest.Install(t, &httphosttest.Host{Head: `{"status":200,"headers":[["x-b","y"]]}`, Body: "abcdef"})
	r, err := Open(Request{URL: "https://api.example.com/download", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != 200 || r.Header.Get("x-b") != "y" {
		t.Errorf("got %d %v, want 200 and X-B", r.StatusCode, r.Header)
	}
	buf := make([]byte, 10)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "ab" || f.Body != "cdef" {
		t.Errorf("first read %q, %v, left %q; want ab, the rest left on the host", buf[:n], err, f.Body)
	}
	r.Close()
	r.Close()
	if f.Closed != 1 {
		t.Errorf("closed %d times, want 1", f.Closed)
	}

	f = httphosttest.Install(t, &httphosttest.Host{Head: `{"status":200,"headers":[]}`, Body: "abcde"})
	r, err = Open(Request{URL: "https://api.example.com/download"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "abcde" || f.Closed != 1 {
		t.Errorf("read %q, %v, closed %d times; want abcde, closed once at the end", b, err, f.Closed)
	}
	if n, err := r.Read(buf); n != 0 || err != io.EOF || f.ReadsAfterEnd != 1 {
		t.Errorf("a read past the end: %d, %v, %d reads of the host past it; want io.EOF, not asked again", n, err, f.ReadsAfterEnd)
	}
}

func TestCanonicalNameIsNetHTTPs(t *testing.T) {
	for _, name := range []string{
		"", "content-type", "CONTENT-TYPE", "Content-Type", "x-a", "X-A", "www-authenticate", "a--b", "-x", "x-",
		"etag", "Webhook-Signature", "user agent", "ümlaut", "x_y", "x.y", "1-a", "a:b", "tab\tname",
	} {
		if got, want := CanonicalName(name), textproto.CanonicalMIMEHeaderKey(name); got != want {
			t.Errorf("CanonicalName(%q) = %q, want %q as net/textproto", name, got, want)
		}
	}
	h := Header{}
	h.Add("x-a", "1")
	h.Add("X-A", "2")
	h.Set("content-type", "text/plain")
	h.Del("CONTENT-TYPE")
	if got := strings.Join(h.Values("x-A"), ","); got != "1,2" || len(h) != 1 || h.Get("Content-Type") != "" {
		t.Errorf("header %v, want X-A: 1, 2 only", h)
	}
}
