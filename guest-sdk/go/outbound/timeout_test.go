//go:build !wasip1

package outbound

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/httphost/httphosttest"
)

// TestTransportPassesTheDeadline: http.Client.Timeout and the request's
// context deadline reach http_send as the request's "timeout"; a request
// whose context is done is not sent.
func TestTransportPassesTheDeadline(t *testing.T) {
	f := &httphosttest.Host{Head: `{"status":200,"headers":[]}`}
	httphosttest.Install(t, f)
	sentTimeout := func() int64 {
		var sent abi.HTTPRequest
		if err := json.Unmarshal([]byte(f.Sent), &sent); err != nil {
			t.Fatal(err)
		}
		return sent.Timeout
	}

	client := &http.Client{Transport: Transport{}, Timeout: 2 * time.Second}
	if _, err := client.Get("https://api.example.com/"); err != nil {
		t.Fatal(err)
	}
	if got := sentTimeout(); got < 1900 || got > 2000 {
		t.Errorf("http.Client.Timeout 2s: sent timeout %d, want about 2000", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "https://api.example.com/", nil)
	if _, err := (&http.Client{Transport: Transport{}}).Do(req); err != nil {
		t.Fatal(err)
	}
	if got := sentTimeout(); got < 200 || got > 300 {
		t.Errorf("a context of 300ms: sent timeout %d, want about 300", got)
	}

	if _, err := (&http.Client{Transport: Transport{}}).Get("https://api.example.com/"); err != nil {
		t.Fatal(err)
	}
	if got := sentTimeout(); got != 0 {
		t.Errorf("no deadline: sent timeout %d, want none", got)
	}

	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	f.Sent = ""
	req, _ = http.NewRequestWithContext(done, "POST", "https://api.example.com/", strings.NewReader("body"))
	if _, err := (Transport{}).RoundTrip(req); err != context.Canceled || f.Sent != "" {
		t.Errorf("a done context: %v, sent %q; want context.Canceled and nothing sent", err, f.Sent)
	}
}

// ExampleTransport gives up on a service that does not answer within
// 100 ms (http.Client.Timeout, or a context's deadline) and answers from a
// fallback with the rest of the call's time. Natively, as here, Go's
// net/http sends the request; in a module, the host does, with the same
// timeout.
func ExampleTransport() {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)

	client := &http.Client{Transport: Transport{}, Timeout: 100 * time.Millisecond}
	rate := "1.08 (cached)"
	resp, err := client.Get(slow.URL + "/v1/eur")
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Println("the rates service is slow: answering", rate)
	case err != nil:
		fmt.Println("failed:", err)
	default:
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println("rate:", string(b))
	}
	// Output: the rates service is slow: answering 1.08 (cached)
}
