package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

func TestLimitsFromAppConfigApply(t *testing.T) {
	srv, _ := newApp(t).
		file("endpoints.json", []byte(`{"limits": {"bodyBytes": 10}}`)).
		wat("server/routes/echo.post.wasm", watModule{handle: plainOK, extra: okData}).
		serve(host.Options{})
	if res := do(t, srv, "POST", "/echo", strings.Repeat("x", 11)); res.status != 413 {
		t.Errorf("11 bytes over a 10-byte limit from endpoints.json: got %d, want 413", res.status)
	}
	if res := do(t, srv, "POST", "/echo", strings.Repeat("x", 10)); res.status != 200 {
		t.Errorf("10 bytes at a 10-byte limit: got %d, want 200", res.status)
	}
}
