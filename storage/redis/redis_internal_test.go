package redis

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/storage"
)

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct {
		prefix, want string
		ok           bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"a/", "a0", true},
		{"a\xff", "b", true},
		{"a\xfe\xff", "a\xff", true},
		{"\xff\xff", "", false},
	} {
		t.Run(c.prefix, func(t *testing.T) {
			got, ok := prefixEnd(c.prefix)
			if got != c.want || ok != c.ok {
				t.Errorf("prefixEnd(%q) = %q, %v; want %q, %v", c.prefix, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestMilliseconds(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{time.Nanosecond, 1},
		{time.Millisecond, 1},
		{1500 * time.Microsecond, 2},
		{time.Minute, 60000},
	} {
		t.Run(c.d.String(), func(t *testing.T) {
			if got := milliseconds(c.d); got != c.want {
				t.Errorf("milliseconds(%v) = %d, want %d", c.d, got, c.want)
			}
		})
	}
}

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"shop", "shop"},
		{"a:b", "a%3Ab"},
		{"50%", "50%25"},
		{"%3A", "%253A"},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := escape(c.in); got != c.want {
				t.Errorf("escape(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestKeysNeverMeet: the Redis keys of distinct records are distinct,
// whatever separators the app's namespace, a KV namespace or a key holds.
// In particular a guest, which writes keys of its app's namespace only,
// never reaches the host's records (storage.HostNamespace): in
// "endpoints:{app}:kv:{ns}:{key}" the escaped ns holds no ':', so the first
// ':' after "kv:" ends it, and "app" with the key "host:x" or "\x00host:x"
// is not "app\x00host" (or "app:host") with the key "x".
func TestKeysNeverMeet(t *testing.T) {
	apps := []string{"app", "app:kv", "app:kv:app", "app%3Akv", "app:idem"}
	spaces := []string{"app", "app:host", storage.HostNamespace("app"), "app%3Ahost", "index", "", "kv"}
	keys := []string{"x", "host:x", "\x00host:x", ":x", "app:x", "", "kv:app:x", "index:app"}
	seen := map[string]string{}
	add := func(redisKey, record string) {
		t.Helper()
		if other, ok := seen[redisKey]; ok && other != record {
			t.Errorf("%s and %s are both stored at %q", other, record, redisKey)
		}
		seen[redisKey] = record
	}
	for _, app := range apps {
		s, err := New("redis://127.0.0.1:6379/0", app)
		if err != nil {
			t.Fatal(err)
		}
		for _, ns := range spaces {
			add(s.indexKey(ns), fmt.Sprintf("the index of (%q, %q)", app, ns))
			for _, k := range keys {
				add(s.kvKey(ns, k), fmt.Sprintf("the value (%q, %q, %q)", app, ns, k))
			}
		}
		for _, k := range keys {
			add(s.idem+k, fmt.Sprintf("the idempotency record (%q, %q)", app, k))
			add(s.rateLimit+k, fmt.Sprintf("the bucket (%q, %q)", app, k))
		}
		s.Close()
	}
	if want := len(apps) * (len(spaces)*(1+len(keys)) + 2*len(keys)); len(seen) != want {
		t.Errorf("%d distinct Redis keys, want %d", len(seen), want)
	}
}

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		name, info string
		refused    bool
	}{
		{"redis 7.0", "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n", false},
		{"redis 8", "# Server\r\nredis_version:8.2.1\r\n", false},
		{"valkey, which says 7.2", "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n", false},
		{"redis 6.2", "# Server\r\nredis_version:6.2.14\r\n", true},
		{"no version said", "# Server\r\nredis_mode:standalone\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkVersion(tc.info)
			if (err != nil) != tc.refused {
				t.Fatalf("checkVersion = %v, want refused %v", err, tc.refused)
			}
			if err != nil && !strings.Contains(err.Error(), "6.2.14") {
				t.Errorf("the error %q does not name the server's version", err)
			}
		})
	}
}
