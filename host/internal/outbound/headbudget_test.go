package outbound

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/racedetector"
)

// headServer is a service that answers a request for /FIELDS/SIZE with
// FIELDS header fields (X-00000...) whose values have SIZE bytes, and a
// body of one byte it never sends: each response it gives holds its
// connection until the client closes it, as a hostile service's would.
// Each answer is made once, so that what a test measures of the heap is
// the client's. It returns the service's base URL.
func headServer(t testing.TB) string {
	var answers sync.Map // request line -> []byte
	p := rawServer(t, func(line string, conn net.Conn) {
		answer, ok := answers.Load(line)
		if !ok {
			var fields, size int
			fmt.Sscanf(line, "GET /%d/%d", &fields, &size)
			var b bytes.Buffer
			b.WriteString("HTTP/1.1 200 OK\r\n")
			value := strings.Repeat("a", size)
			for i := range fields {
				fmt.Fprintf(&b, "X-%05d: %s\r\n", i, value)
			}
			b.WriteString("Content-Length: 1\r\n\r\n")
			answer, _ = answers.LoadOrStore(line, b.Bytes())
		}
		if _, err := conn.Write(answer.([]byte)); err != nil {
			return
		}
		io.Copy(io.Discard, conn) // until the client closes
	})
	return "http://127.0.0.1:" + p
}

// rawHeadBytes is what headServer sends of a head of fields values of
// size bytes.
func rawHeadBytes(fields, size int) int {
	return len("HTTP/1.1 200 OK\r\n") + fields*len("X-00000: \r\n") + fields*size + len("Content-Length: 1\r\n\r\n")
}

// heapInUse is the bytes of live heap objects, after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// connOverhead is the most a connection of a test costs the heap besides
// its response's head: the transport's buffers and state, the test
// service's own (it runs in the test's process; together about 16 to
// 20 KiB, BenchmarkOpenResponse's held-B/resp less head-B), and a large
// head's allocation rounded up to the heap's 8 KiB pages.
const connOverhead = 32 << 10

// TestHeadIsTheResponsesJSON: the head the session writes itself is the
// JSON of abi.HTTPResponse as json.Marshal writes it (bytes that are not
// UTF-8 as U+FFFD), whatever the values hold, in a buffer hardly
// larger than itself.
func TestHeadIsTheResponsesJSON(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
	}{
		{"no headers", 204, http.Header{}},
		{"sorted, lower case, one pair a value", 200, http.Header{"X-B": {"2", "3"}, "Content-Type": {"text/plain"}, "X-A": {""}}},
		{"escapes", 404, http.Header{"X-Quote": {`say "hi" \ there`}, "X-Tab": {"a\tb"}, "X-Html": {"<a>&amp;</a>"}}},
		{"not UTF-8", 500, http.Header{"X-Latin1": {"caf\xe9"}, "X-Cut": {"\xe2\x82"}, "X-Utf8": {"€ ✓"}}},
		{"a large value", 200, http.Header{"Set-Cookie": {strings.Repeat("c", 5000)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := abi.HTTPResponse{Status: tc.status, Headers: [][2]string{}}
			for _, name := range slices.Sorted(maps.Keys(tc.header)) {
				for _, v := range tc.header[name] {
					want.Headers = append(want.Headers, [2]string{strings.ToLower(name), v})
				}
			}
			wantJSON, err := json.Marshal(want, jsontext.AllowInvalidUTF8(true))
			if err != nil {
				t.Fatal(err)
			}
			got := head(&http.Response{StatusCode: tc.status, Header: tc.header})
			if string(got) != string(wantJSON) {
				t.Errorf("head = %s\nwant   %s", got, wantJSON)
			}
			if cap(got)-len(got) > 64 {
				t.Errorf("the head's buffer has %d bytes for %d of JSON: the session would keep the spare ones", cap(got), len(got))
			}
		})
	}
}

