package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
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
// process on /metrics, liveness on /livez, readiness on /readyz. Once
// stopping is set (stopServing sets it first), /readyz answers 503.
func adminHandler(h *host.Host, m *prometheus.Metrics, logger *slog.Logger, stopping *atomic.Bool) http.Handler {
	reg := prom.NewRegistry()
	reg.MustRegister(m, prometheus.Pools(h),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}))
	mux.HandleFunc("GET /livez", livez)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { readyz(w, r, h, stopping) })
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

// errStopping is the routes check of /readyz once the server stops.
const errStopping = "the server is shutting down"

// readyz answers 200 when every check of Host.Ready passes, otherwise 503,
// with a readiness body either way. Once stopping is set it answers 503
// without running the checks: the public listener is about to close.
func readyz(w http.ResponseWriter, r *http.Request, h *host.Host, stopping *atomic.Bool) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	body := readiness{Status: "ready", Checks: map[string]string{}}
	status := http.StatusOK
	checks := []host.ReadyCheck{{Name: host.CheckRoutes, Err: errors.New(errStopping)}}
	if !stopping.Load() {
		checks = h.Ready(ctx)
	}
	for _, c := range checks {
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

// stopServing stops `serve`: /readyz turns 503 first (stopping), before the
// public listener closes, so a load balancer polling it stops sending
// traffic no later than the port refuses it; then the server and the host
// finish the requests in flight, within the host's shutdown timeout; the
// admin listener closes last.
func stopServing(stopping *atomic.Bool, srv *http.Server, h *host.Host, admin *http.Server, logger *slog.Logger) {
	stopping.Store(true)
	logger.Info(fmt.Sprintf("shutting down: finishing requests in flight (%s at most)", h.ShutdownTimeout()))
	sctx, cancel := context.WithTimeout(context.Background(), h.ShutdownTimeout())
	defer cancel()
	// Requests still running at the timeout are reported once, with the
	// setting that bounds them; the server and the host both see it.
	late := false
	if err := srv.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
		late = true
	} else if err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("shutdown", "error", err)
	}
	if err := h.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
		late = true
	} else if err != nil {
		logger.Warn("shutdown", "error", err)
	}
	if late {
		logger.Warn(fmt.Sprintf("requests still running after server.shutdownTimeout (%s) were stopped: raise it (ENDPOINTS_SERVER_SHUTDOWN_TIMEOUT) if they need longer to finish", h.ShutdownTimeout()))
	}
	if admin != nil {
		if err := admin.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("admin shutdown", "error", err)
		}
	}
}
