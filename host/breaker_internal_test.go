package host

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/breaker"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// TestBreakerOutcome: what a call counts as for its client's breaker. A
// trap is its client's doing, whoever else it concerns and whenever the
// client left; a call stopped because its client left, a database
// outage, the host stopping, and a deadline that went mostly to waiting
// for an instance other calls held are not.
func TestBreakerOutcome(t *testing.T) {
	trap := errors.New("wasm error: unreachable")
	exit := fmt.Errorf("module exited: %w", errors.New("exit_code(3)"))
	stopped := fmt.Errorf("handler: %w", interrupt.ErrInterrupted)
	const timeout = 10 * time.Second
	tests := []struct {
		name string
		end  callEnd
		want breaker.Outcome
	}{
		{"served", callEnd{Timeout: timeout}, breaker.Served},
		{"a trap", callEnd{Err: trap, Timeout: timeout}, breaker.Trapped},
		{"os.Exit", callEnd{Err: exit, Timeout: timeout}, breaker.Trapped},
		{"its own deadline", callEnd{Err: stopped, Timeout: timeout}, breaker.Trapped},
		{"its deadline, after a short wait for an instance", callEnd{Err: stopped, Waited: timeout/2 - time.Millisecond, Timeout: timeout}, breaker.Trapped},
		{"its deadline, half of it spent waiting for an instance", callEnd{Err: stopped, Waited: timeout / 2, Timeout: timeout}, breaker.Unknown},
		{"its deadline, all of it spent waiting for an instance", callEnd{Err: stopped, Waited: timeout, Timeout: timeout}, breaker.Unknown},
		{"its idle timeout, after a wait", callEnd{Err: stopped, Idled: true, Waited: timeout, Timeout: timeout}, breaker.Trapped},
		{"a trap after a long wait for an instance", callEnd{Err: trap, Waited: timeout - time.Millisecond, Timeout: timeout}, breaker.Trapped},
		{"a trap after the client left", callEnd{Err: trap, ClientGone: true, Timeout: timeout}, breaker.Trapped},
		{"os.Exit after the client left", callEnd{Err: exit, ClientGone: true, Timeout: timeout}, breaker.Trapped},
		{"stopped because the client left", callEnd{Err: stopped, ClientGone: true, Timeout: timeout}, breaker.Unknown},
		{"served after the client left", callEnd{ClientGone: true, Timeout: timeout}, breaker.Served},
		{"a database outage", callEnd{Err: trap, Database: true, Timeout: timeout}, breaker.Unknown},
		{"the host stopping", callEnd{Err: stopped, Stopping: true, Timeout: timeout}, breaker.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := breakerOutcome(tt.end); got != tt.want {
				t.Errorf("breakerOutcome(%+v) = %v, want %v", tt.end, got, tt.want)
			}
		})
	}
}
