package edge

import (
	"fmt"
	"log/slog"

	"github.com/wasmendpoints/endpoints/abi"
)

// The middleware runtime: what a chain's before and after exports decide
// for a request (docs/spec.md §4 steps 3 and 11, abi/README.md §3). Each
// export runs in a guest call of its own, which the host prepares, runs
// and answers with ([Runner]); these functions decide which calls run, in
// what order, and what their results mean.

// ModuleCall is one guest call of a middleware export that the host
// prepared for a request.
type ModuleCall interface {
	// Run calls the export and returns its result; ok is false when the
	// call failed (a trap, the deadline, a fault), which the host logged.
	Run() (result int32, ok bool)
	// Wrote reports whether the call wrote an answer: a body, or a
	// status other than 200.
	Wrote() bool
}

// Runner is what the middleware runtime needs of the request whose chain
// it runs: the guest calls of its modules' exports and the answers that
// stop the request.
type Runner interface {
	// Call prepares a call of m's export for phase (abi.PhaseBefore,
	// abi.PhaseAfter). Give it back with Done.
	Call(m *Middleware, phase string) ModuleCall
	// Answer sends the answer the before call mc wrote.
	Answer(mc ModuleCall)
	// Fail answers the request for the failed call mc: 500 (503 when it
	// waited for a database), with reason shown in development ("": the
	// log says why).
	Fail(mc ModuleCall, reason string)
	// Done gives mc back.
	Done(mc ModuleCall)
}

// Before runs the before export of each module of chain, in order. It
// reports whether the request goes on to its handler; when it does not,
// run answered it: with the answer a module wrote and returned answered
// with, or with a failure when a call failed, returned something else
// than continue or answered, or wrote an answer and returned continue.
// The response headers a module sets stay in the answer's whatever it
// is.
func Before(chain []*Middleware, run Runner, logger *slog.Logger) bool {
	for _, m := range chain {
		if !m.before {
			continue
		}
		mc := run.Call(m, abi.PhaseBefore)
		res, ok := mc.Run()
		switch {
		case !ok:
			run.Fail(mc, "")
		case res == abi.MiddlewareAnswered:
			run.Answer(mc)
		case res != abi.MiddlewareContinue:
			logger.Error("middleware failed", "middleware", m.File, "export", abi.ExportBefore, "reason", fmt.Sprintf("it returned %d; want %d (continue) or %d (answered)", res, abi.MiddlewareContinue, abi.MiddlewareAnswered))
			run.Fail(mc, fmt.Sprintf("%s returned %d", abi.ExportBefore, res))
			ok = false
		case mc.Wrote():
			logger.Error("middleware failed", "middleware", m.File, "export", abi.ExportBefore, "reason", "it wrote an answer, then continued")
			run.Fail(mc, "it wrote an answer, then returned continue: return answered (1) to send it")
			ok = false
		}
		answered := !ok || res != abi.MiddlewareContinue
		run.Done(mc)
		if answered {
			return false
		}
	}
	return true
}

// After runs the after export of each module of chain, in reverse order,
// once the handler answered. A failing call is logged (a result other
// than 0 here; the host logged a failed call); the answer stands.
func After(chain []*Middleware, run Runner, logger *slog.Logger) {
	for i := len(chain) - 1; i >= 0; i-- {
		m := chain[i]
		if !m.after {
			continue
		}
		mc := run.Call(m, abi.PhaseAfter)
		if res, ok := mc.Run(); ok && res != 0 {
			logger.Error("middleware failed", "middleware", m.File, "export", abi.ExportAfter, "reason", fmt.Sprintf("it returned %d", res))
		}
		run.Done(mc)
	}
}
