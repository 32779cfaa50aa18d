// Package prometheus exposes what an Endpoints host does as Prometheus
// metrics: its [host.Observer] events become counters and histograms, and
// its pools ([host.Host.Pools]) gauges read at each scrape. Package host
// never imports it, so a program that does not import it does not link
// client_golang.
//
// Experimental: the metric names, their labels and this package may change
// before 1.0 (README.md, "Stability before 1.0").
//
//	m := prometheus.New()
//	h, err := host.New(ctx, "examples/users", host.Options{Observer: m.Observer()})
//	if err != nil { ... }
//	reg := prom.NewRegistry() // prom is github.com/prometheus/client_golang/prometheus
//	reg.MustRegister(m, prometheus.Pools(h))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// `endpoints serve --admin-addr 127.0.0.1:9090` serves these on
// /metrics of an admin listener, beside the Go runtime's and the process's.
//
// # Metrics
//
// Operations are labelled by method and route template (route="/api/users/:id";
// "" for requests no route matched), never by raw path, so the number of
// series is bounded by the app; a method other than the nine of RFC 9110
// and PATCH is counted as "OTHER".
//
//	endpoints_requests_total{method,route,class}            requests answered, by status class (2xx...)
//	endpoints_request_duration_seconds{method,route}        histogram: receipt to answer
//	endpoints_guest_duration_seconds{method,route}          histogram: time inside the route's handler
//	endpoints_guest_failures_total{method,route}            handler calls that trapped, timed out or failed (not for a database outage)
//	endpoints_validation_failures_total{method,route,part}  parts refused (params, query, headers, body) and answers that broke the contract (response)
//	endpoints_idempotency_total{method,route,outcome}       Idempotency-Key outcomes (claimed, replayed, conflict, mismatch, stored...)
//	endpoints_store_errors_total{op}                        failed store operations (claim, get, take, ping...)
//	endpoints_db_statement_duration_seconds{database}      histogram: one statement a guest ran, per database
//	endpoints_db_errors_total{database,code}                statements that failed, by code (constraint, unavailable...)
//	endpoints_reloads_total                                 reloads that changed something or found a problem
//	endpoints_reload_failures_total                         reloads that found a problem
//	endpoints_pool_waits_total{route,module}                calls that found every instance busy
//	endpoints_pool_discards_total{route,module}             instances closed after a failed call
//	endpoints_pool_instances_made_total{route,module}       instances calls made (none idle, or their route's last call failed)
//	endpoints_pool_instances_recycled_total{route,module}   instances closed after a call left their memory past limits.recycleMemoryBytes
//	endpoints_route_breaker_opens_total{route,module}       times a bundle's route refused a client because its last calls all trapped
//	endpoints_route_breaker_refused_clients{route,module}   clients such a route refuses (503) now, as of its last open or close
//	endpoints_outbound_requests_total{host,status,error}    guests' outbound HTTP requests, by host:port called
//	endpoints_outbound_duration_seconds{host}               their time, from sending to the end of the body
//
// The outbound metrics label at most [MaxOutboundHosts] hosts apart, the
// first called; the requests to any other count under host="other"
// ([OtherHost]): a wildcard of outbound.allowedHosts (https://*,
// *.example.com, a port *) lets a guest call hosts without number, which
// a client choosing the URL (a webhook, a link preview) would otherwise
// turn into series without number, each held by the process for good.
//
// and, from [Pools], per route module:
//
//	endpoints_pool_instances_max{route,module}      limits.instances
//	endpoints_pool_instances_in_use{route,module}   instances serving a call
//	endpoints_pool_instances_idle{route,module}     instances waiting for one
//	endpoints_pool_memory_bytes{route,module}       linear memory of the module's instances
//
// The duration histograms share buckets from 100 µs to 10 s.
//
// # Notes
//
//   - The observer resolves each operation's series once and keeps them,
//     so an event costs an atomic add or two; measured by
//     BenchmarkObservers (README, "Operating").
//   - Counters of a route that left the app stay at their last value until
//     the process restarts; the gauges of [Pools] list only the modules the
//     host serves now.
package prometheus

import (
	"net/http"
	"strconv"
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/wasmendpoints/endpoints/host"
)

