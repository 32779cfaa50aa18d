package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestReloadRefusesWhatAStartRefuses: in production, a reload refuses the
// key material of a scheme of "security" that a start refuses, a key set
// file that is missing, whether or not a route requires the scheme yet;
// it took the endpoints.json, so the next restart failed on it.
func TestReloadRefusesWhatAStartRefuses(t *testing.T) {
	t.Parallel()
	const (
		verified = `{"security": {"bearer": {"apiKey": {"keys": [{"sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}]}}}}`
		broken   = `{"security": {"bearer": {"apiKey": {"keys": [{"sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}]}},
			"admin": {"jwt": {"jwks": "auth/admin-jwks.json"}}}}`
		want = "/security/admin/jwt/jwks: auth/admin-jwks.json does not exist"
	)
	guarded := watModule{contract: `{"security":[{"bearer":[]}]}`, handle: "(i32.const 0)"}
	opts := func() host.Options {
		return host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger()}
	}

	a := newApp(t).wat("server/api/orders.get.wasm", guarded).file("endpoints.json", []byte(broken))
	if _, err := host.New(context.Background(), a.dir, opts()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("the start: %v, want an error naming %q", err, want)
	}

	a.file("endpoints.json", []byte(verified))
	h, _ := a.host(opts())
	a.put("endpoints.json", []byte(broken))
	r := h.Reload(context.Background())
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Error(), want) {
		t.Errorf("the reload to the endpoints.json the start refused: problems %v, want one naming %q", r.Problems, want)
	}
	if got := h.AppConfig().Security; len(got) != 1 {
		t.Errorf("after the refused reload, security configures %d schemes, want the previous one only", len(got))
	}
}
