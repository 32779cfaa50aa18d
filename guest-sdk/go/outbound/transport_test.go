//go:build !wasip1

package outbound

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/httphost"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/httphost/httphosttest"
)

func withFake(t *testing.T, f *httphosttest.Host) *http.Client {
	httphosttest.Install(t, f)
	return &http.Client{Transport: Transport{}}
}

func TestTransportSendsThroughTheHost(t *testing.T) {
	f := &httphosttest.Host{
		Head: `{"status":201,"headers":[["content-type","application/json"],["content-length","11"],["x-a","1"],["x-a","2"]]}`,
		Body: `{"id":"c1"}`,
	}
	client := withFake(t, f)
	req, _ := http.NewRequest("POST", "https://api.example.com/v1/charges?x=1", strings.NewReader(`{"amount":5}`))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != `{"id":"c1"}` || resp.StatusCode != 201 || resp.Status != "201 Created" ||
		resp.ContentLength != 11 || strings.Join(resp.Header.Values("X-A"), ",") != "1,2" {
		t.Errorf("got %d %q %q %d %v, %v", resp.StatusCode, resp.Status, b, resp.ContentLength, resp.Header, err)
	}
	if want := `"method":"POST","url":"https://api.example.com/v1/charges?x=1"`; !strings.Contains(f.Sent, want) ||
		!strings.Contains(f.Sent, `["Authorization","Bearer k"]`) || strings.Contains(f.Sent, "stream") || f.SentBody != `{"amount":5}` {
		t.Errorf("sent %s with %q", f.Sent, f.SentBody)
	}
	if f.Closed != 1 || f.ReadsAfterEnd != 1 {
		t.Errorf("closed %d times, read %d times past the end; want 1 and 1", f.Closed, f.ReadsAfterEnd)
	}

	f.Head, f.Body = `{"status":200,"headers":[]}`, ""
	if _, err := client.Get("https://ada:pw@api.example.com/me"); err != nil || !strings.Contains(f.Sent, `"url":"https://api.example.com/me"`) ||
		!strings.Contains(f.Sent, `["Authorization","Basic YWRhOnB3"]`) {
		t.Errorf("a URL with credentials: sent %s, %v", f.Sent, err)
	}

	f.Head, f.Body = `{"status":200,"headers":[]}`, "x"
	req, _ = http.NewRequest("GET", "https://api.example.com/big", nil)
	if _, err := client.Do(Stream(req)); err != nil || !strings.Contains(f.Sent, `"stream":true`) {
		t.Errorf("Stream: sent %s, %v", f.Sent, err)
	}
}

func TestTransportErrorsCarryTheHostsReason(t *testing.T) {
	f := &httphosttest.Host{Errno: abi.ErrNotAllowed, ErrJSON: `{"code":"not_allowed","message":"https://evil.example:443 is not in outbound.allowedHosts"}`}
	client := withFake(t, f)
	_, err := client.Get("https://evil.example/")
	var e *Error
	if !errors.As(err, &e) || e.Code != abi.HTTPErrorNotAllowed || !errors.Is(err, abi.ErrNotAllowed) ||
		!strings.Contains(err.Error(), "is not in outbound.allowedHosts") {
		t.Errorf("got %v, want an *Error not_allowed", err)
	}
	httphost.Fake = nil // natively, without a fake, net/http sends it
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	srv.Close()
	if _, err := client.Get(srv.URL); !errors.As(err, &e) || !errors.Is(err, abi.ErrIO) || e.Code != abi.HTTPErrorConnect {
		t.Errorf("a closed server: %v, want an *Error io connect", err)
	}
}

// TestNativeDefaultTransport: natively, a test may install Transport as
// http.DefaultTransport, as a module's import does; the stand-in host
// then sends with its own transport, not back through Transport.
func TestNativeDefaultTransport(t *testing.T) {
	old := http.DefaultTransport
	http.DefaultTransport = Transport{}
	t.Cleanup(func() { http.DefaultTransport = old })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "ok" {
		t.Errorf("got %q, %v; want ok", b, err)
	}
}
