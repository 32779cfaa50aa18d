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
	config  *config.App
	checked bool           // answers are checked against the contract
	served  bool           // the schema route is served
	docPath string         // the schema route
	docs    *docspage.Page // the docs page, nil when off or not served
	server  config.Server  // with the defaults filled in
	// limits are opts.Limits with the defaults filled in, made once:
	// every request reads several of them, and filling a Limits costs a
	// copy of it and a call of runtime.GOMAXPROCS, which takes a lock.
	limits config.Limits
	// security is endpoints.json's "security", as config decoded it.
	security auth.Configs
	// cors answers cross-origin requests (config.App.CORSPolicy); nil
	// when off.
	cors *cors.Policy
	// rateLimits are the policies in name order; trustedProxies the
	// proxies whose X-Forwarded-For is believed.
	rateLimits     []*edge.RateLimit
	trustedProxies []netip.Prefix
	// variables are the values of endpoints.json's "variables", resolved
	// when the settings were made; guests read them (variable_get).
	variables *variables.Values
	// outbound sends the guests' outbound HTTP requests
	// (endpoints.json "outbound"); it allows none when nothing is listed.
	outbound *outbound.Client
	// compress compresses the answers (server.compression); nil when
	// off.
	compress *compress.Policy
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
	s := &settings{opts: h.base.merge(cfg), config: cfg}
	var err error
	if s.opts.ResponseValidation == "" && rm != nil {
		s.opts.ResponseValidation = config.ResponseValidation(rm.Declaration().ResponseValidation)
	}
	if !h.opts.SkipVariables {
		vars, err := variables.Resolve(cfg.Variables, variables.Source{LookupEnv: h.opts.LookupEnv, Dir: h.app})
		if err != nil {
			return nil, err
		}
		s.variables = vars
	}
	s.checked = s.opts.checksResponses()
	s.server = s.opts.Server.WithDefaults()
	s.limits = s.opts.Limits.WithDefaults()
	if s.compress, err = newCompression(s.server.Compression, limitResponseBytes(s.opts.Limits)); err != nil {
		return nil, err
	}
	s.served, s.docPath = s.openAPIServed(), s.openAPIPath()
	s.security, s.cors = cfg.Verifiers(), cfg.CORSPolicy()
	if s.outbound, err = (loadSide{h}).outboundClient(s.opts.Outbound); err != nil {
		return nil, err
	}
	if s.rateLimits, s.trustedProxies, err = edge.NewRateLimits(cfg); err != nil {
		return nil, err
	}
	if _, ok := h.store.(storage.RateLimiter); len(s.rateLimits) > 0 && !ok {
		return nil, fmt.Errorf("%s: rateLimits: the app's store (%T) keeps no rate limits; use the memory or redis store", config.File, h.store)
	}
	if s.served {
		var err error
		if s.docs, err = (loadSide{h}).newDocs(s); err != nil {
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
		return prev.set.config
	}
	t.appConfigHash = hash
	if hash == prev.appConfigHash {
		return prev.set.config
	}
	cfg, err := config.Parse(config.File, data, l.h.opts.ConfigOverrides...)
	if err != nil {
		l.Problem(err, true)
		t.appConfigHash = prev.appConfigHash
		return prev.set.config
	}
	l.report.note(config.File, data != nil, prev.set.config != nil)
	if keys := restartonly.Keep(prev.set.config, cfg); len(keys) > 0 {
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
	return t.set.cors
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
