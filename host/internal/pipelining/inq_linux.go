package pipelining

import "golang.org/x/sys/unix"

// count sets c.n to the bytes waiting in the socket fd (SIOCINQ), or -1.
func (c *conn) count(fd uintptr) {
	n, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ)
	if err != nil {
		n = -1
	}
	c.n = n
}
