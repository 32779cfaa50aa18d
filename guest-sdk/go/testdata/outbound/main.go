//go:build wasip1

// Command outbound is the guest of the host's TestGoGuestUsesNetHTTP: a
// plain route that fetches the URL in its "url" query parameter with
// net/http's http.Get and answers the status and body it got, or 502 with
// the host's reason; with a "timeout" query parameter (milliseconds) it
// sends with an http.Client of that Timeout, and answers 504 of its own
// when the service took longer. The test builds it with guestbuild.Go.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/outbound"
)

func init() {
	endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
		q, _ := url.ParseQuery(r.RawQuery)
		client := http.DefaultClient
		if ms, err := strconv.Atoi(q.Get("timeout")); err == nil {
			client = &http.Client{Timeout: time.Duration(ms) * time.Millisecond}
		}
		resp, err := client.Get(q.Get("url"))
		if errors.Is(err, context.DeadlineExceeded) {
			w.WriteHeader(504)
			fmt.Fprintf(w, "gave up: %s", err)
			return
		}
		if err != nil {
			var e *outbound.Error
			errors.As(err, &e)
			w.WriteHeader(502)
			fmt.Fprintf(w, "%v %s", e != nil, err)
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			w.WriteHeader(502)
			fmt.Fprintf(w, "reading: %s", err)
			return
		}
		fmt.Fprintf(w, "%d %s %s", resp.StatusCode, resp.Header.Get("X-Backend"), b)
	})
}

func main() {}
