package engine

import (
	"context"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/abihost"
)

// Call is what the engine sees of the guest call an instance serves: its
// deadline and cancellation, where the guest's output goes, and the
// memory allocator while it instantiates a module.
//
// The host's call implements it and is the context.Context handed to
// wazero and to [Pool.Get]; the engine finds it through the context's
// Value for abihost.CallKey, as the host functions do. It is owned by the
// goroutine serving the request; the engine uses it on that goroutine
// only.
type Call interface {
	context.Context
	// Expired reports whether the guest must stop (interrupt.Expirer).
	Expired() bool
	// Loading reports whether the call runs a module's code at load.
	Loading() bool
	// LoadTimeout is the length of a loading call's deadline, for errors.
	LoadTimeout() time.Duration
	// Stopped is closed when the host stops every call; nil, which never
	// fires, outside a host.
	Stopped() <-chan struct{}
	// GuestOutput logs a line the guest wrote to stdout or stderr (not
	// empty, without its newline).
	GuestOutput(line []byte)
	// SetMemory carries the memory allocator's context while the call
	// instantiates a module, until ClearMemory: the call's Value must
	// answer from it. See [Engine.instantiate].
	SetMemory(ctx context.Context)
	// ClearMemory ends what SetMemory began.
	ClearMemory()
}

// Waiter is what a [Call] may implement to hear what [Pool.Get] waited
// for before it returned an instance: the module's code, which the host
// loads in the background (DeferPool), and a free instance. Get tells it
// only when it waited, on the call's goroutine.
type Waiter interface {
	// WaitedForCode: Get waited d for the module's code, and it loaded.
	WaitedForCode(d time.Duration)
	// WaitedForInstance: Get waited d for a free instance, with or
	// without one at the end.
	WaitedForInstance(d time.Duration)
}

// callFrom is the call ctx carries; nil when none.
func callFrom(ctx context.Context) Call {
	c, _ := ctx.Value(abihost.CallKey{}).(Call)
	return c
}
