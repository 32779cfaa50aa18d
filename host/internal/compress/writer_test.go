package compress_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/wasmendpoints/endpoints/host/internal/compress"
)

// jsonAnswer is a JSON array of n bytes or a little more, which
// compresses well.
func jsonAnswer(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user %d","email":"user%d@example.com","active":true}`, i, i, i)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// answer is what a test handler sends.
type answer struct {
	status int
	header map[string]string
	body   []byte
	split  bool // write the body in two halves
	flush  bool // flush between the halves
	noLen  bool // send no Content-Length (a stream)
}

func (a answer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range a.header {
		h.Set(k, v)
	}
	if !a.noLen && a.status != http.StatusNoContent && a.status != http.StatusNotModified {
		h.Set("Content-Length", strconv.Itoa(len(a.body)))
	}
	w.WriteHeader(a.status)
	if !a.split {
		_, _ = w.Write(a.body)
		return
	}
	half := len(a.body) / 2
	_, _ = w.Write(a.body[:half])
	if a.flush {
		_ = http.NewResponseController(w).Flush()
	}
	_, _ = w.Write(a.body[half:])
}

// got is what the client received, on the wire.
type got struct {
	status                       int
	encoding, vary, etag, length string
	body                         []byte // decoded
	wire                         int    // bytes on the wire
}

// fetch serves a through a Policy of o on a real HTTP server and requests
// it with the Accept-Encoding values.
func fetch(t *testing.T, o compress.Options, a http.Handler, method string, accept ...string) got {
	t.Helper()
	p, err := compress.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := p.Wrap(w, r)
		defer cw.Close()
		a.ServeHTTP(cw, r)
	}))
	defer srv.Close()
	req, err := http.NewRequest(method, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range accept {
		req.Header.Add("Accept-Encoding", v)
	}
	// The transport must not ask for gzip itself nor decode it.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	wire, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	g := got{status: res.StatusCode, encoding: res.Header.Get("Content-Encoding"), vary: strings.Join(res.Header.Values("Vary"), ", "),
		etag: res.Header.Get("ETag"), length: res.Header.Get("Content-Length"), body: wire, wire: len(wire)}
	switch g.encoding {
	case compress.Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(wire))
		if err != nil {
			t.Fatalf("the gzip answer does not decode: %v", err)
		}
		if g.body, err = io.ReadAll(zr); err != nil {
			t.Fatalf("the gzip answer does not decode: %v", err)
		}
	case compress.Zstd:
		zr, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(8<<20))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		if g.body, err = zr.DecodeAll(wire, nil); err != nil {
			t.Fatalf("the zstd answer does not decode within an 8 MiB window: %v", err)
		}
	}
	return g
}

