//go:build !wasip1

package endpoints

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
)

// kvFake gives the test an empty key-value store, the SDK's first buffer
// and a fake host whose kv functions fail as fail asks (outside a
// request: the native store answers there too).
func kvFake(t *testing.T, fail map[string]abi.Errno) {
	t.Helper()
	resetKV()
	kvBuf = make([]byte, 1024) // as a new instance has it
	fake = &fakeHost{fail: fail}
	t.Cleanup(func() {
		resetKV()
		fake = &fakeHost{}
	})
}

// seed stores key=value pairs in the fake store, without expiry.
func seed(pairs ...string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		fakeKV[pairs[i]] = fakeKVEntry{value: []byte(pairs[i+1])}
	}
}

// failWith makes one kv function fail.
func failWith(fn string, e abi.Errno) map[string]abi.Errno { return map[string]abi.Errno{fn: e} }

// checkErr reports whether err is as wanted: nil when want is nil,
// otherwise errors.Is(err, want).
func checkErr(t *testing.T, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Errorf("error = %v, want none", err)
	case want != nil && !errors.Is(err, want):
		t.Errorf("error = %v, want one wrapping %v", err, want)
	}
}

func TestKVGet(t *testing.T) {
	big := strings.Repeat("v", len(kvBuf)+4000)
	max := strings.Repeat("m", abi.KVMaxValue)
	for _, tc := range []struct {
		name      string
		pairs     []string
		fail      map[string]abi.Errno
		key       string
		want      []byte
		wantFound bool
		wantErr   error
		wantCalls int
	}{
		{name: "absent", key: "a", wantCalls: 1},
		{name: "present", pairs: []string{"a", "1", "b", "2"}, key: "b", want: []byte("2"), wantFound: true, wantCalls: 1},
		{name: "empty value is found", pairs: []string{"a", ""}, key: "a", want: []byte{}, wantFound: true, wantCalls: 1},
		{name: "larger than the first buffer: asked again", pairs: []string{"a", big}, key: "a", want: []byte(big), wantFound: true, wantCalls: 2},
		{name: "the largest value", pairs: []string{"a", max}, key: "a", want: []byte(max), wantFound: true, wantCalls: 2},
		{name: "key at the limit", pairs: []string{strings.Repeat("k", abi.KVMaxKey), "1"}, key: strings.Repeat("k", abi.KVMaxKey), want: []byte("1"), wantFound: true, wantCalls: 1},
		{name: "key over the limit: the host is not called", key: strings.Repeat("k", abi.KVMaxKey+1), wantErr: abi.ErrInvalid},
		{name: "store down", fail: failWith(abi.ImportKVGet, abi.ErrUnavailable), key: "a", wantErr: ErrStorageUnavailable, wantCalls: 1},
		{name: "outside a request", fail: failWith(abi.ImportKVGet, abi.ErrState), key: "a", wantErr: abi.ErrState, wantCalls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvFake(t, tc.fail)
			seed(tc.pairs...)
			got, found, err := KV.Get(tc.key)
			checkErr(t, err, tc.wantErr)
			if !bytes.Equal(got, tc.want) || (got == nil) != (tc.want == nil) || found != tc.wantFound {
				t.Errorf("Get(%.20q) = %.20q (nil %v), %v; want %.20q (nil %v), %v", tc.key, got, got == nil, found, tc.want, tc.want == nil, tc.wantFound)
			}
			if fake.kvCalls != tc.wantCalls {
				t.Errorf("host calls = %d, want %d", fake.kvCalls, tc.wantCalls)
			}
		})
	}
}

func TestKVGetReturnsACopy(t *testing.T) {
	kvFake(t, nil)
	seed("a", "first", "b", "other")
	a, _, _ := KV.Get("a")
	if _, _, err := KV.Get("b"); err != nil {
		t.Fatal(err)
	}
	if string(a) != "first" {
		t.Errorf("the first value became %q after a second Get, want %q", a, "first")
	}
}

