//go:build unix

package linearmem

import (
	"os"

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
	region, err := unix.Mmap(-1, 0, int(roundUp(max)), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return newHeapMemory(cap, max)
	}
	m := &mapped{region: region[:max]}
	if m.commit(cap) != nil {
		_ = unix.Munmap(region)
		return newHeapMemory(cap, max)
	}
	return m
}

// mapped is a linear memory in a reservation of its own. The first
// committed bytes are readable and writable, the rest of the reservation
// is not.
type mapped struct {
	region    []byte // the reservation, max bytes; nil once freed
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
	if m.region != nil {
		_ = unix.Munmap(m.region[:cap(m.region)])
		m.region = nil
	}
}

func roundUp(n uint64) uint64 { return (n + pageSize - 1) &^ (pageSize - 1) }
