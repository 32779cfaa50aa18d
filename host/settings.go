package host

import (
	"fmt"
	"net/netip"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/compress"
	"github.com/wasmendpoints/endpoints/host/internal/docspage"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
	"github.com/wasmendpoints/endpoints/host/internal/restartonly"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
	"github.com/wasmendpoints/endpoints/host/internal/variables"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/cors"
	"github.com/wasmendpoints/endpoints/storage"
)

// settings are what endpoints.json (merged with the embedder's Options)
// decides for requests: limits, answer checking, idempotency tuning and
// the OpenAPI routes. A table carries its settings, so a reload that
// changes endpoints.json swaps them together with the routes.
type settings struct {
	opts    Options
	Config  *config.App
	Checked bool           // answers are checked against the contract
	Served  bool           // the schema route is served
	DocPath string         // the schema route
	Docs    *docspage.Page // the docs page, nil when off or not served
	Server  config.Server  // with the defaults filled in
	// Limits are opts.Limits with the defaults filled in, made once:
	// every request reads several of them, and filling a Limits costs a
	// copy of it and a call of runtime.GOMAXPROCS, which takes a lock.
	Limits config.Limits
	// Security is endpoints.json's "Security", as config decoded it.
	Security auth.Configs
	// CORS answers cross-origin requests (config.App.CORSPolicy); nil
	// when off.
	CORS *cors.Policy
	// RateLimits are the policies in name order; trustedProxies the
	// proxies whose X-Forwarded-For is believed.
	RateLimits     []*edge.RateLimit
	TrustedProxies []netip.Prefix
	// Variables are the values of endpoints.json's "Variables", resolved
	// when the settings were made; guests read them (variable_get).
	Variables *variables.Values
	// Outbound sends the guests' Outbound HTTP requests
	// (endpoints.json "Outbound"); it allows none when nothing is listed.
	Outbound *outbound.Client
	// Compress compresses the answers (server.compression); nil when
	// off.
	Compress *compress.Policy
}

// loadSide is the host as a load builds what a table serves with: the
// route modules of a bundle, the docs page, the outbound clients, and the
// verifiers of the security schemes. Its methods are the host's load side,
// apart from the steps reload.go calls on Host.
type loadSide struct{ *Host }

// newSettings derives the settings of cfg; the runtime declaration's
// response-validation policy applies when neither the options nor cfg set
// one.
func (h *Host) newSettings(cfg *config.App, rm *runtimedecl.Module) (*settings, error) {
	s := &settings{opts: h.base.merge(cfg), Config: cfg}
	var err error
	if s.opts.ResponseValidation == "" && rm != nil {
		s.opts.ResponseValidation = config.ResponseValidation(rm.Declaration().ResponseValidation)
	}
	if !h.opts.SkipVariables {
		vars, err := variables.Resolve(cfg.Variables, variables.Source{LookupEnv: h.opts.LookupEnv, Dir: h.app})
		if err != nil {
			return nil, err
		}
		s.Variables = vars
	}
	s.Checked = s.opts.checksResponses()
	s.Server = s.opts.Server.WithDefaults()
	s.Limits = s.opts.Limits.WithDefaults()
	if s.Compress, err = newCompression(s.Server.Compression, limitResponseBytes(s.opts.Limits)); err != nil {
		return nil, err
	}
	s.Served, s.DocPath = s.openAPIServed(), s.openAPIPath()
	s.Security, s.CORS = cfg.Verifiers(), cfg.CORSPolicy()
	if s.Outbound, err = (loadSide{h}).outboundClient(s.opts.Outbound); err != nil {
		return nil, err
	}
	if s.RateLimits, s.TrustedProxies, err = edge.NewRateLimits(cfg); err != nil {
		return nil, err
	}
	if _, ok := h.store.(storage.RateLimiter); len(s.RateLimits) > 0 && !ok {
		return nil, fmt.Errorf("%s: rateLimits: the app's store (%T) keeps no rate limits; use the memory or redis store", config.File, h.store)
	}
	if s.Served {
		var err error
		if s.Docs, err = (loadSide{h}).newDocs(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// appConfig reads endpoints.json for a reload: the new configuration when
// it changed and is valid, the previous one otherwise.
func (l *loading) appConfig() *config.App {
	t, prev := l.t, l.prev
	data, hash, err := appload.Dir(l.h.app).Read(config.File)
	if err != nil {
		l.Problem(err, true)
		t.appConfigHash = prev.appConfigHash
		return prev.set.Config
	}
	t.appConfigHash = hash
	if hash == prev.appConfigHash {
		return prev.set.Config
	}
	cfg, err := config.Parse(config.File, data, l.h.opts.ConfigOverrides...)
	if err != nil {
		l.Problem(err, true)
		t.appConfigHash = prev.appConfigHash
		return prev.set.Config
	}
	l.report.note(config.File, data != nil, prev.set.Config != nil)
	if keys := restartonly.Keep(prev.set.Config, cfg); len(keys) > 0 {
		l.h.logger.Warn(fmt.Sprintf("%s changed %v: restart to apply those (their previous values stay in effect until then); the rest applies now", config.File, keys))
	}
	return cfg
}

// corsPolicy is the CORS policy t answers with: the one its security plan
// completed, else the settings' (a table whose document failed).
func (t *table) corsPolicy() *cors.Policy {
	if t.cors != nil {
		return t.cors
	}
	return t.set.CORS
}

// newCompression returns the compression policy of c (with its defaults),
// for buffered answers of at most maxBytes; nil when c is off.
func newCompression(c config.Compression, maxBytes int64) (*compress.Policy, error) {
	if c.Off {
		return nil, nil
	}
	level, err := compress.ParseLevel(c.Level)
	if err != nil {
		// config.Parse refused it in the file: it came from
		// Options.Server.Compression.
		return nil, fmt.Errorf("Options.Server.Compression.Level: %v", err)
	}
	return compress.New(compress.Options{MinBytes: c.MinBytes, MaxBytes: maxBytes, Level: level})
}
