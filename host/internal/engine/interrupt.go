package engine

import (
	"crypto/sha256"
	"errors"

	"github.com/wasmendpoints/endpoints/internal/interrupt"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// instrument rewrites a module so that it calls the interrupt check every
// interrupt.DefaultPeriod loop iterations or calls; the package
// documentation of internal/interrupt says why this and not wazero's
// WithCloseOnContextDone. The check (interrupt.NewHostModule) asks the call,
// an interrupt.Expirer, whether it must stop: a clock read per period and
// nothing per request.
//
// It also merges the module's data segments that lie close together
// (wasmbin.MergeData): the work of each instantiation, which for a Go
// module's 100,000 segments is most of a fresh instance's cost beside its
// start function, done once per module instead.
func instrument(wasm []byte) ([]byte, error) {
	out, err := interrupt.Instrument(wasm, interrupt.DefaultPeriod)
	if err != nil {
		return nil, err
	}
	out, _, err = wasmbin.MergeData(out, wasmbin.DefaultDataGap)
	return out, err
}

// instrument rewrites a module for interruption, through the cache
// directory when there is one: rewriting a 3-4 MB Go guest costs tens of
// milliseconds, a warm start should not pay it again. Entries are named by
// the SHA-256 of the input, so a changed module never meets a stale one,
// and carry a MAC over that and their bytes (package codecache), so a
// replaced one is rewritten again, never run. Bump codecache's directory
// name when the rewriting changes.
//
// A new entry is written on another goroutine, while the caller compiles
// the output: for the 12 MB Go bundle of a saved route, the MAC and the
// write take about 50 ms that the developer would otherwise wait for
// before the interpreter begins. The caller calls stored, which waits for
// the write, before it returns, so that no write outlives the load that
// made it (nor the cache directory).
func (e *Engine) instrument(wasm []byte) (out []byte, stored func(), err error) {
	if e.codeCache == nil {
		out, err = instrument(wasm)
		return out, func() {}, err
	}
	sum := sha256.Sum256(wasm)
	if out, ok := e.codeCache.Instrumented(sum); ok {
		return out, func() {}, nil
	}
	if out, err = instrument(wasm); err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.codeCache.StoreInstrumented(sum, out); err != nil {
			e.logger.Debug("keeping an instrumented module in the cache failed", "error", err)
		}
	}()
	return out, func() { <-done }, nil
}

// interrupted reports whether a call error is the host stopping the guest.
func interrupted(err error) bool { return errors.Is(err, interrupt.ErrInterrupted) }
