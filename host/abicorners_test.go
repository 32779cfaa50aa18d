package host_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestRequestValueCorners pins the corners of request_value and
// request_header that abi/README.md §3 states: only top-level body
// members are selected, header names are case-insensitive in both, a
// value exactly filling the buffer is written, one larger than the buffer
// is not, and a negative length traps the call. Each row is a module that
// makes one call and answers its result (4 bytes, little-endian) and the
// 16 bytes of its buffer, which start as dots.
func TestRequestValueCorners(t *testing.T) {
	t.Parallel()
	const contract = `{"request":{"headers":{"type":"object","properties":{"x-trace":{"type":"string"}}},` +
		`"body":{"schema":{"type":"object"}}},"responses":{"200":{"description":"bytes","media":["application/octet-stream"]}}}`
	rows := []struct {
		name    string
		call    string // the function and its arguments before the buffer
		name_   string // the name passed, at 8192
		bufLen  int32
		status  int
		n       int32  // the result
		buf     string // the buffer after the call
		wantLog string // for a trap
	}{
		{name: "declared header, lower case", call: "request_value (i32.const 2)", name_: "x-trace", bufLen: 16, status: 200, n: 7, buf: `"hello".........`},
		{name: "declared header, any case", call: "request_value (i32.const 2)", name_: "X-Trace", bufLen: 16, status: 200, n: 7, buf: `"hello".........`},
		{name: "raw header, any case", call: "request_header", name_: "X-TRACE", bufLen: 16, status: 200, n: 5, buf: "hello..........."},
		{name: "top-level body member", call: "request_value (i32.const 3)", name_: "a", bufLen: 16, status: 200, n: 7, buf: `{"b":1}.........`},
		{name: "a dotted name is a member's name", call: "request_value (i32.const 3)", name_: "a.b", bufLen: 16, status: 200, n: 1, buf: "2..............."},
		{name: "nested body member, pointer", call: "request_value (i32.const 3)", name_: "/a/b", bufLen: 16, status: 200, n: -1, buf: "................"},
		{name: "value exactly filling the buffer", call: "request_value (i32.const 2)", name_: "x-trace", bufLen: 7, status: 200, n: 7, buf: `"hello".........`},
		{name: "value one byte too large", call: "request_value (i32.const 2)", name_: "x-trace", bufLen: 6, status: 200, n: 7, buf: "................"},
		{name: "request_value, negative buffer length", call: "request_value (i32.const 2)", name_: "x-trace", bufLen: -1, status: 500,
			wantLog: "request_value: guest passed a negative length (-1)"},
		{name: "request_header, negative buffer length", call: "request_header", name_: "x-trace", bufLen: -1, status: 500,
			wantLog: "request_header: guest passed a negative length (-1)"},
	}
	a := newApp(t)
	for i, row := range rows {
		handle := fmt.Sprintf(`(memory.fill (i32.const 16384) (i32.const 46) (i32.const 16))
    (i32.store (i32.const 16380) (call $%s (i32.const 8192) (i32.const %d) (i32.const 16384) (i32.const %d)))
    (drop (call $write (i32.const 16380) (i32.const 20)))
    (i32.const 0)`, row.call, len(row.name_), row.bufLen)
		a.wat(fmt.Sprintf("server/api/v%d.post.wasm", i), watModule{contract: contract, handle: handle,
			extra: fmt.Sprintf("  (data (i32.const 8192) %q)\n", row.name_)})
	}
	srv, logs := a.serve(host.Options{Mode: host.Development})
	for i, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			got := do(t, srv, "POST", fmt.Sprintf("/api/v%d", i), `{"a":{"b":1},"a.b":2}`, "Content-Type", "application/json", "X-Trace", "hello")
			if got.status != row.status {
				t.Fatalf("status %d %q, want %d", got.status, got.body, row.status)
			}
			if row.status != 200 {
				if !strings.Contains(logs.String(), row.wantLog) {
					t.Errorf("the log does not say %q:\n%s", row.wantLog, logs)
				}
				return
			}
			if len(got.body) != 20 {
				t.Fatalf("body %q, want 20 bytes", got.body)
			}
			if n := int32(binary.LittleEndian.Uint32([]byte(got.body[:4]))); n != row.n || got.body[4:] != row.buf {
				t.Errorf("result %d, buffer %q; want %d, %q", n, got.body[4:], row.n, row.buf)
			}
		})
	}
}

