//go:build unix && !wasip1

package endpoints_test

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU starts counting the process's CPU time; the function it
// returns reports it per operation (cpu-ns/op). On a machine shared with
// other work, the time an operation waits for a core inflates ns/op but
// not cpu-ns/op.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}
