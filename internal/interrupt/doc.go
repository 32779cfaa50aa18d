// Package interrupt stops runaway guests (infinite loops, deep or endless
// recursion, tail-call loops) at a deadline, cheaply, by rewriting each
// module at load time, before wazero compiles it.
//
// wazero's only built-in way, RuntimeConfig.WithCloseOnContextDone, leaves
// native code at every loop header and starts a goroutine per call: 3.6x to
// 32x slower on measured workloads. The rewrite costs 1.01x to 1.33x on C
// guests and 1.1x to 2.7x on Go guests (measured before it knew Go's
// dispatch loops; a Go request of guest-sdk/go's db guest now costs about
// 1.04x, BenchmarkWasmGuestDBRewrite), and stops a loop 15-55 µs after
// its deadline (~325 µs for a Go guest), with [DefaultPeriod].
//
// # How it works
//
// [Instrument] adds to the module a fuel counter (a mutable i32 global)
// and an import, [ImportModule].[ImportName]. Every loop iteration, and the
// entry of every function that makes calls, costs one unit of fuel; when
// the fuel runs out, the guest calls the import, which returns the fuel for
// the next period, or panics with [ErrInterrupted] when the call must stop.
// wazero turns that panic into the call's error and the runtime stays
// usable. In Go's dispatch loops (a loop around a br_table, which every
// jump re-enters) only the jumps that may go backwards pay.
//
// The host side is one host module per runtime ([NewHostModule]) and one
// [Budget] per instance, reset before each call and passed in the call's
// context ([WithBudget]): no timer, no goroutine, no context.WithTimeout.
//
//	wasm, err := interrupt.Instrument(wasm, interrupt.DefaultPeriod) // at load; cache it with the compiled module
//	compiled, err := rt.CompileModule(ctx, wasm)
//	err = interrupt.NewHostModule(ctx, rt, interrupt.DefaultPeriod) // once per runtime
//
//	budget.Reset(deadline) // per call
//	_, err = fn.Call(interrupt.WithBudget(ctx, &budget))
//	if errors.Is(err, interrupt.ErrInterrupted) {
//		// deadline passed, or budget.Stop() was called: discard the instance
//	}
//
// # Notes
//
//   - After an interrupt the guest's own state may be half-updated: close
//     the instance and instantiate a fresh one. Never reuse it.
//   - A call whose context carries no Budget is never interrupted.
//   - Code that runs inside a host function (a blocking read, a sleep) is
//     not interrupted by the fuel check; only guest code is. The host
//     checks the deadline itself when each host function returns, and
//     bounds the blocking ones by it.
package interrupt
