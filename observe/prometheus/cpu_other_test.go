//go:build !unix

package prometheus_test

import "time"

// cpuTime is not measured here: the benchmarks report rates only.
func cpuTime() time.Duration { return 0 }
