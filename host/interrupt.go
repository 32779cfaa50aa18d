package host

import (
	"context"
	"log/slog"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/guestrequest"
)

// loadCall returns the call that runs a module's code at load: its start
// function, endpoints_abi_version and the contract or declaration export,
// together bounded by limits.loadTimeout (Config.LoadCall of the engine).
func loadCall(ctx context.Context, logger *slog.Logger, loadTimeout time.Duration, file string) *call {
	c := &call{parent: ctx, rq: guestrequest.Request{Loading: true, LoadTimeout: loadTimeout, Plain: true}, logger: logger, route: &route{File: file, Name: file}}
	c.clock.Bound(time.Now().Add(loadTimeout))
	return c
}
