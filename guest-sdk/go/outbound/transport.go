package outbound

import (
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/wasmendpoints/endpoints/guest-sdk/go/outbound/fetch"
)

// Transport is the http.RoundTripper that sends requests through the
// host. The zero value is ready to use; in a WebAssembly module it is
// http.DefaultTransport once the package is imported.
type Transport struct{}

// Error is why the host refused or failed an outbound request: its errno
// (abi.ErrNotAllowed, abi.ErrLimit, abi.ErrIO...) and the http_error code
// and message; it is package fetch's. http.Client wraps it in a
// *url.Error; find it with errors.As, or test the errno with errors.Is:
//
//	if errors.Is(err, abi.ErrNotAllowed) { ... }
type Error = fetch.Error

// streamKey marks a request whose body may pass limits.outboundBytes.
type streamKey struct{}

// Stream returns req marked to be streamed: its response body is bounded
// by the call's deadline only, not by limits.outboundBytes. Use it when
// the guest passes the body on as it reads it.
//
//	resp, err := http.DefaultClient.Do(outbound.Stream(req))
func Stream(req *http.Request) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), streamKey{}, true))
}

// RoundTrip sends req through the host and returns the response once its
// status and headers arrived; its body reads from the host as it comes.
// The request's context bounds it: done already, it fails at once with
// ctx.Err(); its deadline (http.Client.Timeout sets one) ends connecting,
// the headers and every read of the body, with an error that errors.Is
// finds as context.DeadlineExceeded.
//
//	client := &http.Client{Timeout: 300 * time.Millisecond}
//	resp, err := client.Get("https://rates.example.com/v1/eur")
//	if errors.Is(err, context.DeadlineExceeded) { ... a fallback ... }
func (Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	// http.Client turned a URL's user and password into an Authorization
	// header already; the host refuses credentials in a URL.
	u := *req.URL
	u.User = nil
	spec := fetch.Request{Method: req.Method, URL: u.String(), Header: fetch.Header(req.Header), Body: body}
	if s, _ := req.Context().Value(streamKey{}).(bool); s {
		spec.Stream = true
	}
	r, err := fetch.OpenContext(ctx, spec)
	if err != nil {
		return nil, err
	}
	resp := &http.Response{
		Status:        strconv.Itoa(r.StatusCode) + " " + http.StatusText(r.StatusCode),
		StatusCode:    r.StatusCode,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header(r.Header),
		Body:          r,
		ContentLength: -1,
		Request:       req,
	}
	if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = n
	}
	if req.Method == http.MethodHead || r.StatusCode == http.StatusNoContent || r.StatusCode == http.StatusNotModified {
		r.Close()
		resp.Body = http.NoBody
	}
	return resp, nil
}
