package host

import (
	"context"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/sections"
)

func init() {
	sections.Embed = func(ctx context.Context, appDir, file string, wasm []byte, overrides ...config.Override) ([]byte, error) {
		return embedSections(ctx, appDir, file, wasm, false, overrides)
	}
	sections.EmbedSalvaged = func(ctx context.Context, appDir, file string, wasm []byte, overrides ...config.Override) ([]byte, error) {
		return embedSections(ctx, appDir, file, wasm, true, overrides)
	}
}

// embedSections is sections.Embed (sections.EmbedSalvaged with
// keepFailed): the app's limits, the interpreter for modules the cache
// lacks.
func embedSections(ctx context.Context, appDir, file string, wasm []byte, keepFailed bool, overrides []config.Override) ([]byte, error) {
	cfg, err := config.Load(appDir, overrides...)
	if err != nil {
		return nil, err
	}
	return embedContract(ctx, file, wasm, Options{Limits: cfg.Limits, ServeWhileCompiling: true}, keepFailed)
}

// embedContract returns wasm with what the module declares in custom
// sections (routemod.Embed), loaded as the host loads it, in the same
// sandbox and with opts' limits. With opts.ServeWhileCompiling a module
// the compilation cache lacks runs in wazero's interpreter, which reads
// the exports in a fraction of the compiler's time.
func embedContract(ctx context.Context, file string, wasm []byte, opts Options, keepFailed bool) ([]byte, error) {
	e, err := newEngine(ctx, &opts, opts.logger())
	if err != nil {
		return nil, err
	}
	defer e.Shutdown(ctx)
	return routemod.Embed(ctx, e, file, wasm, limitMaxTimeout(opts.Limits), keepFailed)
}
