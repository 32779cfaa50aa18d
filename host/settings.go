package host

import (
	"fmt"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/resolved"
	"github.com/wasmendpoints/endpoints/host/internal/restartonly"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
)

// settings are what endpoints.json (merged with the embedder's Options)
// decides for requests and the document, resolved once (package
// resolved).
type settings = resolved.Settings

// loadSide is the host as a load builds what a table serves with beside
// its settings: the verifiers of the security schemes and the API keys
// they look up, the background load of modules a build had not built, the
// log of a reload's problems. Its methods are the host's load side, apart
// from the steps reload.go calls on Host.
type loadSide struct{ *Host }

// newSettings resolves the settings of cfg with the options New was given
// over it (Options.merge); the runtime declaration's response-validation
// policy applies when neither the options nor cfg set one.
func (h *Host) newSettings(cfg *config.App, rm *runtimedecl.Module) (*settings, error) {
	opts := h.base.merge(cfg)
	if opts.ResponseValidation == "" && rm != nil {
		opts.ResponseValidation = config.ResponseValidation(rm.Declaration().ResponseValidation)
	}
	return resolved.New(resolved.Input{Config: cfg, Limits: opts.Limits, Server: opts.Server, Outbound: opts.Outbound,
		Idempotency: opts.Idempotency, OpenAPI: opts.OpenAPI, ResponseValidation: opts.ResponseValidation,
		Development: opts.Mode == Development, AppDir: h.app, LookupEnv: opts.LookupEnv, SkipVariables: opts.SkipVariables,
		Store: h.store, Clients: &h.outbound, WriteDocsError: writeDocsError})
}

// appConfig reads endpoints.json for a reload: the new configuration when
// it changed and is valid, the previous one otherwise.
func (l *loading) appConfig() *config.App {
	t, prev := l.t, l.prev
	data, hash, err := appload.Dir(l.h.app).Read(config.File)
	if err != nil {
		l.Problem(err, true)
		t.AppConfigHash = prev.AppConfigHash
		return prev.Set.Config
	}
	t.AppConfigHash = hash
	if hash == prev.AppConfigHash {
		return prev.Set.Config
	}
	cfg, err := config.Parse(config.File, data, l.h.opts.ConfigOverrides...)
	if err != nil {
		l.Problem(err, true)
		t.AppConfigHash = prev.AppConfigHash
		return prev.Set.Config
	}
	l.report.note(config.File, data != nil, prev.Set.Config != nil)
	if keys := restartonly.Keep(prev.Set.Config, cfg); len(keys) > 0 {
		l.h.logger.Warn(fmt.Sprintf("%s changed %v: restart to apply those (their previous values stay in effect until then); the rest applies now", config.File, keys))
	}
	return cfg
}
