package host_test

import (
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestReloadSaysAFixedFileServesAgain: a file that failed to load and is
// saved back to the bytes that serve (endpoints.json, the routes
// configuration, a module) swaps in a version without its problem, and
// the reload says so ("fixed"), so that `endpoints dev`, which prints
// only the reloads that are not Unchanged, does not leave the failure as
// its last word.
func TestReloadSaysAFixedFileServesAgain(t *testing.T) {
	good := []byte(`{"openApi": {"title": "Good"}}`)
	tests := []struct {
		name, file string
		good, bad  []byte
	}{
		{"endpoints.json", "endpoints.json", good, []byte(`{"openApi": {"titel": "Typo"}}`)},
		{"the routes configuration", host.RoutesConfigFile, []byte(`{"responses": {"503": {"description": "Busy", "schema": {"type": "object"}}}}`),
			[]byte(`{"responses": {"503": {"description": "Busy", "schema": {"type": "objekt"}}}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).wat("server/api/hello.get.wasm", watModule{contract: `{"summary":"hello","responses":{"200":{"description":"hi"}}}`, handle: plainOK, extra: okData}).
				file(tt.file, tt.good)
			h, _ := a.host(host.Options{Mode: host.Development})
			a.file(tt.file, tt.bad)
			if report := h.Reload(t.Context()); len(report.Problems) != 1 {
				t.Fatalf("the broken file: %s %v, want one problem", report, report.Problems)
			}
			a.file(tt.file, tt.good)
			report := h.Reload(t.Context())
			if report.Unchanged() || len(report.Problems) != 0 || !strings.Contains(report.String(), "fixed") {
				t.Errorf("saved back to the bytes that serve: %q (unchanged %v), want a report that says it is fixed", report, report.Unchanged())
			}
			if problems := h.Problems(); len(problems) != 0 {
				t.Errorf("problems after the fix: %v", problems)
			}
			if report := h.Reload(t.Context()); !report.Unchanged() {
				t.Errorf("a reload with nothing saved after the fix: %q, want it unchanged", report)
			}
		})
	}
}
