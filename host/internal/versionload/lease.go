package versionload

import (
	"fmt"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
)

// leaseWarnings are the warnings of the operations of routes that take an
// Idempotency-Key and whose timeout (their contract's, else limitsTimeout,
// limits.timeout) is more than half lease (idempotency.lease): a request
// may wait up to its timeout for its route's code, then run its handler
// for its timeout (config.Idempotency.Lease), and one running past its
// lease loses its key to another request with it. Each names the route,
// its timeout, the lease and the setting to raise; the load goes on.
func leaseWarnings(routes []*routemod.Route, limitsTimeout, lease time.Duration) []error {
	var out []error
	for _, r := range routes {
		for _, m := range r.Ops.Methods() {
			op := r.Ops[m]
			if op.Contract == nil || op.Contract.Idempotency == nil {
				continue
			}
			timeout, setting := op.Timeout, "timeout"
			if timeout == 0 {
				timeout, setting = limitsTimeout, "limits.timeout"
			}
			if lease >= 2*timeout {
				continue
			}
			out = append(out, fmt.Errorf("%s: %s takes an Idempotency-Key and may take twice its %s %s (waiting for its code, then running), longer than idempotency.lease (%s): a request past its lease loses its key to another request with it (409 IDEMPOTENCY_LEASE_LOST); raise idempotency.lease in %s to at least %s, or shorten the timeout",
				r.Name, m, setting, timeout, lease, config.File, 2*timeout))
		}
	}
	return out
}
