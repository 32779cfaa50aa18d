package engine

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmendpoints/endpoints/internal/linearmem"
)

// instantiate instantiates a module with its memory mapped outside the Go
// heap, when the engine maps memories.
//
// wazero takes the allocator from the context of the instantiation, and
// the context here is usually the host's call, which carries a Call
// (callFrom) and which the interrupt check type-asserts to stop a start
// function (_initialize) that runs past its deadline: wrapping it in
// context.WithValue would hide it. So the call carries the allocator's
// context in a field while it instantiates, and its Value method answers
// from it (see Call.SetMemory).
//
// A failed instantiation may leave a memory that no module owns (wazero
// closes the module when a start function fails, not when a data segment
// does not fit); the recorder frees it.
func (e *Engine) instantiate(ctx context.Context, c *Code, config wazero.ModuleConfig) (api.Module, error) {
	if !e.mapped {
		return c.runtime.InstantiateModule(ctx, c.compiled, config)
	}
	rec := &linearmem.Recorder{}
	withAlloc := experimental.WithMemoryAllocator(context.Background(), rec)
	if c := callFrom(ctx); c != nil {
		c.SetMemory(withAlloc)
		defer c.ClearMemory()
	} else {
		ctx = experimental.WithMemoryAllocator(ctx, rec)
	}
	mod, err := c.runtime.InstantiateModule(ctx, c.compiled, config)
	if err != nil {
		rec.Free()
	}
	return mod, err
}
