// Package redis is a [storage.Store] on a Redis server, shared by every host
// that points at it: the Idempotency-Key guarantee (docs/spec.md §6: the handler
// runs once per key) then holds across hosts behind a load balancer, and
// guests see the same KV data on each.
//
//	store, err := redis.New("redis://127.0.0.1:6379/0", "shop")
//	if err != nil { ... }          // a malformed URL
//	if err := store.Ping(ctx); err != nil {
//		log.Printf("%v; answering 503 until it returns", err)
//	}
//
// # Layout
//
// Every key starts with "endpoints:" and the store's namespace, so several
// deployments can share one database:
//
//	endpoints:{namespace}:idem:{key}        hash: fp, state ("flight" or "done"), lease ("" once done), answer, set, sum, size, until
//	endpoints:{namespace}:idemclient:{client}       sorted set: "size:record key" of the client's records, scored by expiry (ms)
//	endpoints:{namespace}:idemclientbytes:{client}  string: the sum of those sizes
//	endpoints:{namespace}:kv:{ns}:{key}     string: the value
//	endpoints:{namespace}:kvindex:{ns}      sorted set: the keys of ns, all with score 0
//	endpoints:{namespace}:kvttl:{ns}        sorted set: the keys of ns that expire, scored by expiry (ms)
//	endpoints:{namespace}:kvttlsize:{ns}    hash: the size of each key of ns that expires
//	endpoints:{namespace}:kvusage           hash: keys, bytes (what the app's KV data counts against its quota)
//	endpoints:{namespace}:ratelimit:{key}   hash: tokens, ts (a rate limit's token bucket)
//
// In the namespace and ns, "%" and ":" are written %25 and %3A, so that no
// two (ns, key) pairs share a Redis key. The host's own records (API keys)
// are KV entries of ns = storage.HostNamespace(app), "app\x00host", which
// no guest key of the app's ns can reach.
//
// # Notes
//
//   - Claim, Complete and Release are Lua scripts (EVALSHA, EVAL when the
//     server has not seen them yet): each reads and writes one record
//     atomically. An in-flight record is written with PX = lease, so it
//     vanishes when the lease runs out; a completed one with PX = ttl.
//     Record.LeaseExpires is this host's clock plus the record's PTTL, so
//     hosts need not agree on the time.
//   - Each record counts against its client's share (storage.Client): the
//     claim script counts the record and, when the sum then passes the
//     share (or the client has no bound), drops from the client's set the
//     records that expired by the server's clock, giving their bytes back,
//     and refuses a record that still does not fit; Complete moves the
//     record's entry (its answer counts, even past the share) and Release
//     drops it. The set and its sum expire with the client's last record, so
//     nothing is left behind. A record counts the bytes of its key,
//     fingerprint, lease, answer and client id, plus 160 for the rest.
//   - Claim and Complete run on every request with an Idempotency-Key:
//     while the share has room they make 8 and 9 calls inside Redis, pass
//     it strings rather than Lua numbers (Redis 7.0 writes those with
//     "%.17g", dearer than most of the commands) and raise the set's expiry
//     with PEXPIREAT GT rather than reading its last score, so the server
//     must be Redis 7.0 or later. idemclient.lua says more.
//   - List reads the namespace's sorted set with ZRANGE BYLEX, which pages
//     in byte order in O(log n + page). SCAN would walk the whole database
//     (every Idempotency-Key record included) on every call, unordered. Set,
//     Delete and Incr are Lua scripts that change the value, the index and
//     the quota's counts at once. A key with a TTL is also in the
//     namespace's expiry index: every Set, Incr and Delete first drops from
//     the indexes (and the quota) up to 64 keys whose values expired, so
//     expired keys do not stay behind in the index; a List that meets one
//     before that drops it too (checking again that it is gone, so a key
//     set again meanwhile stays listed).
//   - The guests' key-value data of one app (the store's namespace) has a
//     quota: at most [DefaultMaxKVKeys] keys and [DefaultMaxKVBytes] bytes
//     (the lengths of keys and values: Redis's own overhead comes on top),
//     set with the URL's kv_max_keys and kv_max_bytes. The scripts count
//     both in endpoints:{namespace}:kvusage and refuse, with an error
//     wrapping [storage.ErrFull], a write that would pass either; a value
//     that expires gives its bytes back when it is swept. Idempotency-Key
//     records have the per-client share above and no quota of the app's:
//     each expires (its lease, its replay window), as do rate-limit buckets
//     (once full again), and Redis's maxmemory bounds the whole server.
//   - Network failures, timeouts, a closed Store and unexpected server
//     errors return an error wrapping [storage.ErrUnavailable] that names the
//     command, the server's address and the cause.
//   - Timeouts default to 1 s to dial, read and write ([DefaultDialTimeout],
//     [DefaultReadTimeout]), with one dial attempt
//     and no command retries, so a dead server costs a request at most about
//     a second. Retries are off because a command whose answer was lost may
//     have run: running INCRBY or Complete again would not be safe. URL query
//     parameters (dial_timeout, read_timeout, write_timeout, max_retries, ...)
//     override these. go-redis reconnects by itself: when the server returns,
//     the same Store works again (after at most about a second if many
//     requests failed meanwhile, the pool's dial back-off).
//   - Redis Cluster is not supported (MULTI across a value and its index
//     needs one node); a single server, or a primary behind Sentinel or a
//     proxy, is.
package redis

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/wasmendpoints/endpoints/storage"
)

