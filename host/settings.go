package host

import (
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/resolved"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
	"github.com/wasmendpoints/endpoints/host/internal/versionload"
)

// settings are what endpoints.json (merged with the embedder's Options)
// decides for requests and the document, resolved once (package
// resolved).
type settings = resolved.Settings

// loadSide is the host as a load of a version sees it: what
// versionload.Load asks of it (versionload.Host: the migrations, the
// settings merged with the embedder's, the runtime declaration's extend
// call, what the verifiers of the security schemes need and the API keys
// they look up), the background load of modules a build had not built,
// the log of a reload's problems.
type loadSide struct{ *Host }

var _ versionload.Host = loadSide{}

// Settings resolves the settings of cfg with the options New was given
// over it (Options.merge); the runtime declaration's response-validation
// policy applies when neither the options nor cfg set one. In Production
// it also reads the keys of cfg's security schemes (checkSecurityKeys).
func (h loadSide) Settings(cfg *config.App, rm *runtimedecl.Module) (*settings, error) {
	opts := h.base.merge(cfg)
	if opts.ResponseValidation == "" && rm != nil {
		opts.ResponseValidation = config.ResponseValidation(rm.Declaration().ResponseValidation)
	}
	s, err := resolved.New(resolved.Input{Config: cfg, Limits: opts.Limits, Server: opts.Server, Outbound: opts.Outbound,
		Idempotency: opts.Idempotency, OpenAPI: opts.OpenAPI, ResponseValidation: opts.ResponseValidation,
		Development: opts.Mode == Development, AppDir: h.app, LookupEnv: opts.LookupEnv, SkipVariables: opts.SkipVariables,
		Store: h.store, Clients: &h.outbound, WriteDocsError: writeDocsError})
	if err == nil {
		if err = h.checkSecurityKeys(cfg); err != nil {
			s = nil
		}
	}
	// A setting an override gave (a CA file that cannot be read) says so.
	return s, config.Attribute(err, h.opts.ConfigOverrides)
}
