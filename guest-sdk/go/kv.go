package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/jsonenc"
)

// KV is the app's key-value store, kept by the host between requests and
// shared by every route of the app (and, with a Redis store, by every host
// serving it). Use it from a handler or a validation-error hook:
//
//	n, err := endpoints.KV.Incr("visits:"+in.Page, 1)
//	if err != nil {
//		return 0, err // HandleFunc answers 503 when the store is down
//	}
//
// See [KVStore] for the methods and their limits.
var KV KVStore

// KVStore is the type of [KV], the app's key-value store. Keys are strings
// of at most [abi.KVMaxKey] bytes, values bytes of at most
// [abi.KVMaxValue]; the store is namespaced per app by the host, so keys
// need no app prefix.
//
// # Errors
//
// Every method returns an error wrapping an [abi.Errno] when the host
// refuses the call:
//
//   - [ErrStorageUnavailable] (abi.ErrUnavailable) when the store cannot
//     be reached or is full; nothing was changed. A [HandleFunc] handler
//     that returns it answers 503; a [Handle] handler checks for it with
//     errors.Is and answers as it likes.
//   - [abi.ErrState] outside a request: in init, or while the host reads
//     the contract.
//   - [abi.ErrInvalid] for a key or value over its limit (checked before
//     the host is called), a negative TTL, or [KVStore.Incr] on a value
//     that is not a decimal integer.
//
// # Notes
//
//   - Calls go to the host one at a time; there are no transactions. Incr
//     is the atomic operation: use it for counters and rate limits rather
//     than Get followed by Set.
//   - In a native build (go test), KV is an in-memory map shared by the
//     process, usable in and outside requests so that tests can call
//     handlers directly; Reset of package endpointstest empties it.
type KVStore struct{}

// ErrStorageUnavailable is the error, wrapped, of a [KV] call that the
// host could not serve because the store is down or full. Test it with
// errors.Is:
//
//	if errors.Is(err, endpoints.ErrStorageUnavailable) {
//		return endpoints.Respond(503, Problem{Title: "Try again later"})
//	}
//
// It is [abi.ErrUnavailable], so errors.Is(err, abi.ErrUnavailable) holds
// too. A [HandleFunc] handler that returns such an error answers 503 with
// {"statusCode":503,"statusMessage":"Service Unavailable"}.
var ErrStorageUnavailable error = abi.ErrUnavailable

// kvBuf receives values and kv_list pages. It starts at 1 KiB; a value
// larger than it is read into a slice of its own, and it grows to the
// largest page of keys seen. An instance serves one request at a time, so
// it needs no lock.
var kvBuf = make([]byte, 1024)

// argError is a KV argument the SDK refuses before calling the host, as
// the host would: it wraps abi.ErrInvalid.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func (e *argError) Unwrap() error { return abi.ErrInvalid }

// shortKey is key as error messages show it: quoted, its first 64 bytes.
func shortKey(key string) string {
	if len(key) > 64 {
		return fmt.Sprintf("%q...", key[:64])
	}
	return fmt.Sprintf("%q", key)
}

// checkKey refuses a key longer than abi.KVMaxKey for method.
func checkKey(method, key string) error {
	if len(key) > abi.KVMaxKey {
		return &argError{fmt.Sprintf("endpoints: KV.%s %s: the key is %d bytes, over the limit of %d (abi.KVMaxKey)",
			method, shortKey(key), len(key), abi.KVMaxKey)}
	}
	return nil
}

// kvError wraps the error of host function fn for method and key.
func kvError(method, key, fn string, rc int32) error {
	return fmt.Errorf("endpoints: KV.%s %s: %w", method, shortKey(key), check(fn, rc))
}

// ttlSeconds converts a TTL to the whole seconds kv_set takes, rounding
// up: 1500ms is 2 s, 0 is no expiry.
func ttlSeconds(method, key string, ttl time.Duration) (int32, error) {
	if ttl < 0 {
		return 0, &argError{fmt.Sprintf("endpoints: KV.%s %s: the TTL %s is negative: use 0 for no expiry", method, shortKey(key), ttl)}
	}
	s := ttl / time.Second
	if ttl%time.Second != 0 {
		s++
	}
	if s > math.MaxInt32 {
		return 0, &argError{fmt.Sprintf("endpoints: KV.%s %s: the TTL %s is over the limit of %d seconds: use 0 for no expiry",
			method, shortKey(key), ttl, math.MaxInt32)}
	}
	return int32(s), nil
}

// Get returns the value stored under key and true, or nil and false when
// there is none (or it expired). The slice is the caller's.
//
//	v, ok, err := endpoints.KV.Get("session:" + token)
func (KVStore) Get(key string) ([]byte, bool, error) {
	if err := checkKey("Get", key); err != nil {
		return nil, false, err
	}
	buf, shared := kvBuf, true
	for range 3 {
		n := kvGet(key, buf)
		if abi.Errno(n) == abi.ErrNotFound {
			return nil, false, nil
		}
		if n < 0 {
			return nil, false, kvError("Get", key, abi.ImportKVGet, n)
		}
		if int(n) <= len(buf) {
			if shared {
				return bytes.Clone(buf[:n]), true, nil
			}
			return buf[:n], true, nil
		}
		// Too large for kvBuf: read it into its own slice. Another host
		// may change the value between the calls, hence the loop.
		buf, shared = make([]byte, n), false
	}
	return nil, false, fmt.Errorf("endpoints: KV.Get %s: host function %s: the value's size kept changing", shortKey(key), abi.ImportKVGet)
}

