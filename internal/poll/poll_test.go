package poll_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/poll"
)

func TestUntil(t *testing.T) {
	var n atomic.Int32
	if !poll.Until(10*time.Second, func() bool { return n.Add(1) == 3 }) {
		t.Error("a condition that turns true on the third look was not seen")
	}
	if poll.Until(20*time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never holds was reported to hold")
	}
	want := errors.New("not yet")
	if err := poll.UntilNil(20*time.Millisecond, func() error { return want }); err != want {
		t.Errorf("UntilNil = %v, want the last error", err)
	}
}
