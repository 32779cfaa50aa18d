package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/wasmendpoints/endpoints/storage"
)

// Names of the checks of [Host.Ready].
const (
	// CheckRoutes: the host serves at least one route, is not shutting
	// down, and no route's code failed to load after New returned (see
	// [Options.ServeWhileCompiling]: such a route answers 500).
	CheckRoutes = "routes"
	// CheckStore: the app's store answers a ping ([storage.Pinger]; a
	// store without Ping passes).
	CheckStore = "store"
)

// ReadyCheck is the result of one check of [Host.Ready].
type ReadyCheck struct {
	// Name is CheckRoutes, CheckStore or CheckDatabases.
	Name string
	// Err says why the check failed; nil when it passed.
	Err error
}

// Errors of the routes check.
var (
	errNoRoutes     = errors.New("no route is loaded")
	errShuttingDown = errors.New("the host is shutting down")
)

// Ready runs the readiness checks, in order, and returns each one's result:
// the host should get traffic only when every Err is nil. It is what a
// /readyz endpoint answers (`endpoints serve --admin-addr` serves one):
//
//	for _, c := range h.Ready(ctx) {
//		if c.Err != nil {
//			log.Printf("not ready: %s: %v", c.Name, c.Err)
//		}
//	}
//
// # Notes
//
//   - The store check waits for the store's answer until ctx ends: give
//     ctx a deadline shorter than the prober's timeout. The Redis store
//     gives up after its own dial and read timeouts (1 s by default).
//   - A failed ping is also reported to [Observer.StoreError] (op "ping").
//   - A reload that fails keeps the previous version serving, so it does
//     not make the host unready.
func (h *Host) Ready(ctx context.Context) []ReadyCheck {
	routes := ReadyCheck{Name: CheckRoutes}
	switch {
	case h.requests.Closed():
		routes.Err = errShuttingDown
	case len(h.table.Load().Routes) == 0:
		routes.Err = errNoRoutes
	default:
		if failed := h.engine.DeferredFailed(); len(failed) > 0 {
			routes.Err = fmt.Errorf("%d route module(s) failed to load and answer 500: %w", len(failed), errors.Join(failed...))
		}
	}
	store := ReadyCheck{Name: CheckStore}
	if p, ok := h.store.(storage.Pinger); ok && !h.requests.Closed() {
		if store.Err = p.Ping(ctx); store.Err != nil {
			h.opts.Observer.reportStoreError("ping", store.Err)
		}
	}
	dbs := ReadyCheck{Name: CheckDatabases}
	if h.dbs != nil && !h.requests.Closed() {
		dbs.Err = h.dbs.Ping(ctx)
	}
	return []ReadyCheck{routes, store, dbs}
}
