package host

import (
	"errors"
	"time"

	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// loadTimeout bounds instantiation and contract reading at load time.
const loadTimeout = 30 * time.Second

func loadDeadline() int64 { return time.Now().Add(loadTimeout).UnixNano() }

// instrument rewrites a module so that it calls the interrupt check every
// interrupt.DefaultPeriod loop iterations or calls; see
// shared/reference/interrupt-design.md for why this and not wazero's
// WithCloseOnContextDone. The check (interrupt.NewHostModule) asks the call,
// an interrupt.Expirer, whether it must stop: a clock read per period and
// nothing per request.
func instrument(wasm []byte) ([]byte, error) {
	return interrupt.Instrument(wasm, interrupt.DefaultPeriod)
}

// interrupted reports whether a call error is the host stopping the guest.
func interrupted(err error) bool { return errors.Is(err, interrupt.ErrInterrupted) }