func TestKVGetExpired(t *testing.T) {
	kvFake(t, nil)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fakeNow = func() time.Time { return now }
	t.Cleanup(func() { fakeNow = time.Now })
	if err := KV.Set("a", []byte("x"), 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		after     time.Duration
		wantFound bool
	}{
		{"before the TTL (rounded up to 2s)", 1999 * time.Millisecond, true},
		{"at the TTL", 2 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeNow = func() time.Time { return now.Add(tc.after) }
			if _, found, err := KV.Get("a"); found != tc.wantFound || err != nil {
				t.Errorf("Get = %v, %v; want %v, nil", found, err, tc.wantFound)
			}
		})
	}
}

func TestKVSet(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fail      map[string]abi.Errno
		key       string
		value     []byte
		ttl       time.Duration
		wantTTL   int32
		wantErr   error
		wantCalls int
	}{
		{name: "no TTL", key: "a", value: []byte("v"), wantCalls: 1},
		{name: "a nanosecond is a second", key: "a", value: []byte("v"), ttl: 1, wantTTL: 1, wantCalls: 1},
		{name: "whole seconds stay", key: "a", value: []byte("v"), ttl: 30 * time.Minute, wantTTL: 1800, wantCalls: 1},
		{name: "fractions round up", key: "a", value: []byte("v"), ttl: 1500 * time.Millisecond, wantTTL: 2, wantCalls: 1},
		{name: "the longest TTL", key: "a", value: []byte("v"), ttl: math.MaxInt32 * time.Second, wantTTL: math.MaxInt32, wantCalls: 1},
		{name: "longer than the longest TTL", key: "a", value: []byte("v"), ttl: math.MaxInt32*time.Second + 1, wantErr: abi.ErrInvalid},
		{name: "negative TTL", key: "a", value: []byte("v"), ttl: -time.Second, wantErr: abi.ErrInvalid},
		{name: "nil value stores an empty one", key: "a", wantCalls: 1},
		{name: "value at the limit", key: "a", value: make([]byte, abi.KVMaxValue), wantCalls: 1},
		{name: "value over the limit", key: "a", value: make([]byte, abi.KVMaxValue+1), wantErr: abi.ErrInvalid},
		{name: "key over the limit", key: strings.Repeat("k", abi.KVMaxKey+1), value: []byte("v"), wantErr: abi.ErrInvalid},
		{name: "store down", fail: failWith(abi.ImportKVSet, abi.ErrUnavailable), key: "a", value: []byte("v"), wantErr: ErrStorageUnavailable, wantCalls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvFake(t, tc.fail)
			err := KV.Set(tc.key, tc.value, tc.ttl)
			checkErr(t, err, tc.wantErr)
			if fake.kvCalls != tc.wantCalls {
				t.Errorf("host calls = %d, want %d", fake.kvCalls, tc.wantCalls)
			}
			e, ok := fakeKV[tc.key]
			if tc.wantErr != nil {
				if ok {
					t.Errorf("the store holds %.20q after a failed Set", tc.key)
				}
				return
			}
			if !ok || !bytes.Equal(e.value, tc.value) || e.ttl != tc.wantTTL {
				t.Errorf("stored %v, %d bytes, ttl %d; want %d bytes, ttl %d", ok, len(e.value), e.ttl, len(tc.value), tc.wantTTL)
			}
		})
	}
}

func TestKVDelete(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pairs    []string
		fail     map[string]abi.Errno
		key      string
		want     bool
		wantErr  error
		wantKeys []string
	}{
		{name: "present", pairs: []string{"a", "1", "b", "2"}, key: "a", want: true, wantKeys: []string{"b"}},
		{name: "absent", pairs: []string{"b", "2"}, key: "a", wantKeys: []string{"b"}},
		{name: "key over the limit", pairs: []string{"b", "2"}, key: strings.Repeat("k", abi.KVMaxKey+1), wantErr: abi.ErrInvalid, wantKeys: []string{"b"}},
		{name: "store down", pairs: []string{"a", "1"}, fail: failWith(abi.ImportKVDelete, abi.ErrUnavailable), key: "a", wantErr: ErrStorageUnavailable, wantKeys: []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvFake(t, tc.fail)
			seed(tc.pairs...)
			got, err := KV.Delete(tc.key)
			checkErr(t, err, tc.wantErr)
			if got != tc.want {
				t.Errorf("Delete(%.20q) = %v, want %v", tc.key, got, tc.want)
			}
			var keys []string
			for k := range fakeKV {
				keys = append(keys, k)
			}
			if slices.Sort(keys); !slices.Equal(keys, tc.wantKeys) {
				t.Errorf("keys left = %q, want %q", keys, tc.wantKeys)
			}
		})
	}
}

