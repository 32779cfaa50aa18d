package abihost

import (
	"context"
	"net/http"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
)

// hostResponseSetStatus implements response_set_status (abi/README.md §3).
func hostResponseSetStatus(ctx context.Context, mod api.Module, stack []uint64) {
	status := int32(stack[0])
	c := From(ctx)
	switch {
	case c == nil || c.Loading():
		stack[0] = errno(abi.ErrState)
	case c.Phase() == abi.PhaseAfter || c.Phase() == abi.PhaseVerify:
		stack[0] = errno(abi.ErrState) // the status is the handler's
	case status < abi.ResponseStatusMin || status > abi.ResponseStatusMax:
		stack[0] = errno(abi.ErrInvalid)
	case c.HeadersSent():
		stack[0] = errno(abi.ErrHeadersSent)
	default:
		c.SetStatus(int(status))
		stack[0] = 0
	}
}

// hostResponseWrite implements response_write (abi/README.md §3).
func hostResponseWrite(ctx context.Context, mod api.Module, stack []uint64) {
	data := read(mod, abi.ImportResponseWrite, uint32(stack[0]), uint32(stack[1]))
	c := From(ctx)
	if c == nil || c.Loading() || c.Phase() == abi.PhaseAfter || c.Phase() == abi.PhaseVerify {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(c.Write(data))
}

// responseHeader implements response_set_header (add false) and
// response_add_header (add true), named fname in errors.
func responseHeader(fname string, add bool) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		name := read(mod, fname, uint32(stack[0]), uint32(stack[1]))
		value := read(mod, fname, uint32(stack[2]), uint32(stack[3]))
		c := From(ctx)
		switch {
		case c == nil || c.Loading() || c.Phase() == abi.PhaseVerify:
			stack[0] = errno(abi.ErrState)
		case len(name)+len(value) > abi.ResponseHeaderMaxBytes || !validName(name) || !validValue(value):
			stack[0] = errno(abi.ErrInvalid)
		case c.HeadersSent():
			stack[0] = errno(abi.ErrHeadersSent)
		default:
			stack[0] = errno(c.SetResponseHeader(headerName(name), headerValue(value), add))
		}
	}
}

// commonNames maps the names of the response headers guests set most,
// canonical or in lower case, to their canonical form, and commonValues
// the values they set most to themselves: looked up with the bytes read
// from the guest's memory, they are strings without an allocation, and a
// common name needs no canonicalisation (net/textproto interns the
// common names it reads the same way). None is forbidden.
var commonNames, commonValues = func() (map[string]string, map[string]string) {
	names := map[string]string{}
	for _, n := range []string{"Content-Type", "Cache-Control", "Location", "ETag", "Last-Modified", "Expires", "Vary",
		"Set-Cookie", "Content-Language", "Content-Disposition", "Link", "Retry-After", "WWW-Authenticate", "X-Content-Type-Options"} {
		canonical := http.CanonicalHeaderKey(n)
		names[canonical], names[strings.ToLower(n)] = canonical, canonical
	}
	values := map[string]string{}
	for _, v := range []string{"application/json", "application/json; charset=utf-8", "text/plain", "text/plain; charset=utf-8",
		"text/html; charset=utf-8", "application/octet-stream", "no-store", "no-cache", "nosniff"} {
		values[v] = v
	}
	return names, values
}()

// validName reports whether name is one ValidHeader accepts, a common
// one at once.
func validName(name []byte) bool {
	if _, ok := commonNames[string(name)]; ok {
		return true
	}
	return ValidHeader(string(name), "")
}

// validValue reports whether value is one ValidHeader accepts: no CR, LF
// or NUL.
func validValue(value []byte) bool {
	for _, b := range value {
		if b == '\r' || b == '\n' || b == 0 {
			return false
		}
	}
	return true
}

// headerName is name as a string: canonical and without an allocation
// for a common one.
func headerName(name []byte) string {
	if n, ok := commonNames[string(name)]; ok {
		return n
	}
	return string(name)
}

// headerValue is value as a string, without an allocation for a common
// one.
func headerValue(value []byte) string {
	if v, ok := commonValues[string(value)]; ok {
		return v
	}
	return string(value)
}

var forbidden = func() map[string]bool {
	m := map[string]bool{}
	for _, h := range abi.ForbiddenResponseHeaders {
		m[h] = true
	}
	return m
}()

// ValidHeader accepts a header name that is an RFC 9110 token and not
// owned by the host (abi.ForbiddenResponseHeaders), and a value without
// CR, LF or NUL: what a guest may set on the answer, or a middleware on
// the request.
func ValidHeader(name, value string) bool {
	if name == "" || forbidden[http.CanonicalHeaderKey(name)] {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return false
		}
	}
	for i := 0; i < len(value); i++ {
		if b := value[i]; b == '\r' || b == '\n' || b == 0 {
			return false
		}
	}
	return true
}

func isTokenChar(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}
