//go:build !wasip1

package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/httphost/httphosttest"
)

// TestTheTimeoutGoesToTheHost: Request.Timeout and a context's deadline
// reach http_send as the request's "timeout" in milliseconds (the sooner
// of the two, rounded up), none without either; a context already done
// sends nothing.
func TestTheTimeoutGoesToTheHost(t *testing.T) {
	f := httphosttest.Install(t, &httphosttest.Host{Head: `{"status":200,"headers":[]}`})
	soon, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	tests := []struct {
		name     string
		ctx      context.Context
		timeout  time.Duration
		min, max int64 // the timeout sent
	}{
		{"none", context.Background(), 0, 0, 0},
		{"the request's", context.Background(), 300 * time.Millisecond, 300, 300},
		{"rounded up", context.Background(), 1500 * time.Microsecond, 2, 2},
		{"the context's", soon, 0, 3_590_000, 3_600_000},
		{"the request's before the context's", soon, 250 * time.Millisecond, 250, 250},
		{"past an hour, an hour", context.Background(), 2 * time.Hour, abi.HTTPTimeoutMax, abi.HTTPTimeoutMax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.Sent = ""
			if _, err := SendContext(tt.ctx, Request{URL: "https://api.example.com/", Timeout: tt.timeout}); err != nil {
				t.Fatal(err)
			}
			var sent abi.HTTPRequest
			if err := json.Unmarshal([]byte(f.Sent), &sent); err != nil {
				t.Fatal(err)
			}
			if sent.Timeout < tt.min || sent.Timeout > tt.max {
				t.Errorf("sent timeout %d, want %d to %d (%s)", sent.Timeout, tt.min, tt.max, f.Sent)
			}
		})
	}
	f.Sent = ""
	if _, err := SendContext(done, Request{URL: "https://api.example.com/"}); err != context.Canceled || f.Sent != "" {
		t.Errorf("a done context: %v, sent %q; want context.Canceled and nothing sent", err, f.Sent)
	}
}

// TestATimeoutIsADeadlineExceeded: the host's timeout error is found as
// context.DeadlineExceeded and says it timed out; natively, the request's
// timeout stops a server that does not answer.
func TestATimeoutIsADeadlineExceeded(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release) // before srv.Close, which waits for handlers
	_, err := Send(Request{URL: srv.URL, Timeout: 50 * time.Millisecond})
	var e *Error
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &e) || !e.Timeout() || !errors.Is(err, abi.ErrIO) {
		t.Errorf("got %v, want a timeout found as context.DeadlineExceeded", err)
	}
	if other := (&Error{Errno: abi.ErrIO, Code: abi.HTTPErrorConnect}); errors.Is(other, context.DeadlineExceeded) || other.Timeout() {
		t.Error("a connect error is found as a timeout")
	}
}
