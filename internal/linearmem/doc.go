// Package linearmem backs wazero linear memories with memory mapped from
// the operating system instead of Go slices, so that an instance's memory
// costs the pages the guest touched, never moves, and returns to the
// operating system the moment the instance is closed.
//
// wazero's default linear memory is a Go []byte that memory.grow extends
// with append: every grow allocates a temporary slice and copies the whole
// buffer into a new one, and both old buffers stay resident until the Go
// garbage collector runs, which by default waits until the heap has
// doubled. A closed instance's memory waits for the collector too. An
// instance grown to a 64 MiB cap could cost its process two or three times
// that.
//
// [Allocate] reserves the memory's maximum size as address space that
// cannot be read or written (PROT_NONE), and each Reallocate makes the next
// pages readable and writable (mprotect). Fresh anonymous pages read as
// zero, as the WebAssembly spec wants, and cost nothing until touched. Free
// unmaps the whole reservation at once.
//
// Register it on the context of the instantiation:
//
//	ctx = experimental.WithMemoryAllocator(ctx, linearmem.Allocator())
//	mod, err := rt.InstantiateModule(ctx, compiled, config)
//	...
//	mod.Close(ctx) // wazero calls Free: the pages are gone now
//
// # Notes
//
//   - After Free, any slice that still points into the memory (one
//     returned by api.Memory.Read, or by Reallocate) makes the process
//     crash with a segmentation fault on its next use; a Go panic cannot
//     catch it. Never keep such a slice beyond the host function call that
//     obtained it, and never close a module while a call on it is running
//     (closing its runtime closes it too).
//   - Where memory mapping is unavailable (not a unix system), [Allocator]
//     returns nil, and wazero's default allocator is used. When a
//     reservation fails (address space exhausted), [Allocate] falls back
//     to a Go slice for that memory.
//   - wazero frees a module's memory when the module is closed; a module
//     whose instantiation failed is never returned, so nobody can close it.
//     [Recorder] remembers what one instantiation allocated, so that the
//     caller can free it after a failure.
package linearmem
