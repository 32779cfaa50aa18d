package host

import (
	"context"
	"log/slog"
	"time"
)

// loadCall returns the call that runs a module's code at load: its start
// function, endpoints_abi_version and the contract or declaration export,
// together bounded by limits.loadTimeout (Config.LoadCall of the engine).
func loadCall(ctx context.Context, logger *slog.Logger, loadTimeout time.Duration, file string) *call {
	c := &call{parent: ctx, requestPart: requestPart{loading: true, loadTimeout: loadTimeout}, logger: logger, route: &route{File: file}}
	c.clock.Bound(time.Now().Add(loadTimeout))
	return c
}
