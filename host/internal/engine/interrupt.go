package engine

import (
	"crypto/sha256"
	"errors"

	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// instrument rewrites a module so that it calls the interrupt check every
// interrupt.DefaultPeriod loop iterations or calls; the package
// documentation of internal/interrupt says why this and not wazero's
// WithCloseOnContextDone. The check (interrupt.NewHostModule) asks the call,
// an interrupt.Expirer, whether it must stop: a clock read per period and
// nothing per request.
func instrument(wasm []byte) ([]byte, error) {
	return interrupt.Instrument(wasm, interrupt.DefaultPeriod)
}

// instrument rewrites a module for interruption, through the cache
// directory when there is one: rewriting a 3-4 MB Go guest costs tens of
// milliseconds, a warm start should not pay it again. Entries are named by
// the SHA-256 of the input, so a changed module never meets a stale one,
// and carry a MAC over that and their bytes (package codecache), so a
// replaced one is rewritten again, never run. Bump codecache's directory
// name when the rewriting changes.
func (e *Engine) instrument(wasm []byte) ([]byte, error) {
	if e.codeCache == nil {
		return instrument(wasm)
	}
	sum := sha256.Sum256(wasm)
	if out, ok := e.codeCache.Instrumented(sum); ok {
		return out, nil
	}
	out, err := instrument(wasm)
	if err != nil {
		return nil, err
	}
	if err := e.codeCache.StoreInstrumented(sum, out); err != nil {
		e.logger.Debug("keeping an instrumented module in the cache failed", "error", err)
	}
	return out, nil
}

// interrupted reports whether a call error is the host stopping the guest.
func interrupted(err error) bool { return errors.Is(err, interrupt.ErrInterrupted) }
