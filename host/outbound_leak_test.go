package host_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestOutboundNeverWritesTheURLsPathOrQuery: a guest puts a token in the
// path and query of an outbound URL and in a header (an API key read
// from a secret variable, say); whatever the service answers (a redirect
// loop, a redirect to an unlisted or non-HTTP origin, an error status),
// the host's own output (the debug log, the Outbound and Span events,
// the span's error) names the origin only, never the token. The guest's
// answer may show it: it is the guest's to show.
func TestOutboundNeverWritesTheURLsPathOrQuery(t *testing.T) {
	t.Parallel()
	const token = "tok-5f0e9c2a71"
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/loop"):
			http.Redirect(w, r, r.URL.RequestURI(), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/to-unlisted"):
			http.Redirect(w, r, "http://127.0.0.1:2"+r.URL.RequestURI(), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/to-refusing"):
			http.Redirect(w, r, "http://127.0.0.1:1"+r.URL.RequestURI(), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/to-ftp"):
			http.Redirect(w, r, "ftp://files.example"+r.URL.RequestURI(), http.StatusFound)
		default:
			http.Error(w, "no", http.StatusForbidden)
		}
	}))
	t.Cleanup(backend.Close)

	var mu sync.Mutex
	var events strings.Builder
	record := func(kind string, ev any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&events, "%s %+v\n", kind, ev)
	}
	observer := &host.Observer{
		Outbound: func(e host.OutboundEvent) { record("outbound", e) },
		Request:  func(e host.RequestEvent) { record("request", e) },
		Span: func(ctx context.Context, e host.SpanEvent) (context.Context, func(error)) {
			record("span", e.Op+" "+e.Target)
			return ctx, func(err error) { record("span end", err) }
		},
	}
	srv, logs := newApp(t).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`", "http://127.0.0.1:1"]}}`)).
		wat("server/api/proxy.post.wasm", proxyGuest).
		serve(host.Options{Observer: observer})
	// A listed address nothing listens on fails with a Go error, which
	// the debug log shows (without the URL).
	for _, url := range []string{backend.URL + "/loop", backend.URL + "/to-unlisted", backend.URL + "/to-refusing", backend.URL + "/to-ftp",
		backend.URL + "/forbidden", "http://127.0.0.1:1"} {
		res := do(t, srv, "POST", "/api/proxy", `{"url":"`+url+`/`+token+`?api_key=`+token+`","headers":[["x-api-key","`+token+`"]]}`)
		if res.status == 200 && !strings.Contains(res.body, `"status":403`) || res.status != 200 && res.status != 405 && res.status != 409 && res.status != 402 {
			t.Errorf("%s: got %d %s, want the service's 403 or the guest's answer of a failed http_send", url, res.status, res.body)
		}
	}
	mu.Lock()
	all := events.String() + logs.String()
	mu.Unlock()
	for _, want := range []string{"more than 5 redirects", "span end", "outbound request failed"} {
		if !strings.Contains(all, want) {
			t.Errorf("the host's output lacks %q, so the test did not run what it meant to:\n%s", want, all)
		}
	}
	if i := strings.Index(all, token); i >= 0 {
		t.Errorf("the token appears in the host's output: ...%s...", all[max(0, i-300):min(len(all), i+100)])
	}
}
