package host

import (
	"context"
	"errors"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmendpoints/endpoints/internal/interrupt"
)

// exitInterrupted is the exit code a call ends with when the host stopped
// the guest: deadline passed, client gone, or host closing.
const exitInterrupted = 0xE7D0

// loadTimeout bounds instantiation and contract reading at load time.
const loadTimeout = 30 * time.Second

func loadDeadline() int64 { return time.Now().Add(loadTimeout).UnixNano() }

// instrument rewrites a module so that it calls the interrupt check every
// interrupt.DefaultPeriod loop iterations or calls; see
// shared/reference/interrupt-design.md for why this and not wazero's
// WithCloseOnContextDone.
func instrument(wasm []byte) ([]byte, error) {
	return interrupt.Instrument(wasm, interrupt.DefaultPeriod)
}

// instantiateInterrupt registers the check the instrumented modules import.
// It costs a clock read per period, and nothing per request: the deadline is
// a field of the call.
func instantiateInterrupt(ctx context.Context, r wazero.Runtime) error {
	_, err := r.NewHostModuleBuilder(interrupt.ImportModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
			if c := callFrom(ctx); c != nil && c.expired() {
				panic(sys.NewExitError(exitInterrupted))
			}
			stack[0] = interrupt.DefaultPeriod
		}), nil, []api.ValueType{api.ValueTypeI32}).
		Export(interrupt.ImportName).
		Instantiate(ctx)
	return err
}

// interrupted reports whether a call error is the host stopping the guest.
func interrupted(err error) bool {
	var exit *sys.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == exitInterrupted
}
