//go:build unix

package appfile

import "syscall"

// openFlags opens a FIFO without waiting for a writer, so that Read can
// refuse it.
const openFlags = syscall.O_NONBLOCK
