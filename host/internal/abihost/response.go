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
	case status < 100 || status > 599:
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
		case len(name)+len(value) > abi.ResponseHeaderMaxBytes || !ValidHeader(string(name), string(value)):
			stack[0] = errno(abi.ErrInvalid)
		case c.HeadersSent():
			stack[0] = errno(abi.ErrHeadersSent)
		default:
			stack[0] = errno(c.SetResponseHeader(string(name), string(value), add))
		}
	}
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
