package host_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/cputime"
)

// listJSON is a JSON array of about n bytes, as a list endpoint answers.
func listJSON(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user %d","email":"user%d@example.com"}`, i, i, i)
	}
	b.WriteByte(']')
	return b.String()
}

// wire is an answer as it came over the connection, and its body
// decoded.
type wire struct {
	status  int
	header  http.Header
	raw     []byte
	decoded string
}

// fetchWire requests path with the headers (pairs) and no help from the
// transport: it neither asks for gzip nor decodes it.
func fetchWire(t *testing.T, srv *httptest.Server, method, path, body string, headers ...string) wire {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	w := wire{status: res.StatusCode, header: res.Header, raw: raw, decoded: string(raw)}
	switch res.Header.Get("Content-Encoding") {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s %s: the gzip answer does not decode: %v", method, path, err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s %s: the gzip answer does not decode: %v", method, path, err)
		}
		w.decoded = string(out)
	case "zstd":
		zr, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(8<<20))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		out, err := zr.DecodeAll(raw, nil)
		if err != nil {
			t.Fatalf("%s %s: the zstd answer does not decode: %v", method, path, err)
		}
		w.decoded = string(out)
	}
	if method != "HEAD" && res.Header.Get("Content-Length") != "" && res.Header.Get("Content-Length") != strconv.Itoa(len(raw)) {
		t.Errorf("%s %s: Content-Length %s, but %d bytes came", method, path, res.Header.Get("Content-Length"), len(raw))
	}
	return w
}

// compressApp serves a 10 KB JSON list, a small answer, a 10 KB text
// stream and an idempotent POST answering the 10 KB list.
func compressApp(t *testing.T, opts host.Options) (*httptest.Server, string) {
	t.Helper()
	list := listJSON(10 << 10)
	data, write := watWrite(4096, list)
	smallData, writeSmall := watWrite(4096, `{"ok":true}`)
	srv, _ := newApp(t).
		wat("server/api/users.get.wasm", watModule{contract: `{"responses": {"200": {"schema": {"type": "array"}}}}`, extra: data,
			handle: write + ` (i32.const 0)`}).
		wat("server/api/small.get.wasm", watModule{contract: `{"responses": {"200": {"schema": {"type": "object"}}}}`, extra: smallData,
			handle: writeSmall + ` (i32.const 0)`}).
		wat("server/api/export.get.wasm", watModule{contract: `{"responses": {"200": {"media": ["text/plain"]}}}`, extra: data,
			handle: write + ` (i32.const 0)`}).
		wat("server/api/users.post.wasm", watModule{contract: `{"request": {"body": {"schema": {"type": "object"}}},
			"responses": {"201": {"schema": {"type": "array"}}}, "idempotency": {"required": true}}`, extra: data,
			handle: `(drop (call $set_status (i32.const 201))) ` + write + ` (i32.const 0)`}).
		serve(opts)
	return srv, list
}

func TestCompressAnswers(t *testing.T) {
	t.Parallel()
	srv, list := compressApp(t, host.Options{Mode: host.Development})
	tests := []struct {
		name, path, method string
		accept             string // Accept-Encoding; "" sends none
		wantEncoding       string
		wantVary           bool
		wantBody           string
	}{
		{"gzip", "/api/users", "GET", "gzip", "gzip", true, list},
		{"a browser's: gzip", "/api/users", "GET", "gzip, deflate, br, zstd", "gzip", true, list},
		{"zstd", "/api/users", "GET", "zstd, gzip;q=0.5", "zstd", true, list},
		{"identity asked", "/api/users", "GET", "identity", "", true, list},
		{"no Accept-Encoding", "/api/users", "GET", "", "", true, list},
		{"gzip;q=0", "/api/users", "GET", "gzip;q=0", "", true, list},
		{"zstd;q=0 leaves gzip", "/api/users", "GET", "zstd;q=0, gzip;q=0.5", "gzip", true, list},
		{"HEAD is never compressed", "/api/users", "HEAD", "gzip", "", true, ""},
		{"a small answer is left alone", "/api/small", "GET", "gzip", "", false, `{"ok":true}`},
		{"a stream is left alone", "/api/export", "GET", "gzip, zstd", "", false, list},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.accept != "" {
				headers = []string{"Accept-Encoding", tt.accept}
			}
			got := fetchWire(t, srv, tt.method, tt.path, "", headers...)
			if got.status != 200 {
				t.Fatalf("status %d %s", got.status, got.raw)
			}
			if enc := got.header.Get("Content-Encoding"); enc != tt.wantEncoding {
				t.Errorf("Content-Encoding %q, want %q", enc, tt.wantEncoding)
			}
			if vary := strings.Join(got.header.Values("Vary"), ", "); strings.Contains(vary, "Accept-Encoding") != tt.wantVary {
				t.Errorf("Vary %q, want Accept-Encoding in it: %v", vary, tt.wantVary)
			}
			if got.decoded != tt.wantBody {
				t.Errorf("body (decoded) is %d bytes, want the handler's %d", len(got.decoded), len(tt.wantBody))
			}
			if tt.wantEncoding != "" && len(got.raw) >= len(tt.wantBody)/4 {
				t.Errorf("%s answer of %d bytes for %d: want it well compressed", tt.wantEncoding, len(got.raw), len(tt.wantBody))
			}
			if tt.method == "HEAD" && got.header.Get("Content-Length") != strconv.Itoa(len(list)) {
				t.Errorf("HEAD Content-Length %q, want the identity length %d", got.header.Get("Content-Length"), len(list))
			}
		})
	}
}

