package appversion

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/resolved"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/host/internal/routetable"
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

// TestPoolsOfAKeptBundle: a version whose bundle keeps its previous
// version serving a route its new one refused lists both modules' pools,
// each once though the bundle's middleware share its pool; discarded
// beside the version before it, it retires only the module it made, never
// the previous one that still serves.
func TestPoolsOfAKeptBundle(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{MemoryBytes: 16 << 20, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	const file = "server/bundles/app.wasm"
	made, previous := e.NewPool(nil, file, 1, false), e.NewPool(nil, file, 1, false)
	route := func(p *engine.Pool) *routemod.Route {
		return &routemod.Route{Module: &routemod.Module{File: file, Pool: p}}
	}
	prev := &Version{Table: routetable.Table{Files: map[string]*routetable.File{
		file: {Routes: []*routemod.Route{route(previous), route(previous)}},
	}}, State: &State{}}
	next := &Version{Table: routetable.Table{Files: map[string]*routetable.File{
		file: {Routes: []*routemod.Route{route(made), route(previous)}},
	}}, Middleware: []*edge.Middleware{{Pool: made}}, State: &State{}}
	if got := next.Pools(); !slices.Equal(got, []*engine.Pool{made, previous}) {
		t.Errorf("Pools() = %v, want the new module's and the previous one's, once each", got)
	}
	next.Discard(prev)
	if !made.Retired() || previous.Retired() {
		t.Errorf("Discard: new module retired %v, previous %v; want true, false", made.Retired(), previous.Retired())
	}
}
