// Package guestfail phrases why a guest call failed: the reason the log
// and a development 500 give (Reason), the error that ends the call's
// span (Err), and the data of that 500 (Data). Production answers say
// none of it; which answer the host sends stays with it (host/serve.go).
package guestfail

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/guestclock"
	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// LimitError is the trap a host function raises when a guest passes one
// of the host's limits (limits.responseBytes): Msg says which, and is the
// failure's reason.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// Interrupted reports whether a call error is the host stopping the
// guest (interrupt.ErrInterrupted): its deadline, its client gone, a
// shutdown.
func Interrupted(err error) bool { return errors.Is(err, interrupt.ErrInterrupted) }

// Data is the data of a development 500 for a failed guest: why (the
// trap, the deadline, the result code), which module, and the last lines
// the guest logged as warnings or errors or wrote to stdout and stderr (a
// panic and its stack).
type Data struct {
	Error      string   `json:"error"`
	Route      string   `json:"route,omitempty"`
	Middleware string   `json:"middleware,omitempty"`
	Output     []string `json:"output,omitempty"`
}

// Err is why a handler's call failed, for the end of its span: nil when
// it succeeded. fault is a limit the call passed that the ABI answers
// with an errno ("" for none), err the call's error, code the handler's
// result when err is nil. It describes the failure, not its cause in
// detail: the log line has that.
func Err(err error, code int32, fault string) error {
	switch {
	case fault != "":
		return errors.New(fault)
	case err != nil:
		return err
	case code != 0:
		return fmt.Errorf("the handler returned error code %d", code)
	}
	return nil
}

// Failure is what Reason needs of a failed call.
type Failure struct {
	// Err is the call's error; Code the handler's result when Err is nil;
	// Fault a limit the call passed that the ABI answers with an errno.
	Err   error
	Code  int32
	Fault string
	// ClientGone: the request's client went away; Stopping: the host is
	// shutting down and stops its guests.
	ClientGone, Stopping bool
	// Clock is the time the call was held to.
	Clock *guestclock.Clock
	// Call is the call, for engine.GuestFailure's phrasing of a trap.
	Call engine.Call
}

// Reason phrases why a guest call failed, for the log and the development
// 500; gone reports a call stopped because its client left, which is no
// failure to report.
func Reason(f Failure) (reason string, gone bool) {
	var limit *LimitError
	switch {
	case f.Fault != "":
		return f.Fault, false
	case f.Err == nil:
		return fmt.Sprintf("the handler returned error code %d", f.Code), false
	case Interrupted(f.Err) && f.ClientGone:
		return "", true
	case Interrupted(f.Err) && f.Stopping:
		return "the host is shutting down and stopped the handler", false
	case Interrupted(f.Err) && f.Clock.Idled():
		return fmt.Sprintf("the handler wrote nothing for %s (its idleTimeout) and was stopped", f.Clock.Idle()), false
	case Interrupted(f.Err):
		return fmt.Sprintf("the handler ran past its %s deadline and was stopped%s", f.Clock.Timeout(), waits(f.Clock)), false
	case errors.As(f.Err, &limit):
		return limit.Msg, false
	}
	return engine.GuestFailure(f.Err, f.Call).Error(), false
}

// waits says what of a deadline went to waiting rather than to the
// handler: a free instance (limits.instances), which uses it up, and the
// module's code, which the host loaded meanwhile and gave back. A user
// told only that the handler ran past its deadline looks for a slow
// handler.
func waits(c *guestclock.Clock) string {
	out := ""
	if w := c.InstanceWait(); w > 0 {
		out += fmt.Sprintf("; %s of it went to waiting for a free instance (every one of limits.instances was busy)", w.Round(time.Millisecond))
	}
	if w := c.CodeWait(); w > 0 {
		out += fmt.Sprintf("; before it, the request waited %s for the host to load the module's code, which did not count", w.Round(time.Millisecond))
	}
	return out
}