// TestCompressOff: server.compression.off sends every answer as the
// handler wrote it, without Vary.
func TestCompressOff(t *testing.T) {
	t.Parallel()
	srv, list := compressApp(t, host.Options{Mode: host.Development, ConfigOverrides: []config.Override{
		{Pointer: "/server/compression/off", Value: "true", Source: "ENDPOINTS_SERVER_COMPRESSION_OFF"}}})
	got := fetchWire(t, srv, "GET", "/api/users", "", "Accept-Encoding", "gzip, zstd")
	if got.header.Get("Content-Encoding") != "" || len(got.header.Values("Vary")) != 0 || got.decoded != list {
		t.Errorf("Content-Encoding %q, Vary %q, %d bytes: want the identity answer of %d bytes, no Vary",
			got.header.Get("Content-Encoding"), got.header.Values("Vary"), len(got.raw), len(list))
	}
}

// TestCompressMinBytes: server.compression.minBytes moves the threshold.
func TestCompressMinBytes(t *testing.T) {
	t.Parallel()
	srv, _ := compressApp(t, host.Options{Mode: host.Development, ConfigOverrides: []config.Override{
		{Pointer: "/server/compression/minBytes", Value: "64KiB", Source: "test"}}})
	if got := fetchWire(t, srv, "GET", "/api/users", "", "Accept-Encoding", "gzip"); got.header.Get("Content-Encoding") != "" {
		t.Errorf("Content-Encoding %q for a 10 KB answer under a 64 KiB minimum, want none", got.header.Get("Content-Encoding"))
	}
}

// TestCompressReplay: the idempotency store keeps the identity answer, so
// a replay is compressed (or not) for the client that asks again.
func TestCompressReplay(t *testing.T) {
	t.Parallel()
	srv, list := compressApp(t, host.Options{Mode: host.Development})
	post := func(accept string) wire {
		return fetchWire(t, srv, "POST", "/api/users", `{"name":"ada"}`, "Content-Type", "application/json", "Idempotency-Key", "k-1", "Accept-Encoding", accept)
	}
	first := post("gzip")
	if first.status != 201 || first.header.Get("Content-Encoding") != "gzip" || first.decoded != list {
		t.Fatalf("first: %d, Content-Encoding %q, %d bytes decoded; want 201, gzip, the list", first.status, first.header.Get("Content-Encoding"), len(first.decoded))
	}
	for _, tt := range []struct{ accept, want string }{{"zstd", "zstd"}, {"identity", ""}, {"gzip", "gzip"}} {
		again := post(tt.accept)
		if again.status != 201 || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay for %q: %d, Idempotent-Replayed %q; want 201, a replay", tt.accept, again.status, again.header.Get("Idempotent-Replayed"))
		}
		if enc := again.header.Get("Content-Encoding"); enc != tt.want || again.decoded != list {
			t.Errorf("replay for %q: Content-Encoding %q, %d bytes decoded; want %q and the list", tt.accept, enc, len(again.decoded), tt.want)
		}
		if !strings.Contains(strings.Join(again.header.Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("replay for %q: Vary %q, want Accept-Encoding", tt.accept, again.header.Values("Vary"))
		}
	}
}

