//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time the process has used, user and system, on all
// its threads; 0 when the system could not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
