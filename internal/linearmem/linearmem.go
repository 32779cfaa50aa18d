package linearmem

import "github.com/tetratelabs/wazero/experimental"

// Allocator returns the allocator to register with
// experimental.WithMemoryAllocator, or nil where memory mapping is
// unavailable (wazero's default allocator is used then).
func Allocator() experimental.MemoryAllocator {
	if !Supported {
		return nil
	}
	return experimental.MemoryAllocatorFunc(Allocate)
}

// Recorder is a MemoryAllocator for one instantiation that remembers the
// memories it allocated, so that a caller whose InstantiateModule failed
// can free them: wazero frees a memory only when its module is closed, and
// some failures (a data segment out of bounds, a trapping start section)
// return no module to close.
//
// A Recorder serves one instantiation on one goroutine.
type Recorder struct {
	mems []experimental.LinearMemory
}

// Allocate implements experimental.MemoryAllocator with [Allocate].
func (r *Recorder) Allocate(cap, max uint64) experimental.LinearMemory {
	m := Allocate(cap, max)
	r.mems = append(r.mems, m)
	return m
}

// Free frees every memory the recorder allocated. Freeing a memory wazero
// freed already (closing a module whose start function failed) does
// nothing.
func (r *Recorder) Free() {
	for _, m := range r.mems {
		m.Free()
	}
	r.mems = nil
}

// heapMemory is a linear memory in a Go slice, for when a mapping fails.
// It grows by copying, like wazero's default, but only to the size asked.
type heapMemory struct {
	buf []byte
	max uint64
}

func newHeapMemory(cap, max uint64) *heapMemory {
	return &heapMemory{buf: make([]byte, 0, cap), max: max}
}

func (h *heapMemory) Reallocate(size uint64) []byte {
	switch {
	case size > h.max:
		return nil
	case size <= uint64(cap(h.buf)):
		h.buf = h.buf[:size]
	default:
		buf := make([]byte, size)
		copy(buf, h.buf)
		h.buf = buf
	}
	return h.buf
}

func (h *heapMemory) Free() { h.buf = nil }
