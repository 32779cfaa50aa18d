package host

import (
	"context"
	"log/slog"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/sections"
)

func init() { sections.Check = checkApp }

// checkApp is sections.Check: the first load of New in Production, by the
// same code (Host.load, package versionload), with the route modules routed
// from their contract sections (ServeWhileCompiling defers a module that
// carries them), the app's variables, migrations and store left alone (a
// memory store stands for the app's, so that a store endpoints.json names
// is never reached), and no compilation started: the load's problems are
// the *LoadError New returns, its warnings (SkipVariables: the security
// settings left to the deployment among them) the App's.
func checkApp(ctx context.Context, appDir string, overrides ...config.Override) (sections.App, error) {
	cfg, err := config.Load(appDir, overrides...)
	if err != nil {
		return sections.App{}, err
	}
	base := Options{Mode: Production, ServeWhileCompiling: true, SkipVariables: true, SkipMigrations: true,
		Logger: slog.New(slog.DiscardHandler), ConfigOverrides: overrides}
	opts := base.merge(cfg)
	e, err := newEngine(ctx, &opts, opts.logger())
	if err != nil {
		return sections.App{}, err
	}
	defer func() { _ = e.Shutdown(context.Background()) }()
	h := &Host{app: appDir, base: base, opts: opts, config: cfg, logger: opts.logger(), engine: e,
		halt: make(chan struct{}), done: make(chan struct{}), closed: make(chan struct{})}
	life := lifecycle{h}
	h.opts.Storage.Driver = config.DriverMemory
	if err := life.openStore(ctx); err != nil {
		return sections.App{}, err
	}
	defer life.closeStore()
	defer life.closeOutbound()
	if err := (loadSide{h}).checkStart(); err != nil {
		return sections.App{}, err
	}
	t, _, err := h.load(ctx, nil)
	if err != nil {
		return sections.App{}, err
	}
	defer t.Close(context.Background())
	if len(t.Problems) > 0 {
		return sections.App{}, &LoadError{Problems: t.Problems}
	}
	app := sections.App{DocumentBytes: len(t.Doc.JSON), Warnings: t.Warnings}
	for _, info := range t.Infos() {
		app.Routes++
		if info.Kind == "endpoint" {
			app.Operations++
		}
	}
	return app, nil
}