// TestResponseHeadPastTheBoundIsRefused: a response whose status and
// headers pass abi.HTTPResponseHeaderMaxBytes as sent fails with the
// limit code, naming the bound, whether its fields are few and large or
// many and small; one within it is read. The host read 256 KiB of a
// response's head, which 5000 fields of one byte each made 2 MB of Go's
// allocations as they were parsed, and which a guest kept 50 of.
func TestResponseHeadPastTheBoundIsRefused(t *testing.T) {
	base := headServer(t)
	c := newClient(t, nil, Config{}, base)
	for _, tc := range []struct {
		name         string
		fields, size int
		refused      bool
	}{
		{"one large field within", 1, 60000, false},
		{"many fields within", 500, 100, false},
		{"many one-byte fields within", 5000, 1, false},
		{"one large field past it", 1, 70000, true},
		{"many fields past it", 700, 100, true},
		{"many one-byte fields past it", 6000, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if raw := rawHeadBytes(tc.fields, tc.size); raw > abi.HTTPResponseHeaderMaxBytes != tc.refused {
				t.Fatalf("the case's head has %d bytes: fix the case", raw)
			}
			s := session(t, c, Limits{})
			h, err := s.Send(req("GET", fmt.Sprintf("%s/%d/%d", base, tc.fields, tc.size)), nil)
			switch {
			case !tc.refused && err != nil:
				t.Fatalf("%v, want it read", err)
			case !tc.refused:
				head, _ := s.Response(h)
				var got abi.HTTPResponse
				if err := json.Unmarshal(head, &got); err != nil || len(got.Headers) != tc.fields+1 {
					t.Errorf("the head has %d headers (%v), want %d", len(got.Headers), err, tc.fields+1)
				}
			case err == nil:
				t.Fatal("the response was read, want it refused")
			case err.Code != abi.HTTPErrorLimit || err.Errno() != abi.ErrLimit ||
				!strings.Contains(err.Message, fmt.Sprintf("passed %d bytes", abi.HTTPResponseHeaderMaxBytes)) ||
				!strings.Contains(err.Message, "abi.HTTPResponseHeaderMaxBytes"):
				t.Errorf("%v, want the limit code naming abi.HTTPResponseHeaderMaxBytes", err)
			}
		})
	}
}

// TestResponseHeadBoundOverHTTP2: over HTTP/2 the bound is the header
// list's (RFC 9113 counts 32 bytes a field besides its name and value):
// a list within it is read, one past it fails with the limit code, and
// one far past it, whose frames Go stops reading, fails as a protocol
// error that names the bound.
func TestResponseHeadBoundOverHTTP2(t *testing.T) {
	ca := newTestCA(t, "127.0.0.1")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var fields, size int
		fmt.Sscanf(r.URL.Path, "/%d/%d", &fields, &size)
		for i := range fields {
			w.Header().Set(fmt.Sprintf("X-%05d", i), strings.Repeat("a", size))
		}
		io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := newClient(t, nil, Config{CAs: ca.pem}, srv.URL)
	for _, tc := range []struct {
		path       string
		code, says string // "" when read
	}{
		{"/400/100", "", ""},
		{"/500/100", abi.HTTPErrorLimit, fmt.Sprintf("passed %d bytes", abi.HTTPResponseHeaderMaxBytes)},
		{"/2000/100", abi.HTTPErrorProtocol, "abi.HTTPResponseHeaderMaxBytes"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body, err := get(t, session(t, c, Limits{}), srv.URL+tc.path)
			switch {
			case tc.code == "" && (err != nil || status != 200 || body != "HTTP/2.0"):
				t.Errorf("%d %q %v, want 200 over HTTP/2.0", status, body, err)
			case tc.code != "" && (err == nil || err.Code != tc.code || !strings.Contains(err.Message, tc.says)):
				t.Errorf("%v, want %s saying %q", err, tc.code, tc.says)
			}
		})
	}
}