// TestNoContentBodyDropped: a body written with a 204 or 304 answer is
// dropped (RFC 9110 §15.3.5 and §15.4.5), quietly and alike for an
// endpoint and a plain route: response_write returns 0, not -5 as if the
// client went away.
func TestNoContentBodyDropped(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	for _, status := range []int{204, 304} {
		// The handler fails (returns 7) when response_write does not
		// answer 0.
		handle := fmt.Sprintf(`(drop (call $set_status (i32.const %d)))
    (if (call $write (i32.const 8192) (i32.const 5)) (then (return (i32.const 7))))
    (i32.const 0)`, status)
		extra := `  (data (i32.const 8192) "hello")` + "\n"
		a.wat(fmt.Sprintf("server/routes/plain%d.get.wasm", status), watModule{handle: handle, extra: extra})
		a.wat(fmt.Sprintf("server/api/endpoint%d.get.wasm", status), watModule{handle: handle, extra: extra,
			contract: fmt.Sprintf(`{"responses":{"%d":{"description":"nothing"}}}`, status)})
	}
	srv, logs := a.serve(host.Options{Mode: host.Development})
	for _, path := range []string{"/api/endpoint204", "/api/endpoint304", "/plain204", "/plain304"} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Errorf("GET %s: %v\n%s", path, err, logs)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got := response{status: res.StatusCode, body: string(body)}
		if want := path[len(path)-3:]; fmt.Sprint(got.status) != want || got.body != "" {
			t.Errorf("GET %s = %d %q, want %s without a body", path, got.status, got.body, want)
		}
	}
	if strings.Contains(logs.String(), "returned error code 7") || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("response_write failed after a 204 or 304:\n%s", logs)
	}
}

// TestInformationalStatusRefused: response_set_status refuses a 1xx, which
// is no answer: net/http sent a 100, 103 or 199 as an interim response
// and then an empty 200 in place of what the guest wrote, and a 101
// (Switching Protocols, with no Upgrade) left the connection in HTTP/1.1
// for the client's next requests while telling any proxy between that it
// had switched, which a proxy that tunnels after a 101 opens to a client.
// The guest gets -2 and its answer goes out with its status unchanged.
func TestInformationalStatusRefused(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	for _, status := range []int{100, 101, 103, 199} {
		// The handler writes "refused" when response_set_status fails.
		handle := fmt.Sprintf(`(if (i32.eq (call $set_status (i32.const %d)) (i32.const -2))
      (then (drop (call $write (i32.const 8192) (i32.const 7)))))
    (i32.const 0)`, status)
		extra := `  (data (i32.const 8192) "refused")` + "\n"
		a.wat(fmt.Sprintf("server/routes/plain%d.get.wasm", status), watModule{handle: handle, extra: extra})
		a.wat(fmt.Sprintf("server/api/endpoint%d.get.wasm", status), watModule{handle: handle, extra: extra})
	}
	srv, logs := a.serve(host.Options{})
	for _, status := range []int{100, 101, 103, 199} {
		for _, path := range []string{fmt.Sprintf("/plain%d", status), fmt.Sprintf("/api/endpoint%d", status)} {
			// Raw, so that an interim answer before the final one shows.
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
			raw, err := io.ReadAll(c)
			c.Close()
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			got := string(raw)
			if !strings.HasPrefix(got, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(got, "\r\n\r\nrefused") {
				t.Errorf("GET %s, the guest setting %d:\n%s\nwant 200 \"refused\" alone (response_set_status -2)\n%s", path, status, got, logs)
			}
		}
	}
}
