package engine

import (
	"testing"
	"time"
)

// TestHeapRestReleases: a release scheduled by rest comes once the wait is
// over.
func TestHeapRestReleases(t *testing.T) {
	released := make(chan struct{}, 1)
	h := &heapRest{after: time.Millisecond, release: func() { released <- struct{}{} }}
	h.rest(func() bool { return true })
	select {
	case <-released:
	case <-time.After(time.Minute):
		t.Fatal("the heap was not given back at rest")
	}
}

// TestHeapRestCancels: a release comes due only while the engine is idle,
// and not once work began (busy), another rest replaced it or the engine
// shut down (stop).
func TestHeapRestCancels(t *testing.T) {
	for _, tc := range []struct {
		name    string
		then    func(h *heapRest)
		idle    bool
		release bool
	}{
		{name: "rests", idle: true, release: true},
		{name: "busy again when due", idle: false},
		{name: "work began", then: (*heapRest).busy, idle: true},
		{name: "rested again", then: func(h *heapRest) { h.rest(func() bool { return true }) }, idle: true},
		{name: "shut down", then: (*heapRest).stop, idle: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			released := false
			h := &heapRest{after: time.Hour, release: func() { released = true }}
			h.rest(func() bool { return true })
			gen := h.gen
			if tc.then != nil {
				tc.then(h)
			}
			h.due(gen, func() bool { return tc.idle })
			if released != tc.release {
				t.Errorf("released = %v, want %v", released, tc.release)
			}
			h.stop()
		})
	}
}
