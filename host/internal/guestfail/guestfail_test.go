package guestfail

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/guestclock"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

func TestReason(t *testing.T) {
	now := time.Now()
	running := func() *guestclock.Clock {
		var c guestclock.Clock
		c.Start(now, 2*time.Second, 0)
		return &c
	}
	idled := func() *guestclock.Clock {
		var c guestclock.Clock
		c.Start(now.Add(-2*time.Hour), 3*time.Hour, time.Hour)
		return &c
	}
	waited := func(code, instance time.Duration) *guestclock.Clock {
		c := running()
		c.WaitedForCode(code)
		c.WaitedForInstance(instance)
		return c
	}
	stopped := fmt.Errorf("call: %w", interrupt.ErrInterrupted)
	for _, tc := range []struct {
		name     string
		f        Failure
		want     string // substring of the reason; "" when gone
		wantGone bool
	}{
		{"a fault wins over the error", Failure{Err: stopped, Fault: "the handler set more response headers", Clock: running()}, "more response headers", false},
		{"an error code", Failure{Code: 3, Clock: running()}, "returned error code 3", false},
		{"stopped: its client left", Failure{Err: stopped, ClientGone: true, Stopping: true, Clock: running()}, "", true},
		{"stopped by a shutdown", Failure{Err: stopped, Stopping: true, Clock: running()}, "shutting down", false},
		{"stopped: it wrote nothing for its idle timeout", Failure{Err: stopped, Clock: idled()}, "wrote nothing for 1h0m0s", false},
		{"stopped at its deadline", Failure{Err: stopped, Clock: running()}, "ran past its 2s deadline and was stopped", false},
		{"stopped at its deadline, after waiting for an instance", Failure{Err: stopped, Clock: waited(0, 1500*time.Millisecond)},
			"ran past its 2s deadline and was stopped; 1.5s of it went to waiting for a free instance", false},
		{"stopped at its deadline, after waiting for the module's code", Failure{Err: stopped, Clock: waited(1800*time.Millisecond, 0)},
			"ran past its 2s deadline and was stopped; before it, the request waited 1.8s for the host to load the module's code, which did not count", false},
		{"a host limit passed", Failure{Err: fmt.Errorf("trap: %w", &LimitError{Msg: "more than 8 bytes (limits.responseBytes)"}), Clock: running()},
			"more than 8 bytes (limits.responseBytes)", false},
		{"a trap", Failure{Err: errors.New("wasm error: unreachable"), Clock: running()}, "unreachable", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, gone := Reason(tc.f)
			if gone != tc.wantGone || !strings.Contains(reason, tc.want) || (tc.want == "") != (reason == "") {
				t.Errorf("Reason = %q, gone %v; want one naming %q, gone %v", reason, gone, tc.want, tc.wantGone)
			}
		})
	}
}

func TestErr(t *testing.T) {
	trap := errors.New("wasm error: unreachable")
	for _, tc := range []struct {
		name  string
		err   error
		code  int32
		fault string
		want  string // "" for nil
	}{
		{"succeeded", nil, 0, "", ""},
		{"a fault", trap, 0, "too many headers", "too many headers"},
		{"an error", trap, 0, "", trap.Error()},
		{"an error code", nil, 2, "", "the handler returned error code 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Err(tc.err, tc.code, tc.fault)
			if (got == nil) != (tc.want == "") || got != nil && got.Error() != tc.want {
				t.Errorf("Err = %v, want %q", got, tc.want)
			}
		})
	}
}
