package edge

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// scripted is a ModuleCall whose result the test sets.
type scripted struct {
	name   string
	result int32
	ok     bool
	wrote  bool
}

func (s *scripted) Run() (int32, bool) { return s.result, s.ok }
func (s *scripted) Wrote() bool        { return s.wrote }

// recorder is a Runner that answers each module's call from script and
// records what the runtime did, in order.
type recorder struct {
	script map[string]scripted
	events []string
	open   int
}

func (r *recorder) Call(m *Middleware, phase string) ModuleCall {
	r.events = append(r.events, phase+":"+m.Name)
	r.open++
	s := r.script[m.Name]
	s.name = m.Name
	return &s
}
func (r *recorder) Answer(mc ModuleCall) {
	r.events = append(r.events, "answer:"+mc.(*scripted).name)
}
func (r *recorder) Fail(mc ModuleCall, reason string) {
	r.events = append(r.events, "fail:"+mc.(*scripted).name+":"+reason)
}
func (r *recorder) Done(ModuleCall) { r.open-- }

// TestBefore: the before exports run in order until one answers or
// fails; what each result means.
func TestBefore(t *testing.T) {
	chain := []*Middleware{
		{Name: "a", before: true},
		{Name: "b", after: true}, // no before export: skipped
		{Name: "c", before: true},
	}
	cont := scripted{result: abi.MiddlewareContinue, ok: true}
	for _, tc := range []struct {
		name   string
		a, c   scripted
		goesOn bool
		events string
	}{
		{"both continue", cont, cont, true, "before:a before:c"},
		{"first answers", scripted{result: abi.MiddlewareAnswered, ok: true, wrote: true}, cont, false, "before:a answer:a"},
		{"second answers", cont, scripted{result: abi.MiddlewareAnswered, ok: true}, false, "before:a before:c answer:c"},
		{"call failed", scripted{ok: false}, cont, false, "before:a fail:a:"},
		{"bad result", scripted{result: 7, ok: true}, cont, false, "before:a fail:a:endpoints_before returned 7"},
		{"wrote, then continued", scripted{result: abi.MiddlewareContinue, ok: true, wrote: true}, cont, false,
			"before:a fail:a:it wrote an answer, then returned continue: return answered (1) to send it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{script: map[string]scripted{"a": tc.a, "c": tc.c}}
			var log strings.Builder
			goesOn := Before(chain, r, slog.New(slog.NewTextHandler(&log, nil)))
			if goesOn != tc.goesOn {
				t.Errorf("Before = %v, want %v", goesOn, tc.goesOn)
			}
			if got := strings.Join(r.events, " "); got != tc.events {
				t.Errorf("events %q, want %q", got, tc.events)
			}
			if r.open != 0 {
				t.Errorf("%d calls not given back", r.open)
			}
			if logged := log.Len() > 0; logged != (tc.a.ok && tc.a.result > abi.MiddlewareAnswered || tc.a.wrote && tc.a.result == abi.MiddlewareContinue) {
				t.Errorf("logged %q", log.String())
			}
		})
	}
}

// TestAfter: the after exports run in reverse order, all of them, whatever
// each returns; a nonzero result is logged.
func TestAfter(t *testing.T) {
	chain := []*Middleware{{Name: "a", after: true}, {Name: "b", before: true}, {Name: "c", after: true}}
	r := &recorder{script: map[string]scripted{"a": {result: 0, ok: true}, "c": {result: 3, ok: true}}}
	var log strings.Builder
	After(chain, r, slog.New(slog.NewTextHandler(&log, nil)))
	if got := strings.Join(r.events, " "); got != "after:c after:a" {
		t.Errorf("events %q, want after:c after:a", got)
	}
	if !strings.Contains(log.String(), "it returned 3") || strings.Count(log.String(), "middleware failed") != 1 {
		t.Errorf("log %q, want one line for c's result 3", log.String())
	}
	if r.open != 0 {
		t.Errorf("%d calls not given back", r.open)
	}
	After(nil, r, slog.New(slog.NewTextHandler(io.Discard, nil)))
}