// buckets are the bounds of the duration histograms, in seconds: a C guest
// answers in microseconds, a Go one in tens of them, a slow client or a
// guest at its deadline in seconds.
var buckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics are the metrics of one host's events. It is a prom.Collector:
// register it, and pass [Metrics.Observer] to [host.Options]. It is safe
// for concurrent use.
type Metrics struct {
	requests       *prom.CounterVec
	duration       *prom.HistogramVec
	guest          *prom.HistogramVec
	guestFailures  *prom.CounterVec
	validation     *prom.CounterVec
	idempotency    *prom.CounterVec
	storeErrors    *prom.CounterVec
	dbDuration     *prom.HistogramVec
	dbErrors       *prom.CounterVec
	reloads        prom.Counter
	reloadFailures prom.Counter
	poolWaits      *prom.CounterVec
	poolDiscards   *prom.CounterVec
	poolMade       *prom.CounterVec
	poolRecycled   *prom.CounterVec
	breakerOpens   *prom.CounterVec
	breakerClients *prom.GaugeVec
	// outbound and outboundDuration count the guests' outbound requests
	// by host called, at most MaxOutboundHosts of them (outboundHost).
	outbound         *prom.CounterVec
	outboundDuration *prom.HistogramVec
	hostsMu          sync.Mutex
	hosts            sync.Map // host label → struct{}: those labelled apart
	nHosts           int      // entries of hosts, under hostsMu

	// ops and guests keep each operation's series, resolved at its first
	// event: a request then costs no label lookup.
	ops, guests sync.Map // operation → *opSeries, *guestSeries
}

// operation is the labels of an operation.
type operation struct{ method, route string }

// opSeries are an operation's request series.
type opSeries struct {
	classes  [6]prom.Counter // by status / 100; [0] for a status outside 100-599
	duration prom.Observer
}

// guestSeries are an operation's guest-call series.
type guestSeries struct {
	duration prom.Observer
	failures prom.Counter
}

// New returns the metrics, all at zero.
func New() *Metrics {
	op := []string{"method", "route"}
	pool := []string{"route", "module"}
	return &Metrics{
		requests: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_requests_total",
			Help: "Requests answered, by method, route template and status class."}, append(op, "class")),
		duration: prom.NewHistogramVec(prom.HistogramOpts{Name: "endpoints_request_duration_seconds",
			Help: "Time from receiving a request to handing its answer to the server.", Buckets: buckets}, op),
		guest: prom.NewHistogramVec(prom.HistogramOpts{Name: "endpoints_guest_duration_seconds",
			Help: "Time spent inside a route's handler (the guest), per call.", Buckets: buckets}, op),
		guestFailures: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_guest_failures_total",
			Help: "Handler calls that trapped, ran past their deadline, returned an error code or passed a limit, except those a database outage failed (answered 503)."}, op),
		validation: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_validation_failures_total",
			Help: "Request parts the host refused before the guest ran (params, query, headers, body) and answers that broke their contract (response)."}, append(op, "part")),
		idempotency: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_idempotency_total",
			Help: "Outcomes of the Idempotency-Key step."}, append(op, "outcome")),
		storeErrors: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_store_errors_total",
			Help: "Store operations that failed, by operation."}, []string{"op"}),
		dbDuration: prom.NewHistogramVec(prom.HistogramOpts{Name: "endpoints_db_statement_duration_seconds",
			Help: "Time one statement a guest ran took, by database.", Buckets: buckets}, []string{"database"}),
		dbErrors: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_db_errors_total",
			Help: "Statements guests ran that failed, by database and code."}, []string{"database", "code"}),
		reloads: prom.NewCounter(prom.CounterOpts{Name: "endpoints_reloads_total",
			Help: "Reloads of the app that changed something or found a problem."}),
		reloadFailures: prom.NewCounter(prom.CounterOpts{Name: "endpoints_reload_failures_total",
			Help: "Reloads of the app that found a problem (the previous version kept serving)."}),
		poolWaits: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_pool_waits_total",
			Help: "Calls that found every instance of their module busy and waited."}, pool),
		poolDiscards: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_pool_discards_total",
			Help: "Instances closed because their call failed."}, pool),
		poolMade: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_pool_instances_made_total",
			Help: "Instances calls made: none was idle, or (a route of a bundle) their route's last call failed."}, pool),
		poolRecycled: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_pool_instances_recycled_total",
			Help: "Instances closed after a call that left their linear memory past limits.recycleMemoryBytes."}, pool),
		breakerOpens: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_route_breaker_opens_total",
			Help: "Times a route of a bundle refused a client for a while (503) because the client's last calls to it all trapped."}, pool),
		breakerClients: prom.NewGaugeVec(prom.GaugeOpts{Name: "endpoints_route_breaker_refused_clients",
			Help: "Clients a route of a bundle refuses (503) because their last calls to it all trapped, as of the route's last open or close."}, pool),
		outbound: prom.NewCounterVec(prom.CounterOpts{Name: "endpoints_outbound_requests_total",
			Help: "Outbound HTTP requests guests made, by host called (host:port), status (0 when none came) and error code (\"\" when none)."}, []string{"host", "status", "error"}),
		outboundDuration: prom.NewHistogramVec(prom.HistogramOpts{Name: "endpoints_outbound_duration_seconds",
			Help: "Time from sending an outbound HTTP request to the end of its body, by host called.", Buckets: buckets}, []string{"host"}),
	}
}

