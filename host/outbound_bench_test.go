package host_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

// BenchmarkOutboundCall measures a handler that makes one outbound call
// to a loopback server and answers its body: the WAT guest through the
// host (http_send, http_response, http_body_read) against the same
// handler in native Go with net/http, interleaved in one run so both see
// the same machine. guest/native is the ratio of their times per request.
//
//	go test ./host -run '^$' -bench OutboundCall -benchtime 2000x
func BenchmarkOutboundCall(b *testing.B) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"rate":1.0842,"currency":"EUR"}`)
	}))
	b.Cleanup(backend.Close)
	h, _ := newApp(b).
		file("endpoints.json", []byte(`{"outbound": {"allowedHosts": ["`+backend.URL+`"]}}`)).
		wat("server/api/proxy.post.wasm", proxyGuest).
		host(host.Options{})
	body := `{"url":"` + backend.URL + `/rates"}`
	client := &http.Client{Transport: &http.Transport{}}
	native := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := client.Get(backend.URL + "/rates")
		if err != nil {
			w.WriteHeader(502)
			return
		}
		defer res.Body.Close()
		io.Copy(w, res.Body)
	})
	run := func(handler http.Handler) time.Duration {
		rec := httptest.NewRecorder()
		began := time.Now()
		handler.ServeHTTP(rec, httptest.NewRequest("POST", "/api/proxy", strings.NewReader(body)))
		took := time.Since(began)
		if rec.Code != 200 || !strings.HasSuffix(rec.Body.String(), `"currency":"EUR"}`) {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return took
	}
	var guestTime, nativeTime time.Duration
	for b.Loop() {
		guestTime += run(h)
		nativeTime += run(native)
	}
	b.ReportMetric(float64(guestTime.Nanoseconds())/float64(b.N), "guest-ns/req")
	b.ReportMetric(float64(nativeTime.Nanoseconds())/float64(b.N), "native-ns/req")
	b.ReportMetric(float64(guestTime)/float64(nativeTime), "guest/native")
	b.ReportMetric(0, "ns/op")
}
