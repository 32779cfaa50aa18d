// Package httphost is the Go side of the ABI's outbound HTTP functions
// (abi/README.md §3.1): http_send, http_response, http_body_read,
// http_close and http_error, one Go function each, taking slices.
//
// It is shared by the two outbound packages, guest-sdk/go/outbound/fetch
// (the light API) and guest-sdk/go/outbound (net/http), and imports
// nothing but the abi package, so neither pays for the other.
//
// Outside WebAssembly there is no host: the functions are served by
// [Fake] when a test sets it, and by Go's own net/http otherwise (no
// allowlist, no limits), so that the tests of a route that calls out can
// point it at an httptest server.
package httphost