// Defaults applied when the URL does not set them ("dial_timeout",
// "read_timeout", "write_timeout").
const (
	// DefaultDialTimeout bounds connecting to the server: 1 s.
	DefaultDialTimeout = time.Second
	// DefaultReadTimeout bounds waiting for an answer: 1 s. Writes get as
	// long unless write_timeout says otherwise.
	DefaultReadTimeout = time.Second
)

// Quotas of an app's key-value data, when the URL does not set them
// ("kv_max_keys", "kv_max_bytes").
const (
	// DefaultMaxKVKeys is how many keys an app's KV data may hold:
	// 1,000,000.
	DefaultMaxKVKeys = 1_000_000
	// DefaultMaxKVBytes is how many bytes its keys and values may take:
	// 256 MiB.
	DefaultMaxKVBytes = 256 << 20
)

// Store is a [storage.Store] on one Redis server. Every method is safe for
// concurrent use; the connections are go-redis's pool.
type Store struct {
	client            *goredis.Client
	addr              string // for error messages; the URL may hold a password
	idem, kv          string // key prefixes
	idemClient        string
	idemClientBytes   string
	index, ttl, sizes string
	usage             string
	rateLimit         string
	maxKeys, maxBytes int64       // the KV quota
	versionOK         atomic.Bool // the server's version was checked (Ping)
}

// MinVersion is the oldest Redis server the store's scripts run on: they
// use PEXPIREAT ... GT, which Redis 7.0 added.
const MinVersion = 7

var (
	_ storage.Store  = (*Store)(nil)
	_ storage.Pinger = (*Store)(nil)
)

// The driver name "redis" opens this store for endpoints.json's
// {"storage": {"driver": "redis", "url": "redis://..."}}; importing the
// package registers it.
func init() {
	storage.Register("redis", func(ctx context.Context, url, namespace string) (storage.Store, error) {
		return New(url, namespace)
	})
}

