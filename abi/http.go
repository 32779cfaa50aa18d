package abi

// Outbound HTTP (README §3.1): a guest calls other services through the
// host, which checks every request against the app's allowlist
// (endpoints.json "outbound.allowedHosts") and the address it dials, and
// bounds it by the call's deadline and the outbound limits.
//
// A guest sends a request with [ImportHTTPSend], which returns when the
// response's status and headers arrived: a handle. It reads them with
// [ImportHTTPResponse] and the body, as a stream, with
// [ImportHTTPBodyRead]; [ImportHTTPClose] releases the response early (all
// are released when the call ends). A failed http_* call returns a
// negative [Errno]; [ImportHTTPError] then says why, as an [HTTPError].
//
//	h = http_send(`{"method":"POST","url":"https://api.example.com/v1/charges",
//	               "headers":[["content-type","application/json"]]}`, 86, body, 42)
//	n = http_response(h, buf, 512)   ;; {"status":201,"headers":[["content-type","application/json"]]}
//	n = http_body_read(h, buf, 4096) ;; body bytes, 0 at the end
//	http_close(h)
const (
	// ImportHTTPSend sends the request described by req (JSON, an
	// [HTTPRequest]) with body (body_len 0 for none) and waits for the
	// response's status and headers. It returns a handle (0 or more) for
	// the other http_* functions, or [ErrInvalid] (req is not such JSON,
	// a bad method, URL or header), [ErrNotAllowed] (the URL's origin is
	// not listed, or the address dialled is private and not itself
	// listed), [ErrLimit] (limits.outboundRequests of this call, the
	// concurrent requests to the host, a head past
	// [HTTPResponseHeaderMaxBytes], or one the call's open responses'
	// limits.outboundHeaderBytes has no room for), [ErrIO] (connecting, TLS, the
	// protocol, a redirect, the deadline or the request's own
	// [HTTPRequest.Timeout]), [ErrState] outside a request.
	//
	//	http_send(req i32, req_len i32, body i32, body_len i32) -> handle i32
	ImportHTTPSend = "http_send"

	// ImportHTTPResponse writes the response's status and headers (JSON,
	// an [HTTPResponse]) when it fits and returns its size, or
	// [ErrNotFound] for a handle that is not open.
	//
	//	http_response(handle i32, buf i32, buf_len i32) -> size i32
	ImportHTTPResponse = "http_response"

	// ImportHTTPBodyRead reads the next bytes of the response body into
	// buf and returns how many it wrote, 0 at the end (like
	// [ImportBodyRead]). Past limits.outboundBytes of one response it
	// returns [ErrLimit], unless the request asked to stream
	// ([HTTPRequest.Stream]); [ErrIO] when the connection fails or the
	// deadline (or the request's [HTTPRequest.Timeout]) passes; [ErrNotFound] for a handle that is not open.
	//
	//	http_body_read(handle i32, buf i32, buf_len i32) -> n i32
	ImportHTTPBodyRead = "http_body_read"

	// ImportHTTPClose releases a response (its connection, its slot
	// against the concurrent requests to its host) before the call ends:
	// 0, or [ErrNotFound] for a handle that is not open.
	//
	//	http_close(handle i32) -> errno i32
	ImportHTTPClose = "http_close"

	// ImportHTTPError writes why the last failed http_* call of this call
	// failed (JSON, an [HTTPError]) when it fits and returns its size, or
	// [ErrNotFound] when none failed.
	//
	//	http_error(buf i32, buf_len i32) -> size i32
	ImportHTTPError = "http_error"
)

// Errors of the outbound HTTP functions, beyond those of [Errno].
const (
	// ErrNotAllowed: the request's origin is not in the app's
	// outbound.allowedHosts, or the address it resolved to is loopback,
	// private, link-local or otherwise not public and not itself listed.
	ErrNotAllowed Errno = -9
	// ErrLimit: the call passed an outbound bound: limits.outboundRequests
	// requests, limits.outboundBytes of a response read whole, the
	// concurrent requests allowed to one host
	// (outbound.maxConcurrentPerHost), a response's head past
	// [HTTPResponseHeaderMaxBytes], or limits.outboundHeaderBytes of the
	// heads the call's open responses hold.
	ErrLimit Errno = -10
)

