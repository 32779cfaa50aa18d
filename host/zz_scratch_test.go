package host_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

func TestZZScratch(t *testing.T) {
	for _, st := range []int{100, 101, 103, 199} {
		data, write := watWrite(4096, "hi")
		a := newApp(t).wat("server/api/x.get.wasm", watModule{handle: fmt.Sprintf("(drop (call $set_status (i32.const %d))) %s (i32.const 0)", st, write), extra: data})
		srv, logs := a.serve(host.Options{})
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /api/x HTTP/1.1\r\nHost: x\r\n\r\nGET /api/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		b, _ := io.ReadAll(bufio.NewReader(c))
		c.Close()
		t.Logf("status %d:\n%s\nlogs: %s", st, strings.ReplaceAll(string(b), "\r", ""), logs.String())
	}
}