// New returns a Store on the server at rawURL, keeping its keys under
// "endpoints:{namespace}:". rawURL is parsed by go-redis's ParseURL:
//
//	redis://[user:password@]host:port/db[?dial_timeout=2s&read_timeout=500ms]
//	rediss://...        (TLS)
//	unix:///run/redis.sock?db=0
//
// A '#', '/', '?' or '@' in the user name or password is percent-encoded
// (%23, %2F, %3F, %40): New refuses a URL with a '#', or an '@' past its
// host, which Go's URL parser would read as a fragment, a path or a query,
// and part of the password as the host and port.
//
// Two query parameters of the URL are this package's, not go-redis's: the
// app's key-value quota, kv_max_keys (default [DefaultMaxKVKeys]) and
// kv_max_bytes (default [DefaultMaxKVBytes]):
//
//	redis://127.0.0.1:6379/0?kv_max_keys=10000&kv_max_bytes=16777216
//
// New does not connect, so a host starts while Redis is down and answers 503
// until it returns; call [Store.Ping] to check the server at startup.
func New(rawURL, namespace string) (*Store, error) {
	rest, maxKeys, maxBytes, err := quota(rawURL)
	if err != nil {
		return nil, err
	}
	opts, err := goredis.ParseURL(rest)
	if err != nil {
		return nil, fmt.Errorf("storage/redis: URL %q: %w (want e.g. redis://127.0.0.1:6379/0)", redactURL(rawURL), err)
	}
	if namespace == "" {
		return nil, errors.New("storage/redis: empty namespace (it prefixes every key: endpoints:{namespace}:...)")
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = DefaultDialTimeout
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = -1
	}
	if opts.DialerRetries == 0 {
		opts.DialerRetries = 1
	}
	opts.ContextTimeoutEnabled = true
	prefix := "endpoints:" + escape(namespace) + ":"
	return &Store{
		client:          goredis.NewClient(opts),
		addr:            opts.Addr,
		idem:            prefix + "idem:",
		idemClient:      prefix + "idemclient:",
		idemClientBytes: prefix + "idemclientbytes:",
		kv:              prefix + "kv:",
		index:           prefix + "kvindex:",
		ttl:             prefix + "kvttl:",
		sizes:           prefix + "kvttlsize:",
		usage:           prefix + "kvusage",
		rateLimit:       prefix + "ratelimit:",
		maxKeys:         maxKeys,
		maxBytes:        maxBytes,
	}, nil
}

// quota takes kv_max_keys and kv_max_bytes out of rawURL, and returns the
// rest of the URL and their values, defaults applied.
func quota(rawURL string) (rest string, maxKeys, maxBytes int64, err error) {
	maxKeys, maxBytes = DefaultMaxKVKeys, DefaultMaxKVBytes
	if err := checkUserInfo(rawURL); err != nil {
		return "", 0, 0, fmt.Errorf("storage/redis: URL %q: %w", redactURL(rawURL), err)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", 0, 0, fmt.Errorf("storage/redis: URL %q: %w (want e.g. redis://127.0.0.1:6379/0)", redactURL(rawURL), parseError(rawURL, err))
	}
	q := u.Query()
	for _, p := range []struct {
		name string
		to   *int64
	}{{"kv_max_keys", &maxKeys}, {"kv_max_bytes", &maxBytes}} {
		if !q.Has(p.name) {
			continue
		}
		n, err := strconv.ParseInt(q.Get(p.name), 10, 64)
		if err != nil || n <= 0 {
			return "", 0, 0, fmt.Errorf("storage/redis: URL %q: %s=%q: want a positive integer", redactURL(rawURL), p.name, q.Get(p.name))
		}
		*p.to = n
		q.Del(p.name)
	}
	u.RawQuery = q.Encode()
	return u.String(), maxKeys, maxBytes, nil
}

// Ping implements [storage.Pinger]: it checks that the server answers
// and, the first time it does, that it is Redis [MinVersion] or later
// when it says (INFO; a user whose ACL denies INFO is not refused for
// that). The error wraps [storage.ErrUnavailable] when the server does not
// answer; an older server's names its version and wraps nothing.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return s.fail("PING", err)
	}
	if s.versionOK.Load() {
		return nil
	}
	info, err := s.client.Info(ctx, "server").Result()
	var refused goredis.Error
	switch {
	case errors.As(err, &refused):
		// The server answered, but will not say: its ACL denies the
		// user INFO (@dangerous), or a proxy lacks it. The version is
		// unknown, as when INFO leaves it out; the store's commands may
		// still run.
		s.versionOK.Store(true)
		return nil
	case err != nil:
		return s.fail("INFO server", err)
	}
	if err := checkVersion(info); err != nil {
		// Not ErrUnavailable: the server answers, and waiting will not
		// make it newer.
		return fmt.Errorf("redis on %s: %w", s.addr, err)
	}
	s.versionOK.Store(true)
	return nil
}

