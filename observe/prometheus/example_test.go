package prometheus_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/prometheus"
)

// Serving a host's metrics: the observer goes into the host's options, the
// metrics and the pools' collector into a registry, which promhttp serves
// (`endpoints serve --admin-addr` does this on a listener of its own).
func ExampleNew() {
	ctx := context.Background()
	m := prometheus.New()
	h, err := host.New(ctx, "../../host/testdata/hello", host.Options{Observer: m.Observer(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close(ctx)
	reg := prom.NewRegistry()
	reg.MustRegister(m, prometheus.Pools(h))

	for _, path := range []string{"/api/hello?name=Ada", "/api/hello?name=Grace", "/api/hello?name="} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	scrape := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(scrape.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, `endpoints_requests_total{class="2xx"`) || strings.HasPrefix(line, `endpoints_requests_total{class="4xx"`) ||
			strings.HasPrefix(line, "endpoints_validation_failures_total{") {
			fmt.Println(line)
		}
	}
	// Output:
	// endpoints_requests_total{class="2xx",method="GET",route="/api/hello"} 2
	// endpoints_requests_total{class="4xx",method="GET",route="/api/hello"} 1
	// endpoints_validation_failures_total{method="GET",part="query",route="/api/hello"} 1
}
