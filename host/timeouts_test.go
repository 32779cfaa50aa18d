package host_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// timeoutsGuest builds the guest of guest-sdk/go/testdata/timeouts once
// per test binary.
var timeoutsGuest = sdkTestGuest("timeouts", "ticks.wasm")

// TestRouteTimeouts: an operation's own timeout replaces limits.timeout,
// its idle timeout stops a stream that writes nothing for that long, and
// the document says both.
func TestRouteTimeouts(t *testing.T) {
	t.Parallel()
	wasm, err := timeoutsGuest()
	if err != nil {
		t.Fatal(err)
	}
	a := newApp(t).copyModule("server/api/ticks.wasm", wasm).
		file("endpoints.json", []byte(`{"limits": {"timeout": "300ms"}}`))
	h, logs := a.host(host.Options{Mode: host.Development})
	srv := newServer(t, h)

	tests := []struct {
		name, method, query string
		events              int
		log                 string
	}{
		{"the operation's own timeout outlasts limits.timeout", "GET", "count=6&gap=150", 6, ""},
		{"without its own timeout, limits.timeout ends the stream", "POST", "count=6&gap=150", -1, "the handler ran past its 300ms deadline and was stopped"},
		{"a stream silent past its idle timeout is stopped", "GET", "count=3&gap=3000", 1, "the handler wrote nothing for 1s (its idleTimeout) and was stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := doStream(t, srv.URL+"/api/ticks?"+tt.query, tt.method)
			got := strings.Count(res, "data: ")
			if tt.events >= 0 && got != tt.events || tt.events < 0 && got >= 6 {
				t.Errorf("got %d events:\n%s\nwant %d", got, res, tt.events)
			}
			if tt.log != "" && !strings.Contains(logs.String(), tt.log) {
				t.Errorf("the log lacks %q:\n%s", tt.log, logs)
			}
		})
	}
	doc := string(h.Document())
	for _, want := range []string{`"x-endpoints-timeout": "5s"`, `"x-endpoints-idle-timeout": "1s"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %s", want)
		}
	}
}

// doStream reads a streamed answer until it ends, whole or cut.
func doStream(t *testing.T, url, method string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body) // a cut stream ends in an error: what came before counts
	return fmt.Sprintf("%d %s", res.StatusCode, b)
}

// TestRouteTimeoutOverMax: a contract asking for more than
// limits.maxTimeout fails the load, naming the module, the member and the
// bound.
func TestRouteTimeoutOverMax(t *testing.T) {
	t.Parallel()
	wasm, err := timeoutsGuest()
	if err != nil {
		t.Fatal(err)
	}
	a := newApp(t).copyModule("server/api/ticks.wasm", wasm).
		file("endpoints.json", []byte(`{"limits": {"timeout": "1s", "maxTimeout": "2s"}}`))
	_, err = host.New(context.Background(), a.dir, host.Options{CacheDir: testCacheDir(t), Logger: discardLogger()})
	want := "server/api/ticks.wasm: contract: /methods/get/timeout: 5s is over limits.maxTimeout (2s); shorten it, or raise limits.maxTimeout in endpoints.json"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("host.New error = %v\nwant one containing %s", err, want)
	}
}
