package abihost

import (
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
)

// hostVariableGet implements variable_get (abi/README.md §3): the value of
// one of the app's variables, by the buffer convention.
func hostVariableGet(ctx context.Context, mod api.Module, stack []uint64) {
	name := read(mod, abi.ImportVariableGet, uint32(stack[0]), uint32(stack[1]))
	buf, bufLen := uint32(stack[2]), uint32(stack[3])
	c := From(ctx)
	if c == nil || c.Loading() {
		read(mod, abi.ImportVariableGet, buf, bufLen)
		stack[0] = errno(abi.ErrState)
		return
	}
	v, ok := c.Variable(name)
	if !ok {
		read(mod, abi.ImportVariableGet, buf, bufLen)
		stack[0] = errno(abi.ErrNotFound)
		return
	}
	stack[0] = deliver(mod, abi.ImportVariableGet, v, buf, bufLen)
}
