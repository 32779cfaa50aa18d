package postgres

import (
	"net"
	"sync"
	"testing"
)

// SilentServer listens on a loopback port and accepts connections it
// holds open and never answers (a host that hangs, a proxy whose backend
// is gone), until the test ends; the tests of this package and of
// postgres_test use it.
func SilentServer(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return l
}