// HTTPRequest is the JSON argument of [ImportHTTPSend].
//
//	{"method":"POST","url":"https://api.example.com/v1/charges",
//	 "headers":[["content-type","application/json"],["idempotency-key","k1"]]}
type HTTPRequest struct {
	// Method is the request method, an HTTP token; "" is GET.
	Method string `json:"method,omitempty"`
	// URL is the absolute http or https URL to call: a scheme and an
	// authority are required (a URL is never completed from the incoming
	// request).
	URL string `json:"url"`
	// Headers are the request's headers in order, each a [name, value]
	// pair; a name may repeat. Framing headers ([ForbiddenRequestHeaders]:
	// Host, Content-Length, Transfer-Encoding...) are the host's.
	Headers [][2]string `json:"headers,omitempty"`
	// Stream lifts limits.outboundBytes from the response body, for a
	// guest that passes it on as it reads (a proxy, a download): the
	// call's deadline still bounds it.
	Stream bool `json:"stream,omitempty"`
	// Timeout bounds this request in milliseconds, from 1 to
	// [HTTPTimeoutMax]: connecting, TLS, the response's status and headers
	// and every read of its body must be over by then, or http_send (or
	// http_body_read) returns [ErrIO] with the code [HTTPErrorTimeout] and
	// a message naming this timeout. 0 (absent) is none: the call's
	// deadline alone, less its margin. It only shortens: the call's
	// deadline (and its margin) still bounds a longer one. A negative
	// value, a fraction or one past [HTTPTimeoutMax] is [ErrInvalid].
	//
	//	{"url":"https://rates.example.com/v1/eur","timeout":300}
	Timeout int64 `json:"timeout,omitempty"`
}

// HTTPTimeoutMax is the largest [HTTPRequest.Timeout], in milliseconds:
// one hour, longer than any call may run (limits.maxTimeout).
const HTTPTimeoutMax = 3_600_000

// HTTPResponse is the JSON [ImportHTTPResponse] writes.
//
//	{"status":200,"headers":[["content-type","application/json"],["content-length","27"]]}
type HTTPResponse struct {
	// Status is the response's status code, after any redirects.
	Status int `json:"status"`
	// Headers are the response's headers, names in lower case, one pair
	// per value. Bytes of a value that are not UTF-8 read as U+FFFD.
	Headers [][2]string `json:"headers"`
}

// HTTPError is the JSON [ImportHTTPError] writes.
//
//	{"code":"not_allowed","message":"http://10.0.0.7/: 10.0.0.7 is a private address not listed in outbound.allowedHosts"}
type HTTPError struct {
	// Code is one of the HTTPError... codes.
	Code string `json:"code"`
	// Message says what failed, for a log line.
	Message string `json:"message"`
}

// Codes of [HTTPError].
const (
	// HTTPErrorNotAllowed: [ErrNotAllowed].
	HTTPErrorNotAllowed = "not_allowed"
	// HTTPErrorLimit: [ErrLimit].
	HTTPErrorLimit = "limit"
	// HTTPErrorTimeout: the service took too long, connecting, sending
	// the headers or the body: past the request's own
	// [HTTPRequest.Timeout], or at the margin before the call's deadline
	// (requests end a tenth of the time left at the call's first request,
	// 50 ms to 1 s, before it), so that the guest can still answer; the
	// message says which.
	HTTPErrorTimeout = "timeout"
	// HTTPErrorConnect: the host name did not resolve, or no address
	// accepted the connection.
	HTTPErrorConnect = "connect"
	// HTTPErrorTLS: the TLS handshake failed (an unknown authority, a
	// name mismatch, an expired certificate).
	HTTPErrorTLS = "tls"
	// HTTPErrorProtocol: the server broke HTTP, or the connection broke.
	HTTPErrorProtocol = "protocol"
	// HTTPErrorRedirect: more than [HTTPMaxRedirects] redirects, or one
	// without a usable Location.
	HTTPErrorRedirect = "redirect"
	// HTTPErrorInvalid: the request itself was malformed ([ErrInvalid]).
	HTTPErrorInvalid = "invalid"
)

// HTTPRequestMaxBytes is the largest request JSON [ImportHTTPSend] takes
// (the method, URL and headers; not the body): 1 MiB. A larger one is
// [ErrInvalid].
const HTTPRequestMaxBytes = 1 << 20

// Bounds of an outbound request's headers ([HTTPRequest.Headers]): at
// most HTTPRequestHeaderMaxCount values, whose names and values add up to
// at most HTTPRequestHeaderMaxBytes. Past either, [ImportHTTPSend] is
// [ErrInvalid] and nothing is sent. They bound what a request costs the
// host (the request JSON alone would let a guest send some 90,000
// headers, tens of megabytes of the host's memory each time); servers
// refuse far less (8 to 64 KiB is usual).
const (
	HTTPRequestHeaderMaxCount = 1000
	HTTPRequestHeaderMaxBytes = 256 << 10
)

// HTTPResponseHeaderMaxBytes is the most bytes of an outbound response's
// status line and header fields (informational 1xx answers included; on
// HTTP/2 the header list as RFC 9113 counts it, 32 bytes a field more)
// the host reads: past it, [ImportHTTPSend] is [ErrLimit]. It is what
// .NET's HttpClient reads by default, about Envoy's 60 KiB, and as much
// as a guest's own answer may carry ([ResponseHeaderMaxBytes]); a hostile
// service's 64 KiB of one-byte fields still make about 1 MB of garbage
// as Go parses them (RATIONALE.md, "What an open response holds").
const HTTPResponseHeaderMaxBytes = 64 << 10

// HTTPMaxRedirects is the most redirects one outbound request follows;
// each target is checked against the allowlist again, and Authorization,
// Proxy-Authorization and Cookie are dropped when it changes origin.
const HTTPMaxRedirects = 5