func (m *Metrics) collectors() []prom.Collector {
	return []prom.Collector{m.requests, m.duration, m.guest, m.guestFailures, m.validation,
		m.idempotency, m.storeErrors, m.dbDuration, m.dbErrors, m.reloads, m.reloadFailures, m.poolWaits, m.poolDiscards,
		m.poolMade, m.poolRecycled, m.breakerOpens, m.breakerClients, m.outbound, m.outboundDuration}
}

// Describe implements prom.Collector.
func (m *Metrics) Describe(ch chan<- *prom.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prom.Collector.
func (m *Metrics) Collect(ch chan<- prom.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// Observer returns the hooks that feed the metrics, for
// [host.Options.Observer] (or [host.JoinObservers]).
func (m *Metrics) Observer() *host.Observer {
	return &host.Observer{
		Request:           m.request,
		GuestCall:         m.guestCall,
		ValidationFailure: m.validationFailure,
		PoolWait: func(e host.PoolEvent) {
			m.poolWaits.WithLabelValues(e.Route, e.Module).Inc()
		},
		InstanceDiscarded: func(e host.PoolEvent) {
			m.poolDiscards.WithLabelValues(e.Route, e.Module).Inc()
		},
		InstanceMade: func(e host.PoolEvent) {
			m.poolMade.WithLabelValues(e.Route, e.Module).Inc()
		},
		InstanceRecycled: func(e host.PoolEvent) {
			m.poolRecycled.WithLabelValues(e.Route, e.Module).Inc()
		},
		RouteBreaker: func(e host.BreakerEvent) {
			if e.Open {
				m.breakerOpens.WithLabelValues(e.Route, e.Module).Inc()
			}
			m.breakerClients.WithLabelValues(e.Route, e.Module).Set(float64(e.Refused))
		},
		Reload: func(r host.ReloadReport) {
			if r.Unchanged() {
				return
			}
			m.reloads.Inc()
			if len(r.Problems) > 0 {
				m.reloadFailures.Inc()
			}
		},
		Idempotency: func(e host.IdempotencyEvent) {
			m.idempotency.WithLabelValues(method(e.Method), e.Route, string(e.Outcome)).Inc()
		},
		StoreError: func(e host.StoreErrorEvent) {
			m.storeErrors.WithLabelValues(e.Op).Inc()
		},
		Outbound: func(e host.OutboundEvent) {
			h := m.outboundHost(e.Host)
			m.outbound.WithLabelValues(h, strconv.Itoa(e.Status), e.Error).Inc()
			m.outboundDuration.WithLabelValues(h).Observe(e.Duration.Seconds())
		},
		Database: func(e host.DatabaseEvent) {
			m.dbDuration.WithLabelValues(e.Database).Observe(e.Duration.Seconds())
			if e.Code != "" {
				m.dbErrors.WithLabelValues(e.Database, e.Code).Inc()
			}
		},
	}
}

// MaxOutboundHosts is the most hosts the outbound metrics label apart;
// the requests to others count under [OtherHost].
const MaxOutboundHosts = 256

// OtherHost is the host label of the outbound requests to a host past
// the first [MaxOutboundHosts]: no host:port is written so.
const OtherHost = "other"

// outboundHost is the host label of an outbound request to h: h itself
// when it is one of the first MaxOutboundHosts hosts called, else
// OtherHost.
func (m *Metrics) outboundHost(h string) string {
	if _, ok := m.hosts.Load(h); ok {
		return h
	}
	m.hostsMu.Lock()
	defer m.hostsMu.Unlock()
	if _, ok := m.hosts.Load(h); ok {
		return h
	}
	if m.nHosts >= MaxOutboundHosts {
		return OtherHost
	}
	m.hosts.Store(h, struct{}{})
	m.nHosts++
	return h
}

func (m *Metrics) request(e host.RequestEvent) {
	key := operation{method(e.Method), e.Route}
	v, ok := m.ops.Load(key)
	if !ok {
		s := &opSeries{duration: m.duration.WithLabelValues(key.method, key.route)}
		for i := range s.classes {
			s.classes[i] = m.requests.WithLabelValues(key.method, key.route, classes[i])
		}
		v, _ = m.ops.LoadOrStore(key, s)
	}
	s := v.(*opSeries)
	class := 0
	if e.Status >= 100 && e.Status < 600 {
		class = e.Status / 100
	}
	s.classes[class].Inc()
	s.duration.Observe(e.Duration.Seconds())
}

// classes are the status classes by status / 100.
var classes = [6]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

func (m *Metrics) guestCall(e host.GuestCallEvent) {
	key := operation{method(e.Method), e.Route}
	v, ok := m.guests.Load(key)
	if !ok {
		v, _ = m.guests.LoadOrStore(key, &guestSeries{
			duration: m.guest.WithLabelValues(key.method, key.route),
			failures: m.guestFailures.WithLabelValues(key.method, key.route),
		})
	}
	s := v.(*guestSeries)
	s.duration.Observe(e.Duration.Seconds())
	if e.Failed && !e.DatabaseOutage {
		s.failures.Inc()
	}
}

func (m *Metrics) validationFailure(e host.ValidationEvent) {
	m.validation.WithLabelValues(method(e.Method), e.Route, e.Part).Inc()
}

// method bounds a request's method for a label: a client may send any
// token.
func method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// Pools returns a collector of h's pools: at each scrape it reads
// [host.Host.Pools] and reports, per route module, the gauges
// endpoints_pool_instances_max, _in_use, _idle and
// endpoints_pool_memory_bytes.
func Pools(h *host.Host) prom.Collector { return &pools{h: h} }

type pools struct{ h *host.Host }

var (
	poolLabels = []string{"route", "module"}
	poolMax    = prom.NewDesc("endpoints_pool_instances_max", "The most instances the route module's pool makes (limits.instances).", poolLabels, nil)
	poolInUse  = prom.NewDesc("endpoints_pool_instances_in_use", "Instances of the route module serving a call.", poolLabels, nil)
	poolIdle   = prom.NewDesc("endpoints_pool_instances_idle", "Instances of the route module waiting for a call.", poolLabels, nil)
	poolMemory = prom.NewDesc("endpoints_pool_memory_bytes", "Linear memory of the route module's instances: the idle ones now, those in use as when their call took them.", poolLabels, nil)
	poolDescs  = []*prom.Desc{poolMax, poolInUse, poolIdle, poolMemory}

	_ prom.Collector = (*Metrics)(nil)
	_ prom.Collector = (*pools)(nil)
)

func (p *pools) Describe(ch chan<- *prom.Desc) {
	for _, d := range poolDescs {
		ch <- d
	}
}

func (p *pools) Collect(ch chan<- prom.Metric) {
	for _, s := range p.h.Pools() {
		ch <- prom.MustNewConstMetric(poolMax, prom.GaugeValue, float64(s.Max), s.Route, s.Module)
		ch <- prom.MustNewConstMetric(poolInUse, prom.GaugeValue, float64(s.InUse), s.Route, s.Module)
		ch <- prom.MustNewConstMetric(poolIdle, prom.GaugeValue, float64(s.Idle), s.Route, s.Module)
		ch <- prom.MustNewConstMetric(poolMemory, prom.GaugeValue, float64(s.MemoryBytes), s.Route, s.Module)
	}
}
