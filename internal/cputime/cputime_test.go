//go:build unix

package cputime_test

import (
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// TestProcessCountsWork checks that work the process does shows in its CPU
// time: a clock that stood still would make every benchmark report 0. It
// works until 10 ms of CPU time have shown, on a machine as busy as it may
// be, and fails only if a minute of busy work never shows them.
func TestProcessCountsWork(t *testing.T) {
	start := cputime.Process()
	x := uint64(1)
	for began := time.Now(); cputime.Process()-start < 10*time.Millisecond; {
		if time.Since(began) > time.Minute {
			t.Fatalf("Process: %v of CPU time for a minute of busy work (x %d), want at least 10 ms", cputime.Process()-start, x)
		}
		for range 10_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
}