// checkVersion reads redis_version from the text of INFO server and
// refuses a server older than MinVersion, whose scripts would fail every
// Idempotency-Key claim. A server that does not say (a proxy) passes.
func checkVersion(info string) error {
	for line := range strings.Lines(info) {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:")
		if !ok {
			continue
		}
		major, _, _ := strings.Cut(v, ".")
		if n, err := strconv.Atoi(major); err == nil && n < MinVersion {
			return fmt.Errorf("the server is Redis %s; Endpoints needs Redis %d.0 or later (its Idempotency-Key scripts use PEXPIREAT ... GT): upgrade the server", v, MinVersion)
		}
		return nil
	}
	return nil
}

// Close closes the connections; later calls return an error wrapping
// [storage.ErrUnavailable].
func (s *Store) Close() error {
	return s.client.Close()
}

var (
	//go:embed idemclient.lua
	idemClientSource string
	//go:embed claim.lua
	claimSource string
	//go:embed complete.lua
	completeSource string
	//go:embed release.lua
	releaseSource string
	//go:embed unindex.lua
	unindexSource string
	//go:embed kvsweep.lua
	kvSweepSource string
	//go:embed kvset.lua
	kvSetSource string
	//go:embed kvincr.lua
	kvIncrSource string
	//go:embed kvdel.lua
	kvDelSource string

	// The Idempotency-Key scripts begin with the clients' shares.
	claimScript    = goredis.NewScript(idemClientSource + claimSource)
	completeScript = goredis.NewScript(idemClientSource + completeSource)
	releaseScript  = goredis.NewScript(idemClientSource + releaseSource)
	// The key-value scripts begin with the sweep of expired keys.
	unindexScript = goredis.NewScript(kvSweepSource + unindexSource)
	kvSetScript   = goredis.NewScript(kvSweepSource + kvSetSource)
	kvIncrScript  = goredis.NewScript(kvSweepSource + kvIncrSource)
	kvDelScript   = goredis.NewScript(kvSweepSource + kvDelSource)
)

// recordOverhead is what a record counts against its client's share
// beside the bytes of its key, fields and values: the hash's field names
// and Redis's bookkeeping of the hash and of the client's set member,
// roughly.
const recordOverhead = 160

// Claim implements [storage.Idempotency.Claim]: one script (claim.lua)
// reads the record, checks and counts the client's share, and writes the
// record.
func (s *Store) Claim(ctx context.Context, key, fp string, lease time.Duration, client storage.Client) (storage.Claim, error) {
	if lease <= 0 {
		return storage.Claim{}, fmt.Errorf("storage/redis: claim %q: lease %v must be positive", key, lease)
	}
	token := newLease()
	e := escape(client.ID)
	keys := []string{s.idem + key, s.idemClient + e, s.idemClientBytes + e}
	reply, err := claimScript.Run(ctx, s.client, keys, fp, token, milliseconds(lease), client.ID, max(client.MaxBytes, 0), recordOverhead).Slice()
	if err != nil {
		return storage.Claim{}, s.fail("claim script", err)
	}
	switch code, _ := reply[0].(int64); code {
	case 1:
		return storage.Claim{Acquired: true, Lease: token}, nil
	case 2:
		return storage.Claim{}, quotaError(reply)
	}
	if len(reply) != 5 {
		return storage.Claim{}, s.fail("claim script", fmt.Errorf("unexpected reply %v", reply))
	}
	fpFound, _ := reply[1].(string)
	state, _ := reply[2].(string)
	rec := storage.Record{Fingerprint: fpFound}
	switch state {
	case "done":
		rec.Completed = true
		encoded, _ := reply[3].(string)
		if err := json.Unmarshal([]byte(encoded), &rec.Answer); err != nil {
			return storage.Claim{}, s.fail("claim script", fmt.Errorf("record %q holds an answer that is not JSON: %w", key, err))
		}
	case "flight":
		pttl, _ := reply[4].(int64)
		rec.LeaseExpires = time.Now().Add(time.Duration(max(pttl, 0)) * time.Millisecond)
	default:
		return storage.Claim{}, s.fail("claim script", fmt.Errorf("record %q has state %q, want flight or done", key, state))
	}
	return storage.Claim{Record: rec}, nil
}

