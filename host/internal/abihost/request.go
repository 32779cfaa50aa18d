package abihost

import (
	"context"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
)

// hostRequestRead implements request_read (abi/README.md §3).
func hostRequestRead(ctx context.Context, mod api.Module, stack []uint64) {
	c := From(ctx)
	if c == nil || c.Loading() {
		read(mod, abi.ImportRequestRead, uint32(stack[0]), uint32(stack[1]))
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = deliver(mod, abi.ImportRequestRead, c.Envelope(), uint32(stack[0]), uint32(stack[1]))
}

// hostRequestValue implements request_value (abi/README.md §3).
func hostRequestValue(ctx context.Context, mod api.Module, stack []uint64) {
	part, name := abi.Part(int32(stack[0])), read(mod, abi.ImportRequestValue, uint32(stack[1]), uint32(stack[2]))
	buf, bufLen := uint32(stack[3]), uint32(stack[4])
	c := From(ctx)
	if c == nil || c.Loading() {
		stack[0] = errno(abi.ErrState)
		return
	}
	v, e := c.RequestValue(part, name)
	if e != 0 {
		read(mod, abi.ImportRequestValue, buf, bufLen)
		stack[0] = errno(e)
		return
	}
	stack[0] = deliver(mod, abi.ImportRequestValue, v, buf, bufLen)
}

// hostRequestHeader implements request_header (abi/README.md §3).
func hostRequestHeader(ctx context.Context, mod api.Module, stack []uint64) {
	name := read(mod, abi.ImportRequestHeader, uint32(stack[0]), uint32(stack[1]))
	buf, bufLen := uint32(stack[2]), uint32(stack[3])
	c := From(ctx)
	if c == nil || c.Loading() {
		stack[0] = errno(abi.ErrState)
		return
	}
	vals := c.RequestHeader(name)
	if len(vals) == 0 {
		read(mod, abi.ImportRequestHeader, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
		return
	}
	joined := vals[0]
	if len(vals) > 1 {
		joined = strings.Join(vals, ", ")
	}
	stack[0] = deliver(mod, abi.ImportRequestHeader, []byte(joined), buf, bufLen)
}

// hostBodyRead implements body_read (abi/README.md §3).
func hostBodyRead(ctx context.Context, mod api.Module, stack []uint64) {
	buf, bufLen := uint32(stack[0]), uint32(stack[1])
	dst := read(mod, abi.ImportBodyRead, buf, bufLen)
	c := From(ctx)
	if c == nil || c.Loading() || c.Middleware() {
		stack[0] = errno(abi.ErrState)
		return
	}
	n, e := c.ReadBody(dst)
	if e != 0 {
		stack[0] = errno(e)
		return
	}
	stack[0] = uint64(uint32(n))
}

// hostFileRead implements file_read (abi/README.md §3).
func hostFileRead(ctx context.Context, mod api.Module, stack []uint64) {
	index, buf, bufLen := int32(stack[0]), uint32(stack[1]), uint32(stack[2])
	dst := read(mod, abi.ImportFileRead, buf, bufLen)
	c := From(ctx)
	if c == nil || c.Loading() || c.Middleware() {
		stack[0] = errno(abi.ErrState)
		return
	}
	n, e := c.ReadFile(index, dst)
	if e != 0 {
		stack[0] = errno(e)
		return
	}
	stack[0] = uint64(uint32(n))
}
