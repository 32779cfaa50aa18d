package host_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestPipelinedFloodClosed sends junk requests of BenchmarkJunkKeyFlood
// pipelined, three in one write, to Host.HTTPServer over TCP. A
// connection whose next request is already there when the host starts on
// one never waits for the network, and the Go scheduler then looks for
// other clients' requests only every 10 ms: a few such connections took
// the good requests' median from about 2 ms to 75-90 ms on a server of one core.
// By default (server.pipelining "close") the first answer says
// Connection: close and the connection ends; with "serve", the three are
// answered in turn on the connection, as net/http does. Either way every
// answer is right and another client is served.
func TestPipelinedFloodClosed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pipelining string
		trusted    bool // the client is a trusted proxy
		answers    int  // of the three
		closed     bool // after them
	}{
		{"", false, 1, true}, // the default
		{config.PipeliningClose, false, 1, true},
		{config.PipeliningServe, false, 3, false},
		// A trusted proxy's connection is left alone, as
		// server.refusalPause leaves it.
		{config.PipeliningClose, true, 3, false},
	} {
		name := "pipelining=" + c.pipelining
		if c.trusted {
			name += ",trusted"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := host.Options{Mode: host.Production, Logger: discardLogger()}
			if c.pipelining != "" {
				opts.ConfigOverrides = []config.Override{{Pointer: "/server/pipelining", Value: c.pipelining, Source: "test"}}
			}
			if c.trusted {
				opts.ConfigOverrides = append(opts.ConfigOverrides, config.Override{Pointer: "/trustedProxies", Value: `["127.0.0.1"]`, Source: "test"})
			}
			h, _ := junkFloodApp(t).host(opts)
			addr := serveTCP(t, h)
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(30 * time.Second)) // the test's own bound
			req, err := newJunkRequest(addr, "pipeline", config.DefaultMaxHeaderBytes)
			if err != nil {
				t.Fatal(err)
			}
			var pipeline []byte
			for n := range uint64(3) {
				putHex(req.raw[req.keyAt:req.keyAt+16], n)
				putHex(req.raw[req.clientAt:req.clientAt+16], n)
				pipeline = append(pipeline, req.raw...)
			}
			if _, err := conn.Write(pipeline); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(conn)
			answered := 0
			for range 3 {
				res, err := http.ReadResponse(r, nil)
				if err != nil {
					break
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 201 {
					t.Errorf("answer %d: %d %s, want 201", answered+1, res.StatusCode, body)
				}
				answered++
				if res.Close {
					break
				}
			}
			// A closed connection reads EOF (or a reset); an open one
			// answers another request.
			putHex(req.raw[req.keyAt:req.keyAt+16], 3)
			putHex(req.raw[req.clientAt:req.clientAt+16], 3)
			_, err = conn.Write(req.raw)
			if err == nil {
				var res *http.Response
				if res, err = http.ReadResponse(r, nil); err == nil {
					res.Body.Close()
				}
			}
			if closed := err != nil; answered != c.answers || closed != c.closed {
				t.Errorf("%d answers, then the connection closed: %v (%v); want %d, %v", answered, closed, err, c.answers, c.closed)
			}
			// Another client is served.
			post, _ := http.NewRequest("POST", "http://"+addr+"/api/orders", strings.NewReader(floodBody))
			post.Header.Set("Content-Type", "application/json")
			post.Header.Set("X-Client", "good")
			post.Header.Set("Idempotency-Key", "good")
			res, err := fromAddress(t, "127.0.0.4").Do(post)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 201 {
				t.Errorf("another client's POST: %d %s, want 201", res.StatusCode, body)
			}
		})
	}
}
