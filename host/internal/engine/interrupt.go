package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"

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

// instrumentVersion names the instrumented-module cache; bump it when the
// rewriting changes.
const instrumentVersion = "instrumented-v1"

// instrument rewrites a module for interruption, through the cache
// directory when there is one: rewriting a 3-4 MB Go guest costs tens of
// milliseconds, a warm start should not pay it again. Entries are named by
// the SHA-256 of the input, so a changed module never meets a stale one.
func (e *Engine) instrument(wasm []byte) ([]byte, error) {
	if e.cacheDir == "" {
		return instrument(wasm)
	}
	sum := sha256.Sum256(wasm)
	path := filepath.Join(e.cacheDir, instrumentVersion, hex.EncodeToString(sum[:])+".wasm")
	if out, err := os.ReadFile(path); err == nil {
		return out, nil
	}
	out, err := instrument(wasm)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		if f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*"); err == nil {
			_, werr := f.Write(out)
			cerr := f.Close()
			if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
				_ = os.Remove(f.Name())
			}
		}
	}
	return out, nil
}

// interrupted reports whether a call error is the host stopping the guest.
func interrupted(err error) bool { return errors.Is(err, interrupt.ErrInterrupted) }
