//go:build unix

package host_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, on all
// its threads: the measure of a benchmark's cost that another process
// busy on the same cores disturbs least.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
