//go:build !unix

package appfile

// openFlags: no FIFOs to open without blocking here.
const openFlags = 0
