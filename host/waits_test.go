package host_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestDeadlineReasonNamesTheWaitForAnInstance: a call stopped at its
// deadline after waiting for a free instance says how much of the
// deadline went to that wait, in the log and the development 500: told
// only that it "ran past its deadline", a user looks for a slow handler.
// The module's two methods share one instance; GET holds it until its
// 300ms deadline, and POST (1500ms) waits for it, then sleeps past its
// own.
func TestDeadlineReasonNamesTheWaitForAnInstance(t *testing.T) {
	t.Parallel()
	h, logs := newApp(t).wat("server/api/slow.wasm", watModule{
		contract: `{"methods": {"get": {"timeout": "300ms"}, "post": {"timeout": "1500ms"}}}`,
		imports:  wasiPoll,
		extra:    sleepFn,
		handle:   `(call $sleep (i64.const 30000000000)) (i32.const 0)`,
	}).host(host.Options{Mode: host.Development, Limits: config.Limits{Instances: 1}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	held := make(chan response, 1)
	go func() { held <- do(t, srv, "GET", "/api/slow", "") }()
	if !waitFor(t, 10*time.Second, func() bool { return h.Pools()[0].InUse == 1 }) {
		t.Fatalf("the GET never took the instance: %+v", h.Pools())
	}
	got := do(t, srv, "POST", "/api/slow", "")
	const want = "the handler ran past its 1.5s deadline and was stopped; "
	if got.status != 500 || !strings.Contains(got.body, want) || !strings.Contains(got.body, "of it went to waiting for a free instance") {
		t.Errorf("POST /api/slow = %d %s, want a 500 saying %q... how long it waited for a free instance", got.status, got.body, want)
	}
	if !strings.Contains(logs.String(), "went to waiting for a free instance") {
		t.Errorf("the log does not say the wait:\n%s", logs.String())
	}
	if g := <-held; g.status != 500 || strings.Contains(g.body, "waiting for") {
		t.Errorf("GET /api/slow = %d %s, want a 500 at its deadline, with no wait", g.status, g.body)
	}
}
