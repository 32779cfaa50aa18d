package guestrequest

import (
	"net/http"
	"slices"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

func TestIssues(t *testing.T) {
	bad := []abi.Issue{{Message: "bad"}}
	for _, tc := range []struct {
		name     string
		issues   Issues
		empty    bool
		wantPart string
		parts    []string
	}{
		{name: "none", empty: true},
		{name: "the body alone", issues: Issues{Body: bad}, wantPart: "body", parts: []string{"body"}},
		{name: "every part, in pipeline order", issues: Issues{Body: bad, Headers: bad, Query: bad, Params: bad},
			wantPart: "params", parts: []string{"params", "query", "headers", "body"}},
		{name: "query and headers", issues: Issues{Headers: bad, Query: bad}, wantPart: "query", parts: []string{"query", "headers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.issues.Empty(); got != tc.empty {
				t.Fatalf("Empty() = %v, want %v", got, tc.empty)
			}
			if tc.empty {
				return
			}
			f := tc.issues.Failure()
			if f.Kind != abi.FailureSchema || f.Status != http.StatusBadRequest || f.Part != tc.wantPart {
				t.Errorf("Failure() = kind %v, status %d, part %q; want schema, 400, %q", f.Kind, f.Status, f.Part, tc.wantPart)
			}
			if got := FailedParts(f); !slices.Equal(got, tc.parts) {
				t.Errorf("FailedParts = %v, want %v", got, tc.parts)
			}
		})
	}
	t.Run("a refusal of one part", func(t *testing.T) {
		f := &abi.ValidationFailure{Kind: abi.FailureMediaType, Status: http.StatusUnsupportedMediaType, Part: "body"}
		if got := FailedParts(f); !slices.Equal(got, []string{"body"}) {
			t.Errorf("FailedParts = %v, want [body]", got)
		}
	})
}
