// Package outbound lets a Go route module call other services with
// ordinary net/http code: importing it installs [Transport], an
// http.RoundTripper backed by the host's http_* functions
// (abi/README.md §3.1), as http.DefaultTransport.
//
// Experimental: outbound HTTP, the http_* host functions and this package
// may change before 1.0 (README.md, "Stability before 1.0").
//
//	import (
//		"net/http"
//
//		_ "github.com/wasmendpoints/endpoints/guest-sdk/go/outbound"
//	)
//
//	resp, err := http.Get("https://api.example.com/v1/rates")
//	if err != nil {
//		return err // an *outbound.Error inside says why: not_allowed, timeout...
//	}
//	defer resp.Body.Close()
//
// WebAssembly modules have no sockets (net/http's own transport fails on
// wasip1); the host sends the request instead, after checking it against
// endpoints.json's outbound.allowedHosts, and within the call's deadline.
// The package is separate from the SDK because net/http about doubles a
// module's size (crypto/tls, crypto/x509, mime/multipart come with it),
// and in a bundle (every Go route of an app in one module, the default of
// endpoints build) every route pays for it: in build and reload time and
// in memory. A route that only sends requests should use package
// guest-sdk/go/outbound/fetch instead, the same calls to the host without
// net/http; this package is for code written for net/http (an API's
// client library, an http.Client). It is built on fetch, and reports the
// same [Error].
//
// # Notes
//
//   - The host follows redirects (at most five, each checked against the
//     allowlist), so a response is never a redirect the client follows
//     again.
//   - A response body read whole is bounded by limits.outboundBytes
//     (16 MiB by default): past it Read fails with an *Error of code
//     "limit". A body passed on as it is read (a proxy, a download) may be
//     larger: send the request with [Stream].
//   - A call sends at most limits.outboundRequests requests (50 by
//     default), and the app at most outbound.maxConcurrentPerHost at once
//     to one host (64 by default, failing at once rather than waiting):
//     past either, the request fails with an *Error of code "limit"
//     (abi.ErrLimit, -10, as each bound here).
//   - A response's status and headers are read up to 64 KiB
//     (abi.HTTPResponseHeaderMaxBytes), and the
//     responses a call holds open keep at most limits.outboundHeaderBytes
//     of them (1 MiB by default): past either, the request fails with an
//     *Error of code "limit". Close each response's Body (or read it to
//     its end) to give its headers back.
//   - A request's context deadline, and http.Client.Timeout, reach the
//     host as the request's own timeout (abi/README.md §3.1): past it the
//     host stops the request, connecting, the headers or any read of the
//     body, and the error is found with errors.Is(err,
//     context.DeadlineExceeded) while the handler has the rest of its
//     time. Without one, the call's deadline (less a margin) ends it.
//   - Host, Content-Length, Transfer-Encoding and the other framing
//     headers are the host's; req.Host is not sent.
//   - Outside WebAssembly (go test), importing the package changes
//     nothing: http.DefaultTransport stays Go's.
package outbound