// Complete implements [storage.Idempotency.Complete].
func (s *Store) Complete(ctx context.Context, key, lease string, answer storage.Answer, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("storage/redis: complete %q: ttl %v must be positive", key, ttl)
	}
	encoded, err := json.Marshal(answer)
	if err != nil {
		return fmt.Errorf("storage/redis: complete %q: encoding the answer: %w", key, err)
	}
	ok, err := completeScript.Run(ctx, s.client, []string{s.idem + key}, lease, encoded, milliseconds(ttl)).Int()
	if err != nil {
		return s.fail("complete script", err)
	}
	if ok != 1 {
		return fmt.Errorf("storage/redis: key %q: %w", key, storage.ErrLeaseLost)
	}
	return nil
}

// quotaError is the error of the claim script's refusal (idemclient.lua):
// {2, used, need, retry in ms, the share, the client's id}.
func quotaError(reply []any) error {
	q := &storage.QuotaError{}
	if len(reply) == 6 {
		q.Used, _ = reply[1].(int64)
		q.Need, _ = reply[2].(int64)
		ms, _ := reply[3].(int64)
		q.RetryAfter = time.Duration(ms) * time.Millisecond
		q.MaxBytes, _ = reply[4].(int64)
		q.Client, _ = reply[5].(string)
	}
	return q
}

// Release implements [storage.Idempotency.Release].
func (s *Store) Release(ctx context.Context, key, lease string) error {
	ok, err := releaseScript.Run(ctx, s.client, []string{s.idem + key}, lease).Int()
	if err != nil {
		return s.fail("release script", err)
	}
	if ok != 1 {
		return fmt.Errorf("storage/redis: key %q: %w", key, storage.ErrLeaseLost)
	}
	return nil
}

// Get implements [storage.KV.Get].
func (s *Store) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	v, err := s.client.Get(ctx, s.kvKey(ns, key)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.fail("GET", err)
	}
	return v, true, nil
}

// kvKeys are the Redis keys the key-value scripts of ns take (kvsweep.lua),
// and the prefix of its values.
func (s *Store) kvKeys(ns string) ([]string, string) {
	e := escape(ns)
	return []string{s.index + e, s.ttl + e, s.sizes + e, s.usage}, s.kv + e + ":"
}

// full returns the error of a write the quota refused.
func (s *Store) full(op, ns, key string) error {
	return fmt.Errorf("storage/redis: %s %.64q in %q: %w: the app's key-value data would pass its quota of %d keys and %d bytes (kv_max_keys, kv_max_bytes in the storage URL)",
		op, key, ns, storage.ErrFull, s.maxKeys, s.maxBytes)
}

