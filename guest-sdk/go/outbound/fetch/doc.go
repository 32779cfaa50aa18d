// Package fetch lets a Go route module call other services through the
// host with a small API of its own, without net/http: a request is a
// method, a URL, headers and a body; a response is a status, headers and
// a body read whole ([Send]) or as it comes ([Open]).
//
// Experimental: outbound HTTP, the http_* host functions and this package
// may change before 1.0 (README.md, "Stability before 1.0").
//
//	res, err := fetch.Send(fetch.Request{
//		Method: "POST",
//		URL:    "https://api.example.com/v1/charges",
//		Header: fetch.Header{"Content-Type": {"application/json"}},
//		Body:   body,
//	})
//	if err != nil {
//		return err // an *Error says why: not_allowed, timeout, limit...
//	}
//	if res.StatusCode/100 != 2 { ... }
//
// WebAssembly modules have no sockets; the host sends the request instead,
// after checking it against endpoints.json's outbound.allowedHosts, and
// within the call's deadline (abi/README.md §3.1).
//
// # fetch or outbound
//
// Package guest-sdk/go/outbound does the same behind net/http: importing
// it makes http.Get and any http.Client go through the host, which suits
// code written for net/http (API clients, SDKs). But net/http brings
// crypto/tls, crypto/x509, mime/multipart and the rest: it about doubles
// a module's size, and in a bundle (every Go route of an app in one
// module, the default of endpoints build) every route pays for it, in
// build and reload time and in memory. This package imports neither
// net/http nor net/url; use it when a route only needs to send requests.
// Both report failures as the same [Error].
//
// # Notes
//
//   - The host follows redirects (at most five, each checked against the
//     allowlist), so a response is never a redirect.
//   - A response body read whole is bounded by limits.outboundBytes
//     (16 MiB by default): past it Send fails with an *Error of code
//     "limit". A body passed on as it is read (a proxy, a download) may be
//     larger: set [Request.Stream] and read it with [Open].
//   - A response's status and headers are read up to 64 KiB, and the
//     responses a call holds open keep at most limits.outboundHeaderBytes
//     of them (1 MiB by default): past either, Send and Open fail with
//     an *Error of code "limit". A body read to its end or closed
//     ([Reader.Close]) gives its response's back.
//   - A service too slow for the call fails with an *Error of code
//     "timeout" a tenth of the time left at the call's first request
//     (50 ms to 1 s) before its deadline (limits.timeout, or the
//     operation's Timeout), so the
//     handler can still answer, a 504 say, instead of being stopped.
//   - A handler that would rather give up sooner gives the request a
//     bound of its own, [Request.Timeout] or a context's deadline
//     ([SendContext], [OpenContext]): past it, an *Error of code "timeout"
//     that errors.Is finds as context.DeadlineExceeded, and the rest of
//     the call's time for a fallback.
//   - Host, Content-Length, Transfer-Encoding and the other framing
//     headers are the host's; a URL may not carry a user or password (send
//     an Authorization header).
//   - Outside WebAssembly (go test) there is no host: Send and Open use
//     Go's net/http directly, without the allowlist or the limits, so the
//     tests of a route that calls out can point it at an httptest server.
package fetch