// TestCompressETag: the OpenAPI document's compressed answer carries a
// weak ETag, never the identity answer's strong one, and the weak tag
// still revalidates (304, with Vary).
func TestCompressETag(t *testing.T) {
	t.Parallel()
	srv, _ := compressApp(t, host.Options{Mode: host.Development})
	plain := fetchWire(t, srv, "GET", config.DefaultOpenAPIPath, "")
	strong := plain.header.Get("ETag")
	if plain.status != 200 || !strings.HasPrefix(strong, `"`) || plain.header.Get("Content-Encoding") != "" || len(plain.raw) < 1024 {
		t.Fatalf("identity document: %d, ETag %q, Content-Encoding %q, %d bytes; want 200, a strong ETag, identity, over 1 KiB",
			plain.status, strong, plain.header.Get("Content-Encoding"), len(plain.raw))
	}
	gz := fetchWire(t, srv, "GET", config.DefaultOpenAPIPath, "", "Accept-Encoding", "gzip")
	if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("ETag") != "W/"+strong || gz.decoded != string(plain.raw) {
		t.Fatalf("gzip document: Content-Encoding %q, ETag %q; want gzip and W/%s, the same document", gz.header.Get("Content-Encoding"), gz.header.Get("ETag"), strong)
	}
	for _, tag := range []string{"W/" + strong, strong} {
		res := fetchWire(t, srv, "GET", config.DefaultOpenAPIPath, "", "Accept-Encoding", "gzip", "If-None-Match", tag)
		if res.status != http.StatusNotModified || len(res.raw) != 0 || !strings.Contains(strings.Join(res.header.Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("If-None-Match %s: %d, %d bytes, Vary %q; want 304, empty, Vary: Accept-Encoding", tag, res.status, len(res.raw), res.header.Values("Vary"))
		}
	}
}

// BenchmarkCompressRequest is the CPU of a whole request to an endpoint
// answering 10 KB of JSON, sent as it is and compressed at the default
// level: compare the cpu-ns/op (the process's CPU time per request,
// which other processes on the cores disturb less than ns/op) of the
// cases of one run. B/answer is what goes on the wire.
//
//	go test ./host -run '^$' -bench CompressRequest -benchtime 2000x
func BenchmarkCompressRequest(b *testing.B) {
	list := listJSON(10 << 10)
	data, write := watWrite(4096, list)
	h, _ := newApp(b).
		wat("server/api/users.get.wasm", watModule{contract: `{"responses": {"200": {"schema": {"type": "array"}}}}`, extra: data,
			handle: write + ` (i32.const 0)`}).
		host(host.Options{})
	for _, accept := range []string{"identity", "gzip", "zstd"} {
		b.Run(accept, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/api/users", nil)
			req.Header.Set("Accept-Encoding", accept)
			var wire int
			b.ReportAllocs()
			start := cputime.Process()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
				wire = rec.Body.Len()
			}
			b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(wire), "B/answer")
		})
	}
}

// TestCompressOptions: an embedder's Options.Server.Compression wins over
// the file field by field, and a level the file could not have is refused
// naming the option.
func TestCompressOptions(t *testing.T) {
	t.Parallel()
	srv, list := compressApp(t, host.Options{Mode: host.Development, Server: config.Server{Compression: config.Compression{Off: true}}})
	if got := fetchWire(t, srv, "GET", "/api/users", "", "Accept-Encoding", "gzip"); got.header.Get("Content-Encoding") != "" || got.decoded != list {
		t.Errorf("Options.Server.Compression.Off: Content-Encoding %q, want the identity answer", got.header.Get("Content-Encoding"))
	}
	_, err := host.New(t.Context(), newApp(t).dir, host.Options{CacheDir: testCacheDir(t), Server: config.Server{Compression: config.Compression{Level: "max"}}})
	if err == nil || !strings.Contains(err.Error(), "Options.Server.Compression.Level") || !strings.Contains(err.Error(), `"fastest"`) {
		t.Errorf("host.New with level \"max\" = %v, want an error naming Options.Server.Compression.Level and the levels", err)
	}
}