// Set implements [storage.KV.Set]: one script (kvset.lua) sets the value
// (with PX when ttl > 0), indexes it and counts it against the quota, or
// returns an error wrapping [storage.ErrFull] and changes nothing.
func (s *Store) Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error {
	keys, prefix := s.kvKeys(ns)
	var ms int64
	if ttl > 0 {
		ms = milliseconds(ttl)
	}
	ok, err := kvSetScript.Run(ctx, s.client, keys, prefix, key, value, ms, s.maxKeys, s.maxBytes).Int()
	if err != nil {
		return s.fail("set script", err)
	}
	if ok != 1 {
		return s.full("set", ns, key)
	}
	return nil
}

// Delete implements [storage.KV.Delete]: one script (kvdel.lua) deletes
// the value and its index entries and gives its bytes back to the quota.
func (s *Store) Delete(ctx context.Context, ns, key string) (bool, error) {
	keys, prefix := s.kvKeys(ns)
	n, err := kvDelScript.Run(ctx, s.client, keys, prefix, key).Int()
	if err != nil {
		return false, s.fail("delete script", err)
	}
	return n == 1, nil
}

// Incr implements [storage.KV.Incr]: INCRBY, which keeps the key's expiry,
// in one script (kvincr.lua) with the index and the quota. Redis's "not an
// integer or out of range" and "would overflow" errors are
// [storage.ErrNotInteger].
func (s *Store) Incr(ctx context.Context, ns, key string, delta int64) (int64, error) {
	keys, prefix := s.kvKeys(ns)
	reply, err := kvIncrScript.Run(ctx, s.client, keys, prefix, key, delta, s.maxKeys, s.maxBytes).Slice()
	if err != nil {
		if notInteger(err) {
			return 0, fmt.Errorf("storage/redis: incr %q in %q: %w: %v", key, ns, storage.ErrNotInteger, err)
		}
		return 0, s.fail("incr script", err)
	}
	if ok, _ := reply[0].(int64); ok != 1 || len(reply) != 2 {
		return 0, s.full("incr", ns, key)
	}
	value, _ := reply[1].(string)
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return 0, s.fail("incr script", fmt.Errorf("the value of %q in %q is %q after INCRBY, not an integer", key, ns, value))
	}
	return n, nil
}

// List implements [storage.KV.List]. It reads the index with ZRANGE BYLEX
// and keeps the keys that still exist, reading further until it has limit
// keys or the index ends. A limit of zero or less returns no keys.
func (s *Store) List(ctx context.Context, ns, prefix, after string, limit int) ([]string, error) {
	keys := []string{}
	if limit <= 0 {
		return keys, nil
	}
	start := "[" + prefix
	if after >= prefix {
		start = "(" + after
	}
	stop := "+"
	if end, ok := prefixEnd(prefix); ok {
		stop = "(" + end
	}
	index := s.indexKey(ns)
	for len(keys) < limit {
		want := limit - len(keys)
		page, err := s.client.ZRangeArgs(ctx, goredis.ZRangeArgs{Key: index, Start: start, Stop: stop, ByLex: true, Count: int64(want)}).Result()
		if err != nil {
			return nil, s.fail("ZRANGE BYLEX", err)
		}
		if len(page) == 0 {
			break
		}
		exists := make([]*goredis.IntCmd, len(page))
		_, err = s.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
			for i, k := range page {
				exists[i] = p.Exists(ctx, s.kvKey(ns, k))
			}
			return nil
		})
		if err != nil {
			return nil, s.fail("EXISTS", err)
		}
		var gone []string
		for i, k := range page {
			if exists[i].Val() == 1 {
				keys = append(keys, k)
			} else {
				gone = append(gone, k)
			}
		}
		if len(gone) > 0 {
			if err := s.unindex(ctx, ns, gone); err != nil {
				return nil, err
			}
		}
		if len(page) < want {
			break
		}
		start = "(" + page[len(page)-1]
	}
	return keys, nil
}

