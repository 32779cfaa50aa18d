//go:build !linux

package pipelining

// count sets c.n to -1: only Linux is asked how many bytes wait.
func (c *conn) count(fd uintptr) { c.n = -1 }
