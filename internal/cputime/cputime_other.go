//go:build !unix

package cputime

import "time"

// Process is the CPU time the process has used: 0 here, where the
// platform has no getrusage.
func Process() time.Duration { return 0 }