// unindex removes from ns's index (and the quota) the keys whose values
// have expired, in one script that checks again that each value is gone.
func (s *Store) unindex(ctx context.Context, ns string, gone []string) error {
	keys, prefix := s.kvKeys(ns)
	args := make([]any, 0, 1+len(gone))
	args = append(args, prefix)
	for _, k := range gone {
		args = append(args, k)
	}
	if err := unindexScript.Run(ctx, s.client, keys, args...).Err(); err != nil {
		return s.fail("unindex script", err)
	}
	return nil
}

// kvKey is the Redis key of key in ns.
func (s *Store) kvKey(ns, key string) string { return s.kv + escape(ns) + ":" + key }

// indexKey is the Redis key of ns's sorted set of keys.
func (s *Store) indexKey(ns string) string { return s.index + escape(ns) }

// fail wraps err, from a command that went wrong, in ErrUnavailable.
func (s *Store) fail(command string, err error) error {
	return fmt.Errorf("%w: redis %s on %s: %w", storage.ErrUnavailable, command, s.addr, err)
}

// notInteger reports whether err is Redis's answer to INCRBY on a value
// that is not an integer, or whose result overflows.
func notInteger(err error) bool {
	var rerr goredis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	return strings.Contains(msg, "not an integer") || strings.Contains(msg, "overflow")
}

// escape writes % and : as %25 and %3A, so that a namespace cannot contain
// the separator.
func escape(s string) string {
	if !strings.ContainsAny(s, "%:") {
		return s
	}
	return strings.NewReplacer("%", "%25", ":", "%3A").Replace(s)
}

// prefixEnd returns the least string greater than every string starting
// with prefix, and false when there is none (prefix empty or all 0xff).
func prefixEnd(prefix string) (string, bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// redactURL hides the password in a URL, for error messages: one that
// does not parse (a password holding '#', '/' or a bad escape), or whose
// user info Go's parser misreads (see checkUserInfo), loses all of its
// user info.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err == nil && checkUserInfo(rawURL) == nil {
		return u.Redacted()
	}
	if scheme, rest, ok := strings.Cut(rawURL, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			return scheme + "://xxxxx" + rest[at:]
		}
	}
	return rawURL
}

// checkUserInfo refuses a URL whose user info Go's URL parser, and so
// go-redis's, would misread, saying what to percent-encode: a '#' starts
// the fragment, and a '/' or '?' ends the host, so that in
// redis://u:12#ss@host:6379 the host is "u", the port 12 and the rest a
// fragment go-redis ignores. The store would dial a host made of the
// password, and name it in every error. A Redis URL has no fragment, nor
// an '@' past its host, so either means such a password. The error holds
// none of the URL.
func checkUserInfo(rawURL string) error {
	_, rest, ok := strings.Cut(rawURL, "://")
	if !ok || !strings.Contains(rest, "@") {
		return nil
	}
	if strings.Contains(rest, "#") {
		return errors.New("it has a '#' in it: percent-encode its password (# is %23)")
	}
	if end := strings.IndexAny(rest, "/?"); end >= 0 && strings.Contains(rest[end:], "@") {
		return errors.New("an '@' comes after its host: percent-encode a '/' or '?' in its user name or password (/ is %2F, ? is %3F, @ is %40)")
	}
	return nil
}

// parseError is the error url.Parse gave for rawURL, without the URL it
// quotes (its password): what is wrong, or, for a URL with user info, a
// hint that holds none of it (Go's reason may quote the password, or the
// bad escape in it, or the part it read as a port).
func parseError(rawURL string, err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	if _, rest, ok := strings.Cut(rawURL, "://"); ok && strings.Contains(rest, "@") {
		return errors.New("it does not parse: percent-encode a '#', '/', '?', '@' or '%' in the user name or password (%23, %2F, %3F, %40, %25)")
	}
	return ue.Err
}

// milliseconds rounds d up to whole milliseconds, for PX and PEXPIRE: a
// positive duration never becomes 0, which would delete the key.
func milliseconds(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// newLease returns a fresh lease token: 16 random bytes in hex.
func newLease() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
