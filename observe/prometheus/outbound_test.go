package prometheus_test

import (
	"fmt"
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

// TestOutboundHostsBounded: the outbound metrics label at most
// MaxOutboundHosts hosts apart, and count the requests to the others
// under "other": with a wildcard in outbound.allowedHosts, a client that
// chose the URL a guest called (a new subdomain each request) made a
// series of each host, held by the process for good.
func TestOutboundHostsBounded(t *testing.T) {
	m := prometheus.New()
	reg := prom.NewRegistry()
	reg.MustRegister(m)
	o := m.Observer()
	const extra = 1000
	for i := range prometheus.MaxOutboundHosts + extra {
		o.Outbound(host.OutboundEvent{Host: fmt.Sprintf("c%d.example.com:443", i), Status: 200})
	}
	o.Outbound(host.OutboundEvent{Host: "c0.example.com:443", Status: 200})
	if n := testutil.CollectAndCount(m, "endpoints_outbound_requests_total"); n != prometheus.MaxOutboundHosts+1 {
		t.Errorf("%d request series after %d hosts, want %d (the first hosts and other)", n, prometheus.MaxOutboundHosts+extra, prometheus.MaxOutboundHosts+1)
	}
	if n := testutil.CollectAndCount(m, "endpoints_outbound_duration_seconds"); n != prometheus.MaxOutboundHosts+1 {
		t.Errorf("%d duration series, want %d", n, prometheus.MaxOutboundHosts+1)
	}
	counts := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "endpoints_outbound_requests_total" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "host" {
					counts[l.GetValue()] += mt.GetCounter().GetValue()
				}
			}
		}
	}
	if got := counts[prometheus.OtherHost]; got != extra {
		t.Errorf("other counts %v requests, want %d", got, extra)
	}
	if got := counts["c0.example.com:443"]; got != 2 {
		t.Errorf("a host labelled apart counts %v requests, want 2", got)
	}
}
