// Package storage is what the host keeps between requests: Idempotency-Key
// records (docs/spec.md §6) and the key-value data guests read and write through
// the ABI's kv_* functions, and the token buckets of rate limits. A [Store]
// is embedded in one process by default ([NewMemory]) or shared by several
// hosts (package storage/redis, opened by name through [Open] once
// imported); an embedder may bring its own through host.Options.Store.
//
//	store := storage.NewMemory(storage.MemoryOptions{})
//	defer store.Close()
//	c, err := store.Claim(ctx, key, fingerprint, time.Minute) // c.Acquired: run the handler
//
// A Store is an [Idempotency] and a [KV]; it may also be a [RateLimiter]
// and a [Pinger]. Package storage/storagetest is the suite every Store
// passes, the built-in ones included.
//
// Every method is safe for concurrent use, and a store copies what it
// keeps: callers may reuse the slices and headers they pass once a method
// returns. The host passes kv_set's value as it lies in the guest's
// memory, which is unmapped when the instance closes: a store that kept
// the slice would crash the process. Methods that reach a remote
// service return an error wrapping [ErrUnavailable] when it cannot be
// reached, so the host can answer 503 rather than guess.
package storage

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Errors a [Store] returns; test them with [errors.Is].
var (
	// ErrUnavailable: the store cannot be reached or failed; nothing was
	// changed, as far as the store knows.
	ErrUnavailable = errors.New("storage unavailable")
	// ErrLeaseLost: Complete or Release came with a lease that is no
	// longer the record's (it expired, and maybe another request claimed
	// the key since).
	ErrLeaseLost = errors.New("idempotency lease lost")
	// ErrFull: the store has no room for the value: a budget of the
	// memory store ([MemoryOptions]) or the Redis store's quota of the
	// app's key-value data is full. Nothing was changed.
	ErrFull = errors.New("storage full")
	// ErrNotInteger: Incr on a value that is not a decimal integer.
	ErrNotInteger = errors.New("value is not an integer")
)

// Store is both halves of the host's storage.
type Store interface {
	Idempotency
	KV
	// Close releases the store's resources (connections, timers).
	Close() error
}

// Pinger is a store that can say whether it answers: the host's readiness
// check (host.Host.Ready, an admin listener's /readyz) asks it. It is
// optional: a store that does not implement it counts as answering.
// [Memory] and the Redis store implement it.
type Pinger interface {
	// Ping returns nil when the store answers now, otherwise an error
	// wrapping [ErrUnavailable] that says why (the server's address and
	// the cause, for a remote store). It must return by ctx's deadline.
	Ping(ctx context.Context) error
}

// Sweeper is a store that drops what expired when asked, not only when its
// entries are next touched: the host's janitor calls Sweep every few
// seconds (half of limits.instanceIdleTimeout), so that an idle store gives
// its expired entries back. It is optional; [Memory] implements it (a
// Redis server expires keys itself).
type Sweeper interface {
	// Sweep drops every entry whose time has come.
	Sweep()
}

// Idempotency keeps one record per Idempotency-Key: claimed while its
// request runs, then completed with the answer to replay. Keys are opaque
// (the host passes a hash of method, route, scope, the verified client
// and the client's key).
//
// The three operations are atomic with respect to each other across every
// host sharing the store: of concurrent Claims of one key, exactly one
// acquires it.
type Idempotency interface {
	// Claim acquires key for a request whose fingerprint is fp, for lease
	// (which must be positive), when the key has no record or only an
	// expired lease. Otherwise it returns the record found, unchanged.
	Claim(ctx context.Context, key, fp string, lease time.Duration) (Claim, error)
	// Complete replaces the claimed record by the answer, kept for ttl
	// (which must be positive), when lease is still the record's lease
	// and has not expired; otherwise it changes nothing and returns
	// ErrLeaseLost. A completed record has no lease: completing or
	// releasing it again is ErrLeaseLost too.
	Complete(ctx context.Context, key, lease string, answer Answer, ttl time.Duration) error
	// Release deletes the claimed record when lease is still its lease,
	// so that a retry runs the handler again; otherwise ErrLeaseLost.
	Release(ctx context.Context, key, lease string) error
}

// Claim is the outcome of [Idempotency.Claim].
type Claim struct {
	// Acquired: the caller holds the key under Lease and runs the handler.
	Acquired bool
	// Lease identifies the caller's claim, for Complete and Release.
	Lease string
	// Record is the record found when not Acquired.
	Record Record
}

// Record is what a key holds when it is not acquired.
type Record struct {
	// Fingerprint of the request that claimed the key.
	Fingerprint string
	// Completed: Answer holds the answer to replay. Otherwise the request
	// is still in flight until LeaseExpires.
	Completed bool
	// LeaseExpires is when an in-flight record's lease runs out, by this
	// host's clock; zero when Completed.
	LeaseExpires time.Time
	// Answer is the completed request's answer.
	Answer Answer
}

// Answer is a stored answer: replayed as it was sent.
type Answer struct {
	// Status is the answer's status code.
	Status int `json:"status"`
	// Header holds the headers to replay; nil for none.
	Header http.Header `json:"header,omitempty"`
	// Body is the whole body; nil for none.
	Body []byte `json:"body,omitempty"`
}

// KV is the guests' key-value data, in namespaces (one per app). Keys and
// values are bytes; a TTL of zero means no expiry. The host also keeps
// records of its own (API keys) in the app's [HostNamespace], which no
// guest can name.
type KV interface {
	// Get returns the value of key, and whether it exists.
	Get(ctx context.Context, ns, key string) ([]byte, bool, error)
	// Set stores value under key, replacing any value, expiring after ttl
	// when ttl > 0.
	Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error
	// Delete removes key and reports whether it existed.
	Delete(ctx context.Context, ns, key string) (bool, error)
	// Incr adds delta to the decimal integer stored at key (0 when
	// absent) and returns the result, atomically; ErrNotInteger when the
	// value is not one or the result overflows int64. Integers are written
	// as strconv.FormatInt writes them; as with Redis's INCRBY, "+1", "01"
	// and " 1" are not integers. It keeps the key's expiry.
	Incr(ctx context.Context, ns, key string, delta int64) (int64, error)
	// List returns, in byte order, at most limit keys that start with
	// prefix and sort after after ("" for the first page). It returns
	// limit keys whenever that many remain, so a shorter page is the last;
	// a limit of zero or less returns none.
	List(ctx context.Context, ns, prefix, after string, limit int) ([]string, error)
}

// HostNamespace is the KV namespace where the host keeps its own records
// for the app whose namespace is app, such as the API keys a verifier
// with "store": true looks up: app followed by a NUL byte and "host".
//
//	storage.HostNamespace("shop") // "shop\x00host"
//
// Guests reach only their app's namespace (the host passes it to every
// kv_* call), and an app's namespace never holds a NUL byte (the host
// refuses one: [ValidNamespace]), so no guest of any app sharing the store
// can read or write the host's records. A store needs to do nothing for
// this beyond keeping namespaces apart, which storagetest checks.
func HostNamespace(app string) string { return app + hostSuffix }

const hostSuffix = "\x00host"

// ValidNamespace reports why app cannot be an app's namespace, or nil: it
// must not be empty, and must not hold a NUL byte, which [HostNamespace]
// reserves for the host.
func ValidNamespace(app string) error {
	switch {
	case app == "":
		return errors.New("the namespace is empty")
	case strings.IndexByte(app, 0) >= 0:
		return fmt.Errorf("the namespace %q holds a NUL byte, which the host reserves for its own records", app)
	}
	return nil
}