func TestKVIncr(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pairs     []string
		fail      map[string]abi.Errno
		key       string
		delta     int64
		want      int64
		wantErr   error
		wantValue string // stored afterwards
	}{
		{name: "absent counts as 0", key: "n", delta: 1, want: 1, wantValue: "1"},
		{name: "adds to the stored integer", pairs: []string{"n", "41"}, key: "n", delta: 1, want: 42, wantValue: "42"},
		{name: "negative delta", pairs: []string{"n", "5"}, key: "n", delta: -7, want: -2, wantValue: "-2"},
		{name: "not an integer", pairs: []string{"n", "five"}, key: "n", delta: 1, wantErr: abi.ErrInvalid, wantValue: "five"},
		{name: "overflow", pairs: []string{"n", "9223372036854775807"}, key: "n", delta: 1, wantErr: abi.ErrInvalid, wantValue: "9223372036854775807"},
		{name: "key over the limit", key: strings.Repeat("k", abi.KVMaxKey+1), delta: 1, wantErr: abi.ErrInvalid},
		{name: "store down", pairs: []string{"n", "1"}, fail: failWith(abi.ImportKVIncr, abi.ErrUnavailable), key: "n", delta: 1, wantErr: ErrStorageUnavailable, wantValue: "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvFake(t, tc.fail)
			seed(tc.pairs...)
			got, err := KV.Incr(tc.key, tc.delta)
			checkErr(t, err, tc.wantErr)
			if got != tc.want {
				t.Errorf("Incr(%.20q, %d) = %d, want %d", tc.key, tc.delta, got, tc.want)
			}
			if v := string(fakeKV[tc.key].value); v != tc.wantValue {
				t.Errorf("stored value = %q, want %q", v, tc.wantValue)
			}
		})
	}
}

func TestKVIncrKeepsTheTTL(t *testing.T) {
	kvFake(t, nil)
	if err := KV.Set("n", []byte("10"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, err := KV.Incr("n", 5); n != 15 || err != nil {
		t.Fatalf("Incr = %d, %v; want 15, nil", n, err)
	}
	if e := fakeKV["n"]; e.ttl != 60 || e.expires.IsZero() {
		t.Errorf("after Incr: ttl %d, expires %v; want 60 and the Set's expiry", e.ttl, e.expires)
	}
	if v, _, _ := KV.Get("n"); string(v) != "15" {
		t.Errorf("Get = %q, want the decimal text %q", v, "15")
	}
}

// keyList returns n keys "<prefix>0000", "<prefix>0001", ... padded to
// width bytes with '.' so pages are larger than the first buffer.
func keyList(prefix string, n, width int) []string {
	keys := make([]string, n)
	for i := range keys {
		k := fmt.Sprintf("%s%04d", prefix, i)
		keys[i] = k + strings.Repeat(".", max(0, width-len(k)))
	}
	return keys
}

func TestKVKeys(t *testing.T) {
	page := abi.KVListLimit
	many := keyList("k:", 2*page+500, 40)
	for _, tc := range []struct {
		name      string
		keys      []string
		prefix    string
		fail      map[string]abi.Errno
		stopAfter int // break out of the loop after this many keys; 0 for never
		want      []string
		wantErr   error
		wantCalls int
	}{
		{name: "empty store", prefix: "", wantCalls: 1},
		{name: "prefix filters, byte order", keys: []string{"b:2", "a:1", "b:10", "c", "b:"}, prefix: "b:", want: []string{"b:", "b:10", "b:2"}, wantCalls: 1},
		{name: "empty prefix lists all", keys: []string{"b", "a"}, want: []string{"a", "b"}, wantCalls: 1},
		// A page of 1000 40-byte keys is larger than the first buffer:
		// the first page is asked twice.
		{name: "three pages", keys: append([]string{"j", "l"}, many...), prefix: "k:", want: many, wantCalls: 4},
		{name: "a full last page needs one more call", keys: many[:2*page], prefix: "k:", want: many[:2*page], wantCalls: 4},
		{name: "breaking stops paging", keys: many, prefix: "k:", stopAfter: 2, want: many[:2], wantCalls: 2},
		{name: "prefix over the limit", prefix: strings.Repeat("k", abi.KVMaxKey+1), wantErr: abi.ErrInvalid},
		{name: "store down", keys: []string{"a"}, fail: failWith(abi.ImportKVList, abi.ErrUnavailable), wantErr: ErrStorageUnavailable, wantCalls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvFake(t, tc.fail)
			for _, k := range tc.keys {
				seed(k, "v")
			}
			var got []string
			var errs []error
			for key, err := range KV.Keys(tc.prefix) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				got = append(got, key)
				if len(got) == tc.stopAfter {
					break
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("keys: got %d %.3q, want %d %.3q", len(got), got, len(tc.want), tc.want)
			}
			switch {
			case tc.wantErr == nil && len(errs) > 0:
				t.Errorf("errors = %v, want none", errs)
			case tc.wantErr != nil && (len(errs) != 1 || !errors.Is(errs[0], tc.wantErr)):
				t.Errorf("errors = %v, want one wrapping %v", errs, tc.wantErr)
			}
			if fake.kvCalls != tc.wantCalls {
				t.Errorf("host calls = %d, want %d", fake.kvCalls, tc.wantCalls)
			}
		})
	}
}

func TestKVKeysDeletingInTheLoop(t *testing.T) {
	kvFake(t, nil)
	keys := keyList("s:", abi.KVListLimit+10, 0)
	for _, k := range keys {
		seed(k, "v")
	}
	var seen []string
	for key, err := range KV.Keys("s:") {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, key)
		if _, err := KV.Delete(key); err != nil {
			t.Fatal(err)
		}
		if _, _, err := KV.Get("other"); err != nil { // reuses the SDK's buffer
			t.Fatal(err)
		}
	}
	if !slices.Equal(seen, keys) {
		t.Errorf("seen %d keys, want each of the %d once", len(seen), len(keys))
	}
	if len(fakeKV) != 0 {
		t.Errorf("%d keys left, want 0", len(fakeKV))
	}
}

