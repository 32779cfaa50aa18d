//go:build !unix && !wasip1

package endpoints_test

import "testing"

// reportCPU reports nothing where getrusage is missing (cpu_unix_test.go).
func reportCPU(*testing.B) func() { return func() {} }
