//go:build !unix

package linearmem

import "github.com/tetratelabs/wazero/experimental"

// Supported reports whether memories are mapped on this platform.
const Supported = false

// Allocate returns a linear memory in a Go slice: this platform maps none.
func Allocate(cap, max uint64) experimental.LinearMemory {
	if cap > max {
		max = cap
	}
	return newHeapMemory(cap, max)
}