func TestKVJSON(t *testing.T) {
	type session struct {
		User  string `json:"user"`
		Admin bool   `json:"admin"`
	}
	t.Run("round trip", func(t *testing.T) {
		kvFake(t, nil)
		if err := KV.SetJSON("s", session{User: "ada", Admin: true}, time.Hour); err != nil {
			t.Fatal(err)
		}
		if got, want := string(fakeKV["s"].value), `{"user":"ada","admin":true}`; got != want || fakeKV["s"].ttl != 3600 {
			t.Errorf("stored %s, ttl %d; want %s, ttl 3600", got, fakeKV["s"].ttl, want)
		}
		var s session
		found, err := KV.GetJSON("s", &s)
		if !found || err != nil || s != (session{User: "ada", Admin: true}) {
			t.Errorf("GetJSON = %v, %v, %+v; want true, nil, {ada true}", found, err, s)
		}
	})
	t.Run("absent leaves v alone", func(t *testing.T) {
		kvFake(t, nil)
		s := session{User: "kept"}
		found, err := KV.GetJSON("s", &s)
		if found || err != nil || s.User != "kept" {
			t.Errorf("GetJSON = %v, %v, %+v; want false, nil, unchanged", found, err, s)
		}
	})
	t.Run("a value that is not JSON", func(t *testing.T) {
		kvFake(t, nil)
		seed("s", "not json")
		var s session
		found, err := KV.GetJSON("s", &s)
		if !found || err == nil || !strings.HasPrefix(err.Error(), `endpoints: KV.GetJSON "s": decoding the value: `) {
			t.Errorf("GetJSON = %v, %v; want true and a decoding error naming the key", found, err)
		}
	})
	t.Run("a value that does not encode", func(t *testing.T) {
		kvFake(t, nil)
		err := KV.SetJSON("s", make(chan int), 0)
		if err == nil || !strings.HasPrefix(err.Error(), `endpoints: KV.SetJSON "s": encoding the value: `) || fake.kvCalls != 0 {
			t.Errorf("SetJSON = %v after %d host calls; want an encoding error naming the key, no call", err, fake.kvCalls)
		}
	})
	t.Run("store down", func(t *testing.T) {
		kvFake(t, failWith(abi.ImportKVGet, abi.ErrUnavailable))
		var s session
		_, err := KV.GetJSON("s", &s)
		checkErr(t, err, ErrStorageUnavailable)
	})
}

