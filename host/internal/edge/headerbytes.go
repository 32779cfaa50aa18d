package edge

import "net/http"

// HeaderBytes is the size of r's request line and header fields as an
// HTTP/1.1 client sends them, each line with its CRLF, and the empty line
// that ends them: what server.maxHeaderBytes bounds (the Host field, which
// net/http keeps in r.Host, included).
//
//	GET /a HTTP/1.1\r\n    16
//	Host: x\r\n            9
//	\r\n                   2   HeaderBytes = 27
//
// # Notes
//
//   - Whitespace around a value and line folding, which net/http dropped,
//     are not counted, so a client's own bytes may be a little more.
func HeaderBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2 + 2
	if r.Host != "" && r.Header["Host"] == nil {
		n += len("Host: ") + len(r.Host) + 2
	}
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + 2 + len(v) + 2
		}
	}
	return n
}
