// Package cputime reads the CPU time the process has used, user and
// system, on all its threads: the measure of a benchmark's cost that other
// work busy on the same cores disturbs least (a wait for a core inflates a
// benchmark's ns/op, not its CPU time). Benchmarks use it; where the
// platform does not say (no getrusage), the time reads as zero.
package cputime

import "testing"

// Report starts counting the process's CPU time; the function it returns
// reports it per operation of b as the metric cpu-ns/op. Where the
// platform does not say, it reports nothing.
func Report(b *testing.B) func() {
	start := Process()
	return func() {
		if start > 0 {
			b.ReportMetric(float64(Process()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
