package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/observe/prometheus"
)

// readyTimeout bounds the checks of one /readyz: a store that does not
// answer within it is not ready. Probers usually give up after 1-5 s.
const readyTimeout = 2 * time.Second

// adminHandler serves the admin listener of `serve --admin-addr`, which is
// kept off the public one: the metrics of the host, the Go runtime and the
// process on /metrics, liveness on /livez, readiness on /readyz.
func adminHandler(h *host.Host, m *prometheus.Metrics, logger *slog.Logger) http.Handler {
	reg := prom.NewRegistry()
	reg.MustRegister(m, prometheus.Pools(h),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}))
	mux.HandleFunc("GET /livez", livez)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { readyz(w, r, h) })
	return mux
}

// livez answers 200 while the process serves at all.
func livez(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// readiness is the body of /readyz: "ready" or "unavailable", and each
// check's result, "ok" or why it failed.
//
//	{"status":"unavailable","checks":{"routes":"ok","store":"storage unavailable: redis PING on 127.0.0.1:6379: ... connection refused"}}
type readiness struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// readyz answers 200 when every check of Host.Ready passes, otherwise 503,
// with a readiness body either way.
func readyz(w http.ResponseWriter, r *http.Request, h *host.Host) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	body := readiness{Status: "ready", Checks: map[string]string{}}
	status := http.StatusOK
	for _, c := range h.Ready(ctx) {
		body.Checks[c.Name] = "ok"
		if c.Err != nil {
			body.Checks[c.Name] = c.Err.Error()
			body.Status, status = "unavailable", http.StatusServiceUnavailable
		}
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
