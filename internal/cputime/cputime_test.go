//go:build unix

package cputime_test

import (
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// TestProcessCountsWork checks that work the process does shows in its CPU
// time: a clock that stood still would make every benchmark report 0.
func TestProcessCountsWork(t *testing.T) {
	start := cputime.Process()
	x := uint64(1)
	for began := time.Now(); time.Since(began) < 50*time.Millisecond; {
		for range 10_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if used := cputime.Process() - start; used < 10*time.Millisecond {
		t.Errorf("Process: %v of CPU time for 50 ms of busy work (x %d), want at least 10 ms", used, x)
	}
}
