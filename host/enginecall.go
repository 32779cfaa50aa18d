package host

import (
	"context"
	"log/slog"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/guestlog"
	"github.com/wasmendpoints/endpoints/internal/linearmem"
)

// mappedMemory says whether new engines map their instances' memories
// (internal/linearmem). Tests turn it off to measure wazero's default.
var mappedMemory = linearmem.Supported

// newEngine makes the engine of a host (package engine) from its options:
// the limits, the cache directory, the tiers, and the observer's and
// Options.Progress's hooks for what the engine's pools and background
// compilations report.
func newEngine(ctx context.Context, opts *Options, logger *slog.Logger) (*engine.Engine, error) {
	loadTimeout := limitLoadTimeout(opts.Limits)
	cfg := engine.Config{
		MemoryBytes:         limitMemoryBytes(opts.Limits),
		RecycleMemoryBytes:  limitRecycleMemoryBytes(opts.Limits),
		CacheDir:            opts.cacheDir(),
		CacheKeyFile:        opts.cacheKeyFile(),
		ConfigFile:          config.File,
		ServeWhileCompiling: opts.ServeWhileCompiling,
		MapMemory:           mappedMemory,
		Logger:              logger,
		LoadCall: func(ctx context.Context, file string) engine.Call {
			return guestCall{loadCall(ctx, logger, loadTimeout, file)}
		},
	}
	if progress := opts.Progress; progress != nil {
		cfg.Progress = func(stage, file string, done, total int, took time.Duration, err error) {
			progress(Progress{Stage: stage, File: file, Done: done, Total: total, Took: took, Err: err})
		}
	}
	if o := opts.Observer; o != nil && o.PoolWait != nil {
		cfg.PoolWait = func(module, route string, waited time.Duration, acquired bool) {
			o.PoolWait(PoolEvent{Module: module, Route: route, Waited: waited, Acquired: acquired})
		}
	}
	if o := opts.Observer; o != nil && o.InstanceDiscarded != nil {
		cfg.InstanceDiscarded = func(module, route string) {
			o.InstanceDiscarded(PoolEvent{Module: module, Route: route})
		}
	}
	if o := opts.Observer; o != nil && o.InstanceMade != nil {
		cfg.InstanceMade = func(module, route string) {
			o.InstanceMade(PoolEvent{Module: module, Route: route})
		}
	}
	if o := opts.Observer; o != nil && o.InstanceRecycled != nil {
		cfg.InstanceRecycled = func(module, route string, memoryBytes int64) {
			o.InstanceRecycled(PoolEvent{Module: module, Route: route, MemoryBytes: memoryBytes})
		}
	}
	return engine.New(ctx, cfg)
}

// What the engine sees of a call (engine.Call), beside Expired and
// Loading: each method serves the pool or the WASI sandbox, on the
// goroutine of the call.

var _ engine.Call = guestCall{}

func (c guestCall) LoadTimeout() time.Duration    { return c.rq.LoadTimeout }
func (c guestCall) Stopped() <-chan struct{}      { return c.stopped() }
func (c guestCall) SetMemory(ctx context.Context) { c.memory = ctx }
func (c guestCall) ClearMemory()                  { c.memory = nil }

// GuestOutput logs a line the guest wrote to stdout or stderr, and keeps
// it for a development 500.
func (c guestCall) GuestOutput(line []byte) {
	c.log(abi.LogInfo, line, guestlog.StreamKey, "guest output")
	c.requestCall().logs.Keep(engine.LogLine(line))
}
