//go:build wasip1

// Command outbound is the guest of the host's TestGoGuestUsesNetHTTP: a
// plain route that fetches the URL in its "url" query parameter with
// net/http's http.Get and answers the status and body it got, or 502 with
// the host's reason. The test builds it with guestbuild.Go.
package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/outbound"
)

func init() {
	endpoints.HandleRaw(func(w endpoints.ResponseWriter, r *endpoints.RawRequest) {
		q, _ := url.ParseQuery(r.RawQuery)
		resp, err := http.Get(q.Get("url"))
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
