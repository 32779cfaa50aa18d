package host_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

const mediaContract = `{"summary":"media","responses":{"200":{"description":"a picture","media":["image/png","image/svg+xml"]},"404":{"description":"none","schema":{"type":"object"}}}}`

// spin is a WAT loop of n iterations: long enough to see that earlier
// chunks reached the client before the handler finished.
func spin(n int) string {
	return `(local.set $n (i32.const ` + itoa(n) + `)) (block $done (loop $l (br_if $done (i32.eqz (local.get $n))) (local.set $n (i32.sub (local.get $n) (i32.const 1))) (br $l)))`
}

func TestMediaAnswersStream(t *testing.T) {
	t.Parallel()
	first, writeFirst := watWrite(4096, "first\n")
	second, writeSecond := watWrite(4200, "second\n")
	srv, logs := newApp(t).
		wat("server/api/slow.get.wasm", watModule{contract: mediaContract, extra: first + second,
			handle: writeFirst + spin(400000000) + writeSecond + ` (i32.const 0)`}).
		wat("server/api/forever.get.wasm", watModule{contract: mediaContract, extra: first,
			handle: writeFirst + `(loop $l (br $l)) (i32.const 0)`}).
		wat("server/api/trap.get.wasm", watModule{contract: mediaContract, extra: first,
			handle: writeFirst + `(unreachable)`}).
		// A deadline far past the spin's time even on a loaded machine.
		serve(host.Options{Mode: host.Development, Limits: config.Limits{Timeout: config.Duration(time.Minute)}})

	t.Run("chunks reach the client before the handler ends", func(t *testing.T) {
		start := time.Now()
		res, err := http.Get(srv.URL + "/api/slow")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if ct := res.Header.Get("Content-Type"); ct != "image/png" || res.Header.Get("Content-Length") != "" {
			t.Errorf("Content-Type %q, Content-Length %q: want the first declared type and no length", ct, res.Header.Get("Content-Length"))
		}
		rd := bufio.NewReader(res.Body)
		line, err := rd.ReadString('\n')
		firstAt := time.Since(start)
		if err != nil || line != "first\n" {
			t.Fatalf("first chunk %q, %v", line, err)
		}
		rest, _ := io.ReadAll(rd)
		endAt := time.Since(start)
		if string(rest) != "second\n" {
			t.Fatalf("rest %q", rest)
		}
		if endAt-firstAt < 100*time.Millisecond {
			t.Errorf("first chunk at %s, end at %s: the first chunk waited for the handler", firstAt, endAt)
		}
	})
	t.Run("a client that goes away stops the guest", func(t *testing.T) {
		res, err := http.Get(srv.URL + "/api/forever")
		if err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(res.Body).ReadString('\n'); line != "first\n" {
			t.Fatalf("first chunk %q", line)
		}
		res.Body.Close()
		srv.CloseClientConnections()
		// The call's own deadline is a minute: 10 s tells the two apart.
		if !waitFor(t, 10*time.Second, func() bool { return strings.Contains(logs.String(), "client went away; guest stopped") }) {
			t.Fatalf("the guest was not stopped after its client left:\n%s", logs)
		}
	})
	t.Run("a trap after the first byte aborts the response", func(t *testing.T) {
		res, err := http.Get(srv.URL + "/api/trap")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if res.StatusCode != 200 || string(body) != "first\n" || err == nil {
			t.Errorf("got %d %q, read error %v: want the first chunk, then a broken stream (no second status line)", res.StatusCode, body, err)
		}
	})
}

func TestNegotiation(t *testing.T) {
	srv, _ := newApp(t).
		wat("server/api/pic.get.wasm", watModule{contract: mediaContract, handle: echoEnvelope}).
		serve(host.Options{Mode: host.Development})
	tests := []struct {
		name, accept     string
		wantStatus       int
		wantType, wantIn string
	}{
		{"no Accept: the first declared type", "", 200, "image/png", `"mediaType":"image/png"`},
		{"an exact type", "image/svg+xml", 200, "image/svg+xml", `"mediaType":"image/svg+xml"`},
		{"q-values", "image/png;q=0.5, image/svg+xml", 200, "image/svg+xml", `"mediaType":"image/svg+xml"`},
		{"a wildcard", "image/*", 200, "image/png", `"mediaType":"image/png"`},
		{"q=0 refuses", "image/png;q=0, */*", 200, "image/svg+xml", `"mediaType":"image/svg+xml"`},
		{"nothing acceptable is 406", "text/html", 406, "application/json",
			`{"statusCode":406,"statusMessage":"Not Acceptable","data":{"received":"text/html","supportedMediaTypes":["image/png","image/svg+xml"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.accept != "" {
				headers = []string{"Accept", tt.accept}
			}
			res := do(t, srv, "GET", "/api/pic", "", headers...)
			if res.status != tt.wantStatus || res.header.Get("Content-Type") != tt.wantType || !strings.Contains(res.body, tt.wantIn) {
				t.Errorf("got %d %s %s, want %d %s containing %s", res.status, res.header.Get("Content-Type"), res.body, tt.wantStatus, tt.wantType, tt.wantIn)
			}
			if v := res.header.Get("Vary"); v != "Accept" {
				t.Errorf("Vary = %q, want Accept on every answer of a negotiating endpoint", v)
			}
		})
	}
	t.Run("the document lists 406 for it", func(t *testing.T) {
		doc := do(t, srv, "GET", "/_endpoints/schema", "")
		if !strings.Contains(doc.body, `"406"`) || !strings.Contains(doc.body, "EndpointsNotAcceptable") {
			t.Errorf("no 406 in the document:\n%s", doc.body)
		}
	})
}
