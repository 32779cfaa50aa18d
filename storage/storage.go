// Package storage is what the host keeps between requests: Idempotency-Key
// records (docs/spec.md §6) and the key-value data guests read and write through
// the ABI's kv_* functions, and the token buckets of rate limits. A [Store]
// is embedded in one process by default ([NewMemory]) or shared by several
// hosts (package storage/redis, opened by name through [Open] once
// imported); an embedder may bring its own through host.Options.Store.
//
//	store := storage.NewMemory(storage.MemoryOptions{})
//	defer store.Close()
//	c, err := store.Claim(ctx, key, fingerprint, time.Minute, storage.Client{ID: "addr:192.0.2.7", MaxBytes: 1 << 20}) // c.Acquired: run the handler
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
	// ErrClientQuota: the client's Idempotency-Key records already take
	// its share of the store ([Client.MaxBytes]); Claim changed nothing.
	// The error is a [*QuotaError], which says when a share comes back.
	ErrClientQuota = errors.New("idempotency client quota reached")
)

// QuotaError is the error of a Claim past the client's share of the
// Idempotency-Key records ([Client.MaxBytes]); it matches
// [ErrClientQuota] with [errors.Is].
//
//	var q *storage.QuotaError
//	if errors.As(err, &q) { w.Header().Set("Retry-After", ...q.RetryAfter...) }
type QuotaError struct {
	// Client is the client's [Client.ID]; Used and MaxBytes are the bytes
	// its records take and may take, and Need those the refused record
	// would have added.
	Client               string
	Used, Need, MaxBytes int64
	// RetryAfter is how long until the client's first record expires and
	// gives its share back; zero when it holds none.
	RetryAfter time.Duration
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("storage: claim for client %.64q: %v: its records take %d of its %d bytes, %d more do not fit",
		e.Client, ErrClientQuota, e.Used, e.MaxBytes, e.Need)
}

// Is reports whether target is [ErrClientQuota].
func (e *QuotaError) Is(target error) bool { return target == ErrClientQuota }

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
//
// Each record counts against the share of the client that claimed it
// ([Client]) until it expires or is released, so that no client can fill
// the store with records that are never evicted early (docs/spec.md §6).
type Idempotency interface {
	// Claim acquires key for a request of client whose fingerprint is fp,
	// for lease (which must be positive), when the key has no record or
	// only an expired lease. Otherwise it returns the record found,
	// unchanged. A claim that would take client's records past
	// client.MaxBytes returns a [*QuotaError] and changes nothing.
	Claim(ctx context.Context, key, fp string, lease time.Duration, client Client) (Claim, error)
	// Complete replaces the claimed record by the answer, kept for ttl
	// (which must be positive), when lease is still the record's lease
	// and has not expired; otherwise it changes nothing and returns
	// ErrLeaseLost. A completed record has no lease: completing or
	// releasing it again is ErrLeaseLost too. The answer counts against
	// the share of the client that claimed the key, even past it: the
	// request ran, so its answer is kept, and the client's next Claim is
	// refused until enough of its records expire. (A client overshoots
	// its share by at most the answers of its requests in flight; the
	// store's own bounds, such as the memory store's budget, still hold.)
	Complete(ctx context.Context, key, lease string, answer Answer, ttl time.Duration) error
	// Release deletes the claimed record when lease is still its lease,
	// so that a retry runs the handler again; otherwise ErrLeaseLost.
	Release(ctx context.Context, key, lease string) error
}

// Client is the client a record is claimed for, and the share of the
// store its records may take together, in flight and completed.
//
//	store.Claim(ctx, key, fp, lease, storage.Client{ID: "addr:192.0.2.7", MaxBytes: 1 << 20})
//
// # Notes
//
//   - A record counts against the client that claimed it until it expires
//     or is released, then gives its share back, whichever client replays
//     it meanwhile.
//   - Bytes are counted as the store counts them: the memory store its
//     records' real cost (as against its IdempotencyBytes budget), the
//     Redis store the bytes of their keys, fields and values plus a fixed
//     overhead per record.
type Client struct {
	// ID names the client; records of one ID count together. Empty: the
	// record counts against no client, and MaxBytes is not checked.
	ID string
	// MaxBytes bounds the bytes of the records of ID. Zero or less: no
	// bound.
	MaxBytes int64
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