func TestKVErrorMessages(t *testing.T) {
	long := strings.Repeat("k", abi.KVMaxKey+1)
	for _, tc := range []struct {
		name string
		fail map[string]abi.Errno
		call func() error
		want string
	}{
		{"store down", failWith(abi.ImportKVGet, abi.ErrUnavailable),
			func() error { _, _, err := KV.Get("user:7"); return err },
			`endpoints: KV.Get "user:7": host function kv_get: storage unavailable (-7)`},
		{"outside a request", failWith(abi.ImportKVIncr, abi.ErrState),
			func() error { _, err := KV.Incr("hits", 1); return err },
			`endpoints: KV.Incr "hits": host function kv_incr: not available outside a request (-6)`},
		{"long key, shortened in the message", nil,
			func() error { _, err := KV.Delete(long); return err },
			`endpoints: KV.Delete "` + long[:64] + `"...: the key is 1025 bytes, over the limit of 1024 (abi.KVMaxKey)`},
		{"long value", nil,
			func() error { return KV.Set("a", make([]byte, abi.KVMaxValue+1), 0) },
			`endpoints: KV.Set "a": the value is 1048577 bytes, over the limit of 1048576 (abi.KVMaxValue)`},
		{"negative TTL", nil,
			func() error { return KV.Set("a", nil, -time.Second) },
			`endpoints: KV.Set "a": the TTL -1s is negative: use 0 for no expiry`},
		{"list fails", failWith(abi.ImportKVList, abi.ErrIO),
			func() error {
				for _, err := range KV.Keys("p:") {
					return err
				}
				return nil
			},
			`endpoints: KV.Keys "p:": host function kv_list: i/o error (-5)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvFake(t, tc.fail)
			if err := tc.call(); err == nil || err.Error() != tc.want {
				t.Errorf("error = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestResetEmptiesTheNativeStore(t *testing.T) {
	kvFake(t, nil)
	seed("a", "1")
	Reset()
	if _, found, _ := KV.Get("a"); found {
		t.Error("Get found a key after Reset, want an empty store")
	}
}

// TestHandleFuncStorageUnavailable runs a handler whose KV call fails
// through the whole request: HandleFunc answers 503 and logs the error.
func TestHandleFuncStorageUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		fail       map[string]abi.Errno
		wantStatus int32
		wantBody   string
		wantLogs   []logLine
	}{
		{"store up", nil, 200, `2`, nil},
		{"store down answers 503", failWith(abi.ImportKVIncr, abi.ErrUnavailable), 503,
			`{"statusCode":503,"statusMessage":"Service Unavailable"}`,
			[]logLine{{abi.LogError, `msg="handler failed" error="counting: endpoints: KV.Incr \"hits\": host function kv_incr: storage unavailable (-7)"`}}},
		{"other host errors answer 500", failWith(abi.ImportKVIncr, abi.ErrState), 500,
			`{"statusCode":500,"statusMessage":"Internal Server Error"}`,
			[]logLine{{abi.LogError, `msg="handler failed" error="counting: endpoints: KV.Incr \"hits\": host function kv_incr: not available outside a request (-6)"`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			seed("hits", "1")
			HandleFunc(Operation{}, func(*struct{}) (int64, error) {
				n, err := KV.Incr("hits", 1)
				if err != nil {
					return 0, fmt.Errorf("counting: %w", err)
				}
				return n, nil
			})
			resp := serveFake(fakeRequest{envelope: envelopeGET, fail: tc.fail})
			if resp.code != 0 {
				t.Fatalf("handle() = %d, want 0; logs %v", resp.code, resp.logs)
			}
			if resp.status != tc.wantStatus || resp.body != tc.wantBody {
				t.Errorf("answer = %d %s, want %d %s", resp.status, resp.body, tc.wantStatus, tc.wantBody)
			}
			if !slices.Equal(resp.logs, tc.wantLogs) {
				t.Errorf("logs = %v\nwant %v", resp.logs, tc.wantLogs)
			}
		})
	}
}