// Set stores value under key, replacing any value. A positive ttl makes
// it expire after ttl, rounded up to whole seconds; 0 keeps it until it
// is deleted.
//
//	err := endpoints.KV.Set("session:"+token, data, 30*time.Minute)
//
// A key over [abi.KVMaxKey] bytes, a value over [abi.KVMaxValue] bytes or
// a negative ttl is an error wrapping [abi.ErrInvalid], and the host is
// not called.
func (KVStore) Set(key string, value []byte, ttl time.Duration) error {
	if err := checkKey("Set", key); err != nil {
		return err
	}
	if len(value) > abi.KVMaxValue {
		return &argError{fmt.Sprintf("endpoints: KV.Set %s: the value is %d bytes, over the limit of %d (abi.KVMaxValue)",
			shortKey(key), len(value), abi.KVMaxValue)}
	}
	secs, err := ttlSeconds("Set", key, ttl)
	if err != nil {
		return err
	}
	if rc := kvSet(key, value, secs); rc < 0 {
		return kvError("Set", key, abi.ImportKVSet, rc)
	}
	return nil
}

// Delete removes key and reports whether it existed.
//
//	existed, err := endpoints.KV.Delete("session:" + token)
func (KVStore) Delete(key string) (bool, error) {
	if err := checkKey("Delete", key); err != nil {
		return false, err
	}
	switch rc := kvDelete(key); {
	case abi.Errno(rc) == abi.ErrNotFound:
		return false, nil
	case rc < 0:
		return false, kvError("Delete", key, abi.ImportKVDelete, rc)
	}
	return true, nil
}

// Incr adds delta (which may be negative) to the integer stored under key
// and returns the result, atomically across every host sharing the store.
// An absent key counts as 0 and is created without expiry; an existing
// key keeps its expiry.
//
//	n, err := endpoints.KV.Incr("hits:"+day, 1)
//
// # Notes
//
//   - The value is stored as decimal text: Get returns "42", and Set of
//     []byte("10") starts a counter at 10 (Set is also how a counter gets
//     a TTL). Incr on any other value is an error wrapping
//     [abi.ErrInvalid].
func (KVStore) Incr(key string, delta int64) (int64, error) {
	if err := checkKey("Incr", key); err != nil {
		return 0, err
	}
	var out int64
	if rc := kvIncr(key, delta, &out); rc < 0 {
		return 0, kvError("Incr", key, abi.ImportKVIncr, rc)
	}
	return out, nil
}

// Keys returns the keys that start with prefix, in byte order, fetching
// them from the host a page of [abi.KVListLimit] at a time as the loop
// goes on. An error ends the sequence, as its last pair:
//
//	for key, err := range endpoints.KV.Keys("session:") {
//		if err != nil {
//			return err
//		}
//		fmt.Println(key)
//	}
//
// # Notes
//
//   - Keys set or deleted during the loop may or may not be seen; a key is
//     never seen twice.
//   - Each page is read whole before its keys are yielded, so the loop's
//     body may call the other methods of KV, Delete included.
func (KVStore) Keys(prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := checkKey("Keys", prefix); err != nil {
			yield("", err)
			return
		}
		after := ""
		for {
			page, err := listPage(prefix, after)
			if err != nil {
				yield("", err)
				return
			}
			for _, key := range page {
				if !yield(key, nil) {
					return
				}
			}
			if len(page) < abi.KVListLimit {
				return
			}
			last := page[len(page)-1]
			if last <= after {
				yield("", fmt.Errorf("endpoints: KV.Keys %s: host function %s: the page after %s ends at %s, which does not sort after it",
					shortKey(prefix), abi.ImportKVList, shortKey(after), shortKey(last)))
				return
			}
			after = last
		}
	}
}

// listPage returns the keys kv_list answers for prefix and after.
func listPage(prefix, after string) ([]string, error) {
	for range 3 {
		n := kvList(prefix, after, kvBuf)
		if n < 0 {
			return nil, fmt.Errorf("endpoints: KV.Keys %s: %w", shortKey(prefix), check(abi.ImportKVList, n))
		}
		if int(n) > len(kvBuf) {
			kvBuf = make([]byte, n)
			continue
		}
		var keys []string
		err := eachElement(kvBuf[:n], func(raw []byte) error {
			key, err := decodeString(raw)
			keys = append(keys, key)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("endpoints: KV.Keys %s: host function %s: the answer is not a JSON array of strings: %w",
				shortKey(prefix), abi.ImportKVList, err)
		}
		return keys, nil
	}
	return nil, fmt.Errorf("endpoints: KV.Keys %s: host function %s: the page's size kept changing", shortKey(prefix), abi.ImportKVList)
}

// GetJSON decodes the JSON value stored under key into v, as
// json.Unmarshal does, and reports whether there was one; v is left alone
// when there is none.
//
//	var s Session
//	ok, err := endpoints.KV.GetJSON("session:"+token, &s)
func (k KVStore) GetJSON(key string, v any) (bool, error) {
	b, ok, err := k.Get(key)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("endpoints: KV.GetJSON %s: decoding the value: %w", shortKey(key), err)
	}
	return true, nil
}

// SetJSON stores the JSON encoding of v (json.Marshal's) under key, as
// [KVStore.Set] does.
//
//	err := endpoints.KV.SetJSON("session:"+token, s, time.Hour)
func (k KVStore) SetJSON(key string, v any, ttl time.Duration) error {
	b, ok := jsonenc.Append(nil, v)
	var err error
	if !ok {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return fmt.Errorf("endpoints: KV.SetJSON %s: encoding the value: %w", shortKey(key), err)
	}
	return k.Set(key, b, ttl)
}
