package appversion

import (
	"errors"
	"slices"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/resolved"
	"github.com/wasmendpoints/endpoints/internal/cors"
)

func TestCORSPolicy(t *testing.T) {
	settings, completed := &cors.Policy{}, &cors.Policy{}
	tests := []struct {
		name    string
		v       Version
		want    *cors.Policy
		wantWhy string
	}{
		{"completed by the security plan", Version{CORS: completed, Set: &resolved.Settings{CORS: settings}}, completed, "the plan's"},
		{"no plan: the document failed", Version{Set: &resolved.Settings{CORS: settings}}, settings, "the settings'"},
		{"no cors member", Version{Set: &resolved.Settings{}}, nil, "none"},
	}
	for _, tt := range tests {
		if got := tt.v.CORSPolicy(); got != tt.want {
			t.Errorf("%s: CORSPolicy() is not %s", tt.name, tt.wantWhy)
		}
	}
}

func TestLeftOutLines(t *testing.T) {
	tests := []struct {
		leftOut []error
		want    []string
	}{
		{nil, nil},
		{[]error{errors.New("server/api/a.get.wasm: $defs/User collides")}, []string{"server/api/a.get.wasm: $defs/User collides"}},
		{[]error{errors.New("a"), errors.New("b")}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		v := Version{LeftOut: tt.leftOut}
		if got := v.LeftOutLines(); !slices.Equal(got, tt.want) {
			t.Errorf("LeftOutLines() of %v = %q, want %q", tt.leftOut, got, tt.want)
		}
	}
}

// TestDrainedWithoutPlan: a version whose document failed has no security
// plan; draining it (or stopping what the next version does not share)
// must not fail.
func TestDrainedWithoutPlan(t *testing.T) {
	v := Version{State: &State{Next: &Security{}}}
	v.Drained()
	var none *Security
	none.closeExcept(nil)
}
