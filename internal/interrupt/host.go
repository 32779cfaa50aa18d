package interrupt

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// ExitCode is the exit code of [ErrInterrupted]: 0xDEAD0001. It is outside
// the range of WASI exit statuses a guest passes to proc_exit on purpose
// (0-125 by convention) and differs from wazero's own codes for a cancelled
// context (0xFFFFFFFF) and a passed deadline (0xEFFFFFFF). The error's
// message reads "module closed with exit_code(3735879681)".
const ExitCode uint32 = 0xdead0001

// ErrInterrupted is the error a call returns when the check import stopped
// it: a *[sys.ExitError] with [ExitCode]. Tell an interrupt from a trap with
// errors.Is:
//
//	if errors.Is(err, interrupt.ErrInterrupted) { ... } // deadline passed or Stop called
//
// # Notes
//
//   - After an interrupt the guest's own state (its allocator, the Go
//     runtime's scheduler) may be half-updated: close the instance and
//     instantiate a fresh one from the compiled module. Never call it again.
var ErrInterrupted = sys.NewExitError(ExitCode)

// epoch is the origin of Budget deadlines; time.Since(epoch) reads the
// monotonic clock.
var epoch = time.Now()

// Budget says when the calls of one instance must stop: at a deadline, or
// as soon as [Budget.Stop] is called. The check import consults it every
// period units of fuel; it stores no timer and starts no goroutine.
//
// The zero Budget has no deadline and is not stopped. One Budget belongs to
// one instance: call [Budget.Reset] before each call, pass it with
// [WithBudget]. [Budget.Stop] and [Budget.Expired] may be called from any
// goroutine, for example by the one that sees the client disconnect.
//
//	var b interrupt.Budget
//	b.Reset(time.Now().Add(2 * time.Second))
//	_, err := fn.Call(interrupt.WithBudget(ctx, &b))
type Budget struct {
	// deadline is the deadline in nanoseconds since epoch on the monotonic
	// clock; 0 means none.
	deadline atomic.Int64
	stop     atomic.Bool
}

// Reset sets the deadline of the next call and clears the stop flag. The
// zero time means no deadline; a deadline already passed stops the call at
// its first check.
func (b *Budget) Reset(deadline time.Time) {
	d := int64(0)
	if !deadline.IsZero() {
		d = max(int64(deadline.Sub(epoch)), 1)
	}
	b.deadline.Store(d)
	b.stop.Store(false)
}

// Stop makes the current call stop at its next check, and every call after
// it until [Budget.Reset].
func (b *Budget) Stop() { b.stop.Store(true) }

// Stopped reports whether [Budget.Stop] was called since the last
// [Budget.Reset]: it tells a stop from a passed deadline after a call
// returned [ErrInterrupted].
func (b *Budget) Stopped() bool { return b.stop.Load() }

// Expired reports whether the call must stop: Stop was called or the
// deadline has passed. It costs one atomic load when stopped or without a
// deadline, one monotonic clock read otherwise.
func (b *Budget) Expired() bool {
	if b.stop.Load() {
		return true
	}
	d := b.deadline.Load()
	return d != 0 && int64(time.Since(epoch)) >= d
}

// budgetKey is the context key of the Budget.
type budgetKey struct{}

// WithBudget returns a copy of ctx that carries b, for the check import to
// consult during calls made with it. A call whose context carries no Budget
// is never stopped by the check import.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// Expirer is a call context that says itself whether the call must stop.
// [Check] asks it directly, before looking for a Budget among the context's
// values, so a host that keeps the deadline in its own per-call state (and
// passes that state as the call's context) allocates nothing per call.
//
//	type call struct{ context.Context; deadline int64 }
//	func (c *call) Expired() bool { return time.Now().UnixNano() > c.deadline }
type Expirer interface {
	Expired() bool
}

// Check returns the check import's implementation, () -> i32: it panics
// with [ErrInterrupted] when the call's context is an [Expirer] that has
// expired, or carries a Budget that has [Budget.Expired], which makes the
// call return that error; else it returns period, the fuel until the next
// check. [NewHostModule] exports it; use
// Check to add it to a host module builder of your own for [ImportModule].
//
//	b.NewFunctionBuilder().
//		WithGoModuleFunction(interrupt.Check(p), nil, []api.ValueType{api.ValueTypeI32}).
//		Export(interrupt.ImportName)
//
// # Notes
//
//   - period must be positive and should equal the one given to
//     [Instrument]; Check panics otherwise.
func Check(period int32) api.GoModuleFunction {
	if period <= 0 {
		panic(fmt.Sprintf("interrupt.Check: period %d: must be positive", period))
	}
	fuel := api.EncodeI32(period)
	return api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
		if e, ok := ctx.(Expirer); ok {
			if e.Expired() {
				panic(ErrInterrupted)
			}
		} else if b, _ := ctx.Value(budgetKey{}).(*Budget); b != nil && b.Expired() {
			panic(ErrInterrupted)
		}
		stack[0] = fuel
	})
}

// NewHostModule instantiates in r the host module that instrumented modules
// import, [ImportModule], exporting [Check] as [ImportName]. Call it once
// per runtime, before instantiating an instrumented module.
//
//	if err := interrupt.NewHostModule(ctx, rt, interrupt.DefaultPeriod); err != nil { ... }
//
// # Notes
//
//   - Keep wazero's RuntimeConfig.WithCloseOnContextDone off: the
//     instrumentation replaces it at a fraction of its cost.
//   - The context of the instantiation is not consulted by later calls;
//     each call's own context is.
func NewHostModule(ctx context.Context, r wazero.Runtime, period int32) error {
	if period <= 0 {
		return fmt.Errorf("interrupt host module: period %d: must be positive", period)
	}
	_, err := r.NewHostModuleBuilder(ImportModule).
		NewFunctionBuilder().
		WithGoModuleFunction(Check(period), nil, []api.ValueType{api.ValueTypeI32}).
		WithName(ImportName).
		Export(ImportName).
		Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("interrupt host module: %w", err)
	}
	return nil
}
