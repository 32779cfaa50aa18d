package prometheus_test

import (
	"strings"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/prometheus"
)

// TestOutboundRequestsByHostAndStatus: each outbound event counts under
// its host, status and error code, and its duration under its host.
func TestOutboundRequestsByHostAndStatus(t *testing.T) {
	m := prometheus.New()
	reg := prom.NewRegistry()
	reg.MustRegister(m)
	o := m.Observer()
	for _, e := range []host.OutboundEvent{
		{Host: "api.example.com:443", Status: 200, Duration: 20 * time.Millisecond},
		{Host: "api.example.com:443", Status: 200, Duration: 30 * time.Millisecond},
		{Host: "api.example.com:443", Status: 503, Duration: 10 * time.Millisecond},
		{Host: "10.0.0.7:80", Error: "not_allowed"},
	} {
		o.Outbound(e)
	}
	want := `
# HELP endpoints_outbound_requests_total Outbound HTTP requests guests made, by host called (host:port), status (0 when none came) and error code ("" when none).
# TYPE endpoints_outbound_requests_total counter
endpoints_outbound_requests_total{error="",host="api.example.com:443",status="200"} 2
endpoints_outbound_requests_total{error="",host="api.example.com:443",status="503"} 1
endpoints_outbound_requests_total{error="not_allowed",host="10.0.0.7:80",status="0"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "endpoints_outbound_requests_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m, "endpoints_outbound_duration_seconds"); n != 2 {
		t.Errorf("%d duration series, want 2 (one per host)", n)
	}
}
