package config

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

// Storage drivers of [Storage.Driver].
const (
	// DriverMemory is the store in the host's memory ([storage.Memory]):
	// one process, lost on restart. The default.
	DriverMemory = "memory"
	// DriverRedis is a Redis server (package storage/redis), shared by
	// every host of the app behind a load balancer. A program that uses it
	// imports storage/redis, which registers the driver.
	DriverRedis = "redis"
)

// Storage is the "storage" member of endpoints.json, and
// host.Options.Storage for a Go embedder: where Idempotency-Key records, rate
// limits and the guests' key-value data live. The zero value is the memory
// store, namespaced by the app directory's name.
//
//	{"driver": "redis", "url": "redis://127.0.0.1:6379/0", "namespace": "shop"}
type Storage struct {
	// Driver is [DriverMemory] (the default, when empty) or [DriverRedis].
	Driver string `json:"driver,omitzero"`
	// URL locates the Redis server: redis://[user:password@]host:port/db,
	// a '#', '/', '?' or '@' in the user name or password percent-encoded
	// (%23, %2F, %3F, %40). Required with [DriverRedis]; unused by the
	// memory store.
	URL string `json:"url,omitzero"`
	// Namespace separates apps sharing one store. If empty, it is the name
	// of the app directory, so hosts of one app agree on it.
	Namespace string `json:"namespace,omitzero"`
	// MaxBytes bounds the memory store. If zero, [storage.DefaultMaxBytes]
	// (64 MiB), split into three budgets that cannot take from each other
	// (see [storage.MemoryOptions]): half for the guests' key-value data,
	// three eighths for Idempotency-Key records, an eighth for rate-limit
	// buckets, unless the fields below set one.
	MaxBytes int64 `json:"maxBytes,omitzero"`
	// KVBytes bounds the memory store's key-value data. If zero, half of
	// MaxBytes ([storage.DefaultKVBytes], 32 MiB).
	KVBytes int64 `json:"kvBytes,omitzero"`
	// IdempotencyBytes bounds the memory store's Idempotency-Key records.
	// If zero, three eighths of MaxBytes ([storage.DefaultIdempotencyBytes],
	// 24 MiB). When full, new keys are refused with 503, never by evicting
	// an answer still within its replay window.
	IdempotencyBytes int64 `json:"idempotencyBytes,omitzero"`
	// RateLimitBytes bounds the memory store's rate-limit buckets. If
	// zero, an eighth of MaxBytes ([storage.DefaultRateLimitBytes], 8 MiB).
	RateLimitBytes int64 `json:"rateLimitBytes,omitzero"`
	// IdempotencyClientBytes is each client's share of the Idempotency-Key
	// records, in flight and kept for replay, on any store: the verified
	// principal's (scheme and subject), else the client address's (as the
	// rate limits see it, an IPv6 address by its /64). A request that
	// would take a client past it answers 429 IDEMPOTENCY_CLIENT_QUOTA
	// with Retry-After, and nothing runs. If zero, a sixteenth of the
	// memory store's IdempotencyBytes
	// ([storage.DefaultIdempotencyClientBytes], 1.5 MiB, with the default
	// budgets), and that 1.5 MiB on a Redis store.
	IdempotencyClientBytes int64 `json:"idempotencyClientBytes,omitzero"`
}

// WithDefaults returns s with its defaults filled in: the driver
// [DriverMemory], and for the memory store its budgets
// ([storage.MemoryOptions.WithDefaults] splits MaxBytes) and each
// client's share of the Idempotency-Key records, a sixteenth of
// IdempotencyBytes; on another driver that share is
// [storage.DefaultIdempotencyClientBytes] and the memory budgets stay
// zero (they bound nothing there). Namespace stays empty: its default is
// the app directory's name ([Storage.AppNamespace]).
func (s Storage) WithDefaults() Storage {
	if s.Driver != "" && s.Driver != DriverMemory {
		if s.IdempotencyClientBytes <= 0 {
			s.IdempotencyClientBytes = storage.DefaultIdempotencyClientBytes
		}
		return s
	}
	s.Driver = DriverMemory
	m := s.MemoryOptions()
	if s.IdempotencyClientBytes <= 0 {
		s.IdempotencyClientBytes = m.IdempotencyClientBytes()
	}
	m = m.WithDefaults()
	s.MaxBytes, s.KVBytes, s.IdempotencyBytes, s.RateLimitBytes = m.MaxBytes, m.KVBytes, m.IdempotencyBytes, m.RateLimitBytes
	return s
}

// MemoryOptions are the options of the memory store s configures.
func (s Storage) MemoryOptions() storage.MemoryOptions {
	return storage.MemoryOptions{MaxBytes: s.MaxBytes, KVBytes: s.KVBytes,
		IdempotencyBytes: s.IdempotencyBytes, RateLimitBytes: s.RateLimitBytes}
}

// AppNamespace is the namespace of the app in appDir: [Storage.Namespace],
// or the name of the app directory when it is empty, so that every host of
// the app and the endpoints command agree on it. A namespace
// [storage.ValidNamespace] refuses (one holding a NUL byte, which the host
// reserves for its own records) is an error naming the member.
func (s Storage) AppNamespace(appDir string) (string, error) {
	ns := s.Namespace
	if ns == "" {
		abs, err := filepath.Abs(appDir)
		if err != nil {
			return "", err
		}
		ns = filepath.Base(abs)
	}
	if err := storage.ValidNamespace(ns); err != nil {
		return "", fmt.Errorf("%s: /storage/namespace: %w; choose another", File, err)
	}
	return ns, nil
}

// Idempotency is the "idempotency" member of endpoints.json, and
// host.Options.Idempotency for a Go embedder: how the Idempotency-Key step
// (docs/spec.md §6) keeps its records. The zero value is every default.
//
//	{"lease": "30s", "replay": "24h", "scopeHeader": "X-Client-Id"}
type Idempotency struct {
	// Lease is how long a request holds its key while it runs. If zero,
	// [DefaultIdempotencyLease]. Keep it above twice limits.timeout (and
	// any operation's longer timeout): a request may first wait up to its
	// timeout for the host to load its route's code, which its handler's
	// deadline does not count (docs/spec.md §13), then run its handler for
	// its timeout. A request running past its lease answers 409
	// IDEMPOTENCY_LEASE_LOST, and another request may run with its key.
	// A load warns of each Idempotency-Key operation whose timeout is
	// more than half the lease.
	Lease Duration `json:"lease,omitzero"`
	// Replay is how long a completed answer is replayed. If zero,
	// [DefaultIdempotencyReplay].
	Replay Duration `json:"replay,omitzero"`
	// ScopeHeader names a request header whose value scopes keys, such as
	// the client id a trusted proxy sets after authentication: two
	// clients sending the same key never share a record. If empty, keys
	// are scoped by operation and by the client the host verified (its
	// security scheme and subject); an anonymous request's key by
	// operation only.
	ScopeHeader string `json:"scopeHeader,omitzero"`
}

// Defaults of [Idempotency].
const (
	// DefaultIdempotencyLease is the default of [Idempotency.Lease]:
	// 60 s.
	DefaultIdempotencyLease = 60 * time.Second
	// DefaultIdempotencyReplay is the default of
	// [Idempotency.Replay]: 24 h.
	DefaultIdempotencyReplay = 24 * time.Hour
)