// TestOpenResponsesHeadsAreBounded: a listed service that answers every
// request with 60 KiB of header fields cannot make one call hold more
// than HeaderBytes of heads: the call's 50 requests are sent, those
// whose heads would pass the bound fail with the limit code naming
// limits.outboundHeaderBytes, and what the session keeps (its count, and
// the heap the process holds for it) stays within the bound; a closed
// response gives its bytes back. Before the bound, such a call held 50
// heads and Go's header map of each: some 12 MB, 68 MB at 256 KiB a head.
func TestOpenResponsesHeadsAreBounded(t *testing.T) {
	const budget = 1 << 20
	base := headServer(t)
	url := base + "/500/100" // 56 KiB as sent
	c := newClient(t, nil, Config{}, base)
	s := sessionFor(t, time.Minute, c, Limits{Requests: 50, HeaderBytes: budget})
	before := heapInUse()
	var open []int32
	refused := 0
	for range 50 {
		h, err := s.Send(req("GET", url), nil)
		if err != nil {
			refused++
			if err.Code != abi.HTTPErrorLimit || !strings.Contains(err.Message, fmt.Sprintf("more than the %d of limits.outboundHeaderBytes", budget)) {
				t.Fatalf("request %d: %v, want the limit code naming limits.outboundHeaderBytes", len(open)+refused, err)
			}
			continue
		}
		open = append(open, h)
		if s.held > budget {
			t.Fatalf("after %d open responses the session holds %d bytes of heads, past its %d", len(open), s.held, budget)
		}
	}
	var sum int64
	for _, h := range open {
		head, _ := s.Response(h)
		sum += int64(len(head))
	}
	if sum != s.held {
		t.Errorf("the session counts %d bytes of heads, its open responses hold %d", s.held, sum)
	}
	if refused == 0 || len(open) == 0 || sum+sum/int64(len(open)) <= budget {
		t.Errorf("%d responses open (%d bytes of heads), %d refused: want the bound reached, and every response that fits it open", len(open), sum, refused)
	}
	if !racedetector.Enabled {
		// The race detector's shadow memory would count too.
		// The refused responses' connections may not all be gone yet.
		if held := heapInUse() - before; held > budget+50*connOverhead {
			t.Errorf("the call's %d open responses hold %d bytes of the heap, more than the bound (%d) and %d for each of its 50 connections",
				len(open), held, budget, connOverhead)
		}
	}
	// A closed response makes room for the next.
	s.CloseHandle(open[0])
	if s.held != sum-sum/int64(len(open)) {
		t.Errorf("after a close the session counts %d bytes of heads, want %d", s.held, sum-sum/int64(len(open)))
	}
	s.limits.Requests = 0 // the 50 are sent
	if _, err := s.Send(req("GET", url), nil); err != nil {
		t.Errorf("after a close: %v, want the response read", err)
	}
}

// TestOrdinaryResponsesFitTheHeadBound: the default bound (1 MiB, the
// setting's default) leaves a call's 50 ordinary responses open at once,
// their heads whole.
func TestOrdinaryResponsesFitTheHeadBound(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "private, max-age=0")
		w.Header().Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		w.Header().Set("Set-Cookie", "session="+strings.Repeat("s", 400)+"; Path=/; Secure; HttpOnly")
		w.Header().Set("X-Request-Id", strings.Repeat("r", 36))
		io.WriteString(w, `{"ok":true}`)
	})
	url := "http://127.0.0.1:" + port(srv) + "/"
	c := newClient(t, nil, Config{}, url)
	s := sessionFor(t, time.Minute, c, Limits{Requests: 50, HeaderBytes: 1 << 20})
	for i := range 50 {
		h, err := s.Send(req("GET", url), nil)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		head, _ := s.Response(h)
		var got abi.HTTPResponse
		if err := json.Unmarshal(head, &got); err != nil || got.Status != 200 || len(got.Headers) != 7 {
			t.Fatalf("request %d: head %s (%v), want status 200 and 7 headers", i, head, err)
		}
	}
}

// BenchmarkOpenResponse measures what one open response costs the host,
// by the shape of its head (fields x bytes a value): the bytes of its
// head JSON (head-B), of the heap it holds while open (held-B/resp, head
// included) and of Go's allocations to read it (alloc-B/resp, the
// parsing's garbage included), over 10 responses open at once.
//
//	go test ./host/internal/outbound -run '^$' -bench OpenResponse -benchtime 20x
func BenchmarkOpenResponse(b *testing.B) {
	base := headServer(b)
	c := newClient(b, nil, Config{}, base)
	for _, shape := range [][2]int{{10, 10}, {1, 60000}, {500, 100}, {2000, 20}, {5000, 1}} {
		b.Run(fmt.Sprintf("%dx%d", shape[0], shape[1]), func(b *testing.B) {
			url := fmt.Sprintf("%s/%d/%d", base, shape[0], shape[1])
			var head, held, alloc, n int64
			for b.Loop() {
				s := &Session{}
				s.Start(b.Context(), time.Now().Add(time.Minute), nil, c, Limits{}, nil)
				before := heapInUse()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				for range 10 {
					h, err := s.Send(req("GET", url), nil)
					if err != nil {
						b.Fatal(err)
					}
					hd, _ := s.Response(h)
					head = int64(len(hd))
				}
				runtime.ReadMemStats(&m1)
				alloc += int64(m1.TotalAlloc - m0.TotalAlloc)
				held += heapInUse() - before
				n += 10
				s.Close()
			}
			b.ReportMetric(float64(head), "head-B")
			b.ReportMetric(float64(held/n), "held-B/resp")
			b.ReportMetric(float64(alloc/n), "alloc-B/resp")
		})
	}
}
