//go:build unix

package linearmem

import (
	"os"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// Supported reports whether memories are mapped on this platform.
const Supported = true

var pageSize = uint64(os.Getpagesize())

// Allocate returns a linear memory that can grow to max bytes without
// moving: max bytes of address space are reserved now, and cap bytes
// made usable. When the reservation fails, it returns a memory in a Go
// slice instead. It never returns nil.
//
// # Notes
//
//   - The host sets a memory limit on its runtime, so wazero passes that
//     limit as max when a module declares none, and max is never over
//     4 GiB. A max of zero (a module whose memory cannot hold a page)
//     reserves nothing.
func Allocate(cap, max uint64) experimental.LinearMemory {
	if cap > max {
		max = cap
	}
	if max == 0 {
		return &mapped{}
	}
	// A memory of a huge page or more starts on a huge page boundary, so
	// that it can be backed by huge pages: the reservation has room to
	// slide up to one.
	size, huge := roundUp(max), max >= hugePageSize
	if huge {
		size += hugePageSize
	}
	region, err := unix.Mmap(-1, 0, int(size), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return newHeapMemory(cap, max)
	}
	start := uint64(0)
	if huge {
		base := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(region))))
		start = (hugePageSize - base%hugePageSize) % hugePageSize
		// Where transparent huge pages are enabled on request (the
		// default of most distributions), ask for them: one fault per
		// 2 MiB instead of 512. On a virtual machine a 4 KiB fault can
		// cost ~10 µs: writing 32 MiB took 90 ms with small pages, 3 ms
		// with huge ones. Failure only means small pages.
		adviseHugePages(region)
	}
	m := &mapped{mapping: region, region: region[start : start+max : start+max]}
	if m.commit(cap) != nil {
		_ = unix.Munmap(region)
		return newHeapMemory(cap, max)
	}
	return m
}

// hugePageSize is the size of a transparent huge page on amd64 and arm64
// with 4 KiB pages. Elsewhere aligning to it is harmless.
const hugePageSize = 2 << 20

// mapped is a linear memory in a reservation of its own. The first
// committed bytes are readable and writable, the rest of the reservation
// is not.
type mapped struct {
	mapping   []byte // what mmap returned, for munmap
	region    []byte // the memory in it, max bytes; nil once freed
	committed uint64
	freed     bool
}

// commit makes the first size bytes readable and writable.
func (m *mapped) commit(size uint64) error {
	if size <= m.committed {
		return nil
	}
	end := min(roundUp(size), uint64(len(m.region)))
	if err := unix.Mprotect(m.region[m.committed:end], unix.PROT_READ|unix.PROT_WRITE); err != nil {
		return err
	}
	m.committed = end
	return nil
}

// Reallocate implements experimental.LinearMemory: the memory's first
// size bytes, at the same address as before. It returns nil when size
// exceeds the reservation or the pages cannot be made writable (the
// guest's memory.grow then returns -1).
func (m *mapped) Reallocate(size uint64) []byte {
	if m.freed || size > uint64(len(m.region)) || m.commit(size) != nil {
		return nil
	}
	if m.region == nil {
		return []byte{}
	}
	return m.region[:size:size]
}

// Free implements experimental.LinearMemory: the pages return to the
// operating system now. Calling it again does nothing.
func (m *mapped) Free() {
	if m.freed {
		return
	}
	m.freed = true
	if m.mapping != nil {
		_ = unix.Munmap(m.mapping)
	}
	m.mapping, m.region = nil, nil
}

func roundUp(n uint64) uint64 { return (n + pageSize - 1) &^ (pageSize - 1) }
