package edge

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
)

// RequestIDHeader carries the request id both ways: a client (or a proxy
// in front) may send one, and every answer carries the one the host used.
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds the request id the host accepts from a client.
const maxRequestIDLen = 128

// RequestID returns the id of a request: the client's X-Request-Id when it
// is 1-128 characters of letters, digits and -_.:/+=@ (safe in logs and
// headers), otherwise 24 random hexadecimal digits.
func RequestID(r *http.Request) string {
	if vs := r.Header[RequestIDHeader]; len(vs) == 1 && usableRequestID(vs[0]) {
		return vs[0]
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func usableRequestID(s string) bool {
	if len(s) == 0 || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '=' || c == '@':
		default:
			return false
		}
	}
	return true
}
