package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestIdempotencyLeaseWarning: an operation that takes an Idempotency-Key
// whose timeout (its own, or limits.timeout) is more than half
// idempotency.lease is a load warning, in either mode, naming the route,
// the timeout, the lease and the setting to raise: a request may wait its
// timeout for code and then run for it, past the lease. The load is not
// refused.
func TestIdempotencyLeaseWarning(t *testing.T) {
	const idem = `"responses": {"200": {"description": "ok"}}, "idempotency": {}`
	for _, tc := range []struct {
		name, contract, config string
		mode                   host.Mode
		want                   []string // in the one warning; none for no warning
	}{
		{"a contract's timeout over half the default lease", `{"timeout": "40s", ` + idem + `}`, `{}`, host.Development,
			[]string{"server/api/orders.post.wasm", "POST", "timeout 40s", "idempotency.lease (1m0s)", "raise idempotency.lease", "1m20s"}},
		{"limits.timeout over half the lease, in production", `{` + idem + `}`, `{"idempotency": {"lease": "15s"}}`, host.Production,
			[]string{"server/api/orders.post.wasm", "POST", "limits.timeout 10s", "idempotency.lease (15s)", "20s"}},
		{"a timeout half the lease", `{"timeout": "30s", ` + idem + `}`, `{}`, host.Development, nil},
		{"the defaults", `{` + idem + `}`, `{}`, host.Development, nil},
		{"no Idempotency-Key", `{"timeout": "40s", "responses": {"200": {"description": "ok"}}}`, `{}`, host.Development, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, logs := newApp(t).
				wat("server/api/orders.post.wasm", watModule{contract: tc.contract, handle: plainOK, extra: okData}).
				file("endpoints.json", []byte(tc.config)).
				host(host.Options{Mode: tc.mode})
			ws := h.Warnings()
			if tc.want == nil {
				if len(ws) != 0 {
					t.Errorf("warnings %v, want none", ws)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("warnings %v, want one", ws)
			}
			for _, s := range tc.want {
				if !strings.Contains(ws[0].Error(), s) {
					t.Errorf("warning %q does not say %q", ws[0], s)
				}
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "idempotency.lease") {
				t.Errorf("the start did not log the warning:\n%s", logs)
			}
		})
	}
}