func TestWriter(t *testing.T) {
	body := jsonAnswer(10 << 10)
	random := make([]byte, 4096)
	_, _ = rand.Read(random)
	jsonCT := map[string]string{"Content-Type": "application/json"}
	defaults := compress.Options{MinBytes: 1024, MaxBytes: 1 << 20, Level: compress.Default}
	tests := []struct {
		name     string
		opts     compress.Options
		answer   answer
		method   string
		accept   []string
		encoding string // "" for identity
		vary     bool
		etag     string // the ETag received, when the answer sets one
	}{
		{"gzip", defaults, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"gzip"}, compress.Gzip, true, ""},
		{"zstd", defaults, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"zstd, gzip;q=0.5"}, compress.Zstd, true, ""},
		{"a browser's: gzip", defaults, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"gzip, deflate, br, zstd"}, compress.Gzip, true, ""},
		{"zstd at the fastest level", compress.Options{MinBytes: 1024, Level: compress.Fastest}, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"zstd"}, compress.Zstd, true, ""},
		{"gzip at the best level", compress.Options{MinBytes: 1024, Level: compress.Best}, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"gzip"}, compress.Gzip, true, ""},
		{"no Accept-Encoding: identity, with Vary", defaults, answer{status: 200, header: jsonCT, body: body}, "GET", nil, "", true, ""},
		{"gzip;q=0: identity", defaults, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"gzip;q=0, identity"}, "", true, ""},
		{"identity preferred", defaults, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"zstd;q=0.1, gzip;q=0.1, identity"}, "", true, ""},
		{"a small answer is left alone", defaults, answer{status: 200, header: jsonCT, body: body[:1023]}, "GET", []string{"gzip"}, "", false, ""},
		{"the minimum size is compressed", defaults, answer{status: 200, header: jsonCT, body: jsonAnswer(1024)[:1024]}, "GET", []string{"gzip"}, compress.Gzip, true, ""},
		{"above the largest buffered answer", compress.Options{MinBytes: 1024, MaxBytes: 4096}, answer{status: 200, header: jsonCT, body: body}, "GET", []string{"gzip"}, "", false, ""},
		{"an image is left alone", defaults, answer{status: 200, header: map[string]string{"Content-Type": "image/png"}, body: body}, "GET", []string{"gzip"}, "", false, ""},
		{"a zip is left alone", defaults, answer{status: 200, header: map[string]string{"Content-Type": "application/zip"}, body: body}, "GET", []string{"gzip"}, "", false, ""},
		{"the handler's Content-Encoding is kept", defaults, answer{status: 200, header: map[string]string{"Content-Type": "application/json", "Content-Encoding": "br"}, body: body}, "GET", []string{"gzip"}, "br", false, ""},
		{"Cache-Control: no-transform", defaults, answer{status: 200, header: map[string]string{"Content-Type": "application/json", "Cache-Control": "public, no-transform"}, body: body}, "GET", []string{"gzip"}, "", false, ""},
		{"a stream is left alone", defaults, answer{status: 200, header: map[string]string{"Content-Type": "text/event-stream"}, body: body, split: true, flush: true, noLen: true}, "GET", []string{"gzip"}, "", false, ""},
		{"a body in two writes", defaults, answer{status: 200, header: jsonCT, body: body, split: true}, "GET", []string{"gzip"}, compress.Gzip, true, ""},
		{"a flush before the last byte sends it as it is", defaults, answer{status: 200, header: jsonCT, body: body, split: true, flush: true}, "GET", []string{"gzip"}, "", true, ""},
		{"incompressible bytes go out as they are", defaults, answer{status: 200, header: jsonCT, body: random}, "GET", []string{"zstd"}, "", true, ""},
		{"an error answer is compressed too", defaults, answer{status: 500, header: map[string]string{"Content-Type": "application/problem+json"}, body: body}, "GET", []string{"gzip"}, compress.Gzip, true, ""},
		{"HEAD", defaults, answer{status: 200, header: jsonCT, body: body}, "HEAD", []string{"gzip"}, "", true, ""},
		{"204", defaults, answer{status: 204}, "GET", []string{"gzip"}, "", false, ""},
		{"304 keeps Vary", defaults, answer{status: 304, header: map[string]string{"ETag": `"v1"`}}, "GET", []string{"gzip"}, "", true, `"v1"`},
		{"a compressed answer's ETag is weak", defaults, answer{status: 200, header: map[string]string{"Content-Type": "application/json", "ETag": `"v1"`}, body: body}, "GET", []string{"gzip"}, compress.Gzip, true, `W/"v1"`},
		{"an identity answer's ETag stays strong", defaults, answer{status: 200, header: map[string]string{"Content-Type": "application/json", "ETag": `"v1"`}, body: body}, "GET", nil, "", true, `"v1"`},
		{"a weak ETag stays as it is", defaults, answer{status: 200, header: map[string]string{"Content-Type": "application/json", "ETag": `W/"v1"`}, body: body}, "GET", []string{"zstd"}, compress.Zstd, true, `W/"v1"`},
		{"Vary is not repeated", defaults, answer{status: 200, header: map[string]string{"Content-Type": "application/json", "Vary": "Accept, accept-encoding"}, body: body}, "GET", []string{"gzip"}, compress.Gzip, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := fetch(t, tt.opts, tt.answer, tt.method, tt.accept...)
			if g.status != tt.answer.status {
				t.Errorf("status = %d, want %d", g.status, tt.answer.status)
			}
			if g.encoding != tt.encoding {
				t.Errorf("Content-Encoding = %q, want %q", g.encoding, tt.encoding)
			}
			if hasVary := strings.Contains(strings.ToLower(g.vary), "accept-encoding"); hasVary != tt.vary {
				t.Errorf("Vary = %q, want Accept-Encoding in it: %v", g.vary, tt.vary)
			}
			if strings.Count(strings.ToLower(g.vary), "accept-encoding") > 1 {
				t.Errorf("Vary = %q names Accept-Encoding twice", g.vary)
			}
			if tt.etag != "" && g.etag != tt.etag {
				t.Errorf("ETag = %q, want %q", g.etag, tt.etag)
			}
			if tt.method == "HEAD" || tt.answer.status == 204 || tt.answer.status == 304 {
				return
			}
			if !bytes.Equal(g.body, tt.answer.body) {
				t.Errorf("the decoded body (%d bytes) differs from the handler's (%d bytes)", len(g.body), len(tt.answer.body))
			}
			if !tt.answer.noLen && g.length != strconv.Itoa(g.wire) {
				t.Errorf("Content-Length = %q, but %d bytes came", g.length, g.wire)
			}
			if tt.encoding == compress.Gzip || tt.encoding == compress.Zstd {
				if g.wire >= len(tt.answer.body) {
					t.Errorf("the %s answer is %d bytes, no smaller than the %d of the identity", tt.encoding, g.wire, len(tt.answer.body))
				}
			}
		})
	}
}

// TestWriterShortBody: a handler that writes less than its Content-Length
// gets its bytes sent as they are when the writer closes, not held
// forever.
func TestWriterShortBody(t *testing.T) {
	p, err := compress.New(compress.Options{MinBytes: 16})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	cw := p.Wrap(rec, req)
	cw.Header().Set("Content-Type", "application/json")
	cw.Header().Set("Content-Length", "4096")
	cw.WriteHeader(http.StatusOK)
	_, _ = cw.Write([]byte(`{"partial":`))
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Fatalf("before Close: %d bytes went out, want the answer held", rec.Body.Len())
	}
	cw.Close()
	if got := rec.Body.String(); got != `{"partial":` || rec.Header().Get("Content-Encoding") != "" {
		t.Errorf("after Close: body %q, Content-Encoding %q; want the bytes as written, no encoding", got, rec.Header().Get("Content-Encoding"))
	}
}
