//go:build !wasip1

package endpoints_test

import "testing"

// TestWasmGuestCallRunsOnOneGoroutine: an export call of an instance that
// holds no other goroutine counts one, its own, every time. settle
// (settle.go) relies on it to cost only that count on such an instance,
// and to yield, running the runnable ones, whenever there are others: a
// runtime that ran each call on a goroutine of its own, or counted one
// more, would make every call yield.
func TestWasmGuestCallRunsOnOneGoroutine(t *testing.T) {
	h := &testHost{}
	mod := h.instantiate(t, buildGuest(t, "goroutines"))
	for call := range 3 {
		h.written.Reset()
		envelope := `{"kind":"endpoint","method":"GET","route":"/api/goroutines","path":"/api/goroutines","query":{},"headers":{}}`
		if rc := h.serve(t, mod, envelope); rc != 0 || h.status != 200 {
			t.Fatalf("call %d: rc %d, status %d; logs %q", call, rc, h.status, h.logs)
		}
		if got := h.written.String(); got != "1" {
			t.Errorf("call %d: %s goroutines while it ran, want 1", call, got)
		}
	}
}
