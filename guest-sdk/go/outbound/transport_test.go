//go:build !wasip1

package outbound

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// fakeHost serves one response, or fails http_send with errno.
type fakeHost struct {
	sent          string // the last http_send JSON
	sentBody      string
	head          string
	body          string
	errno         abi.Errno
	errJSON       string
	closed        int
	readsAfterEnd int
}

func (f *fakeHost) send(req, body []byte) int32 {
	f.sent, f.sentBody = string(req), string(body)
	if f.errno != 0 {
		return int32(f.errno)
	}
	return 3
}

func (f *fakeHost) response(h int32, buf []byte) int32 {
	if h != 3 {
		return int32(abi.ErrNotFound)
	}
	if len(f.head) <= len(buf) {
		copy(buf, f.head)
	}
	return int32(len(f.head))
}

func (f *fakeHost) bodyRead(h int32, buf []byte) int32 {
	if f.body == "" {
		f.readsAfterEnd++
		return 0
	}
	n := copy(buf, f.body[:min(len(f.body), 2)]) // two bytes at a time
	f.body = f.body[n:]
	return int32(n)
}

func (f *fakeHost) close(int32) int32 { f.closed++; return 0 }

func (f *fakeHost) error(buf []byte) int32 {
	if f.errJSON == "" {
		return int32(abi.ErrNotFound)
	}
	if len(f.errJSON) <= len(buf) {
		copy(buf, f.errJSON)
	}
	return int32(len(f.errJSON))
}

func withFake(t *testing.T, f *fakeHost) *http.Client {
	fake = f
	t.Cleanup(func() { fake = nil })
	return &http.Client{Transport: Transport{}}
}

func TestTransportSendsThroughTheHost(t *testing.T) {
	f := &fakeHost{
		head: `{"status":201,"headers":[["content-type","application/json"],["content-length","11"],["x-a","1"],["x-a","2"]]}`,
		body: `{"id":"c1"}`,
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
	if want := `"method":"POST","url":"https://api.example.com/v1/charges?x=1"`; !strings.Contains(f.sent, want) ||
		!strings.Contains(f.sent, `["Authorization","Bearer k"]`) || strings.Contains(f.sent, "stream") || f.sentBody != `{"amount":5}` {
		t.Errorf("sent %s with %q", f.sent, f.sentBody)
	}
	if f.closed != 1 || f.readsAfterEnd != 1 {
		t.Errorf("closed %d times, read %d times past the end; want 1 and 1", f.closed, f.readsAfterEnd)
	}

	f.head, f.body = `{"status":200,"headers":[]}`, ""
	if _, err := client.Get("https://ada:pw@api.example.com/me"); err != nil || !strings.Contains(f.sent, `"url":"https://api.example.com/me"`) ||
		!strings.Contains(f.sent, `["Authorization","Basic YWRhOnB3"]`) {
		t.Errorf("a URL with credentials: sent %s, %v", f.sent, err)
	}

	f.head, f.body = `{"status":200,"headers":[]}`, "x"
	req, _ = http.NewRequest("GET", "https://api.example.com/big", nil)
	if _, err := client.Do(Stream(req)); err != nil || !strings.Contains(f.sent, `"stream":true`) {
		t.Errorf("Stream: sent %s, %v", f.sent, err)
	}
}

func TestTransportErrorsCarryTheHostsReason(t *testing.T) {
	f := &fakeHost{errno: abi.ErrNotAllowed, errJSON: `{"code":"not_allowed","message":"https://evil.example:443 is not in outbound.allowedHosts"}`}
	client := withFake(t, f)
	_, err := client.Get("https://evil.example/")
	var e *Error
	if !errors.As(err, &e) || e.Code != abi.HTTPErrorNotAllowed || !errors.Is(err, abi.ErrNotAllowed) ||
		!strings.Contains(err.Error(), "is not in outbound.allowedHosts") {
		t.Errorf("got %v, want an *Error not_allowed", err)
	}
	fake = nil
	if _, err := client.Get("https://api.example.com/"); !errors.Is(err, abi.ErrState) {
		t.Errorf("without a host: %v, want ErrState", err)
	}
}
