package abihost

import (
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
)

// The functions only middleware may call.

// hostRequestSetHeader implements request_set_header (abi/README.md §3).
func hostRequestSetHeader(ctx context.Context, mod api.Module, stack []uint64) {
	name := read(mod, abi.ImportRequestSetHeader, uint32(stack[0]), uint32(stack[1]))
	value := read(mod, abi.ImportRequestSetHeader, uint32(stack[2]), uint32(stack[3]))
	c := From(ctx)
	switch {
	case c == nil || c.Phase() != abi.PhaseBefore:
		stack[0] = errno(abi.ErrState)
	case len(name)+len(value) > abi.ResponseHeaderMaxBytes:
		stack[0] = errno(abi.ErrInvalid)
	default:
		stack[0] = errno(c.SetRequestHeader(name, value))
	}
}

// hostContextSet implements context_set (abi/README.md §3).
func hostContextSet(ctx context.Context, mod api.Module, stack []uint64) {
	name := read(mod, abi.ImportContextSet, uint32(stack[0]), uint32(stack[1]))
	value := read(mod, abi.ImportContextSet, uint32(stack[2]), uint32(stack[3]))
	c := From(ctx)
	if c == nil || (c.Phase() != abi.PhaseBefore && c.Phase() != abi.PhaseVerify) {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(c.SetContext(name, value))
}

// hostPrincipalSet implements principal_set (abi/README.md §3).
func hostPrincipalSet(ctx context.Context, mod api.Module, stack []uint64) {
	b := read(mod, abi.ImportPrincipalSet, uint32(stack[0]), uint32(stack[1]))
	c := From(ctx)
	if c == nil || c.Phase() != abi.PhaseVerify {
		stack[0] = errno(abi.ErrState)
		return
	}
	stack[0] = errno(c.SetPrincipal(b))
}
