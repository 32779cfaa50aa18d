package config

import (
	"runtime"
	"time"
)

// WithDefaults returns l with its zero fields set to their defaults: the
// limits in effect. Instances defaults to 2 × GOMAXPROCS,
// RecycleMemoryBytes to a share of MemoryBytes, and a
// MemoryBytes below one 64 KiB page (which only a Go embedder's Options
// can give) counts as zero.
func (l Limits) WithDefaults() Limits {
	dur := func(d *Duration, v time.Duration) {
		if *d <= 0 {
			*d = Duration(v)
		}
	}
	num := func(n *int64, v int64) {
		if *n <= 0 {
			*n = v
		}
	}
	count := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	num(&l.BodyBytes, DefaultBodyBytes)
	if l.MemoryBytes < 65536 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	num(&l.RecycleMemoryBytes, int64(float64(l.MemoryBytes)*DefaultRecycleMemoryShare))
	dur(&l.Timeout, DefaultTimeout)
	count(&l.Instances, 2*runtime.GOMAXPROCS(0))
	num(&l.ResponseBytes, DefaultResponseBytes)
	dur(&l.LoadTimeout, DefaultLoadTimeout)
	count(&l.JSONDepth, DefaultJSONDepth)
	count(&l.JSONValues, DefaultJSONValues)
	count(&l.QueryParams, DefaultQueryParams)
	dur(&l.InstanceIdleTimeout, DefaultInstanceIdleTimeout)
	dur(&l.MaxTimeout, DefaultMaxTimeout)
	num(&l.OutboundBytes, DefaultOutboundBytes)
	count(&l.OutboundRequests, DefaultOutboundRequests)
	num(&l.OutboundHeaderBytes, DefaultOutboundHeaderBytes)
	num(&l.SQLResultBytes, DefaultSQLResultBytes)
	count(&l.BreakerTrappedCalls, DefaultBreakerTrappedCalls)
	dur(&l.BreakerPause, DefaultBreakerPause)
	dur(&l.BreakerMaxPause, max(DefaultBreakerMaxPause, time.Duration(l.BreakerPause)))
	count(&l.BreakerClients, DefaultBreakerClients)
	return l
}

// WithDefaults returns i with its zero fields set to their defaults.
func (i Idempotency) WithDefaults() Idempotency {
	if i.Lease <= 0 {
		i.Lease = Duration(DefaultIdempotencyLease)
	}
	if i.Replay <= 0 {
		i.Replay = Duration(DefaultIdempotencyReplay)
	}
	return i
}

// WithDefaults returns a with the defaults of its members filled in:
// openApi, limits, storage, idempotency, server, authFailures and
// outbound, whose zero fields mean "the default", each by its own
// WithDefaults, the one place its defaults are filled. What it returns is
// what the host applies (unless a Go embedder's Options set a field), so
// `endpoints config`-style dumps, `endpoints help settings` and tools
// read the values in effect rather than zeros. Members whose absence
// means "off" (cors, rateLimits, security, build, variables, the outbound
// allow list) stay as they are, and so do responseValidation (its
// default is the runtime declaration's, then [ValidateInDevelopment]) and
// the list of databases (absent, "main" is made when a guest first uses
// it); each database listed gets its own defaults ([Database.WithDefaults]).
func (a App) WithDefaults() App {
	a.OpenAPI = a.OpenAPI.WithDefaults()
	a.Storage = a.Storage.WithDefaults()
	a.Outbound = a.Outbound.WithDefaults()
	a.Limits = a.Limits.WithDefaults()
	a.Server = a.Server.WithDefaults()
	a.Idempotency = a.Idempotency.WithDefaults()
	a.AuthFailures = a.AuthFailures.WithDefaults()
	if a.Databases != nil {
		dbs := make(map[string]Database, len(a.Databases))
		for name, d := range a.Databases {
			dbs[name] = d.WithDefaults()
		}
		a.Databases = dbs // a's map is the caller's: a new one
	}
	return a
}
