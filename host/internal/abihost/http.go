package abihost

import (
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
)

// The outbound HTTP functions (abi/README.md §3.1): each asks the call's
// outbound session, which checks, sends and bounds the requests.

// httpSession is the outbound session of the call ctx serves, nil outside
// a request (while loading, in a start function).
func httpSession(ctx context.Context) (Call, *outbound.Session) {
	c := From(ctx)
	if c == nil || c.Loading() {
		return nil, nil
	}
	s := c.Outbound()
	if s == nil {
		return nil, nil
	}
	return c, s
}

// hostHTTPSend implements http_send.
func hostHTTPSend(ctx context.Context, mod api.Module, stack []uint64) {
	req := read(mod, abi.ImportHTTPSend, uint32(stack[0]), uint32(stack[1]))
	body := read(mod, abi.ImportHTTPSend, uint32(stack[2]), uint32(stack[3]))
	_, s := httpSession(ctx)
	if s == nil {
		stack[0] = errno(abi.ErrState)
		return
	}
	h, err := s.Send(req, body)
	if err != nil {
		stack[0] = errno(err.Errno())
		return
	}
	stack[0] = uint64(uint32(h))
}

// hostHTTPResponse implements http_response.
func hostHTTPResponse(ctx context.Context, mod api.Module, stack []uint64) {
	h, buf, bufLen := int32(stack[0]), uint32(stack[1]), uint32(stack[2])
	_, s := httpSession(ctx)
	if s == nil {
		read(mod, abi.ImportHTTPResponse, buf, bufLen)
		stack[0] = errno(abi.ErrState)
		return
	}
	head, ok := s.Response(h)
	if !ok {
		read(mod, abi.ImportHTTPResponse, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
		return
	}
	stack[0] = deliver(mod, abi.ImportHTTPResponse, head, buf, bufLen)
}

// hostHTTPBodyRead implements http_body_read: the body goes from the
// connection straight into the guest's buffer.
func hostHTTPBodyRead(ctx context.Context, mod api.Module, stack []uint64) {
	h := int32(stack[0])
	dst := read(mod, abi.ImportHTTPBodyRead, uint32(stack[1]), uint32(stack[2]))
	_, s := httpSession(ctx)
	switch {
	case s == nil:
		stack[0] = errno(abi.ErrState)
		return
	case !s.Open(h):
		stack[0] = errno(abi.ErrNotFound)
		return
	}
	n, err := s.Read(h, dst)
	if err != nil {
		stack[0] = errno(err.Errno())
		return
	}
	stack[0] = uint64(uint32(n))
}

// hostHTTPClose implements http_close.
func hostHTTPClose(ctx context.Context, _ api.Module, stack []uint64) {
	_, s := httpSession(ctx)
	switch {
	case s == nil:
		stack[0] = errno(abi.ErrState)
	case !s.CloseHandle(int32(stack[0])):
		stack[0] = errno(abi.ErrNotFound)
	default:
		stack[0] = 0
	}
}

// hostHTTPError implements http_error.
func hostHTTPError(ctx context.Context, mod api.Module, stack []uint64) {
	buf, bufLen := uint32(stack[0]), uint32(stack[1])
	_, s := httpSession(ctx)
	var e *outbound.Error
	if s != nil {
		e = s.LastError()
	}
	if e == nil {
		read(mod, abi.ImportHTTPError, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
		return
	}
	stack[0] = deliver(mod, abi.ImportHTTPError, e.JSON(), buf, bufLen)
}
