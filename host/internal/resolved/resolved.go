// Package resolved is the settings one version of an app serves with,
// resolved once (New) from its endpoints.json and the embedder's settings
// laid over it (host.Options.merge, package overlay): the limits, server,
// openApi and Idempotency-Key settings with their defaults filled, whether
// answers are checked, and what the settings make (the docs page, the CORS
// policy, the rate limits, the outbound client, the answers'
// compression). A table of the host carries its Settings, so a reload
// that changes endpoints.json swaps them together with the routes; requests
// read them and never change them.
package resolved

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/compress"
	"github.com/wasmendpoints/endpoints/host/internal/docspage"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/idempotency"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
	"github.com/wasmendpoints/endpoints/host/internal/overlay"
	"github.com/wasmendpoints/endpoints/host/internal/variables"
	"github.com/wasmendpoints/endpoints/internal/allowlist"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/cors"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/storage"
)

// Settings are what endpoints.json, with the embedder's settings over it,
// decides for requests and the document.
type Settings struct {
	// Config is endpoints.json as read, its overrides applied.
	Config *config.App
	// Checked: answers are checked against the contract.
	Checked bool
	// Served: the OpenAPI document is served, at DocPath; Docs is the docs
	// page, nil when off or the document is not served.
	Served  bool
	DocPath string
	Docs    *docspage.Page
	// Server, Limits and OpenAPI are the settings in effect, their
	// defaults filled in once: every request reads several limits, and
	// filling a Limits costs a copy of it and a call of
	// runtime.GOMAXPROCS, which takes a lock.
	Server  config.Server
	Limits  config.Limits
	OpenAPI config.OpenAPI
	// Embedder is the openApi settings the embedder gave in code
	// (host.Options.OpenAPI), whose Document and Extend the document
	// applies last.
	Embedder config.OpenAPI
	// Idempotency is the Idempotency-Key step's tuning.
	Idempotency idempotency.Config
	// Security is endpoints.json's "security", as config decoded it.
	Security auth.Configs
	// CORS answers cross-origin requests (config.App.CORSPolicy); nil when
	// off.
	CORS *cors.Policy
	// RateLimits are the policies in name order; TrustedProxies the
	// proxies whose X-Forwarded-For is believed.
	RateLimits     []*edge.RateLimit
	TrustedProxies []netip.Prefix
	// Variables are the values of endpoints.json's "variables", resolved
	// when the settings were made; guests read them (variable_get). Nil
	// when Input.SkipVariables.
	Variables *variables.Values
	// Outbound sends the guests' outbound HTTP requests (endpoints.json's
	// "outbound"); it allows none when nothing is listed.
	Outbound *outbound.Client
	// Compress compresses the answers (server.compression); nil when off.
	Compress *compress.Policy
}

// Input is what New resolves: endpoints.json and the settings laid over
// it, and what the settings need of the host.
type Input struct {
	// Config is endpoints.json as read.
	Config *config.App
	// Limits, Server, Outbound and Idempotency are the settings in
	// effect, the embedder's over the file's (host.Options.merge), their
	// defaults not filled yet; OpenAPI is the embedder's openApi settings
	// alone, laid over the file's here.
	Limits      config.Limits
	Server      config.Server
	Outbound    config.Outbound
	Idempotency config.Idempotency
	OpenAPI     config.OpenAPI
	// ResponseValidation is the policy of answer checking: the
	// embedder's, else the file's, else the runtime declaration's; ""
	// checks them in development.
	ResponseValidation config.ResponseValidation
	// Development: the host runs `endpoints dev`.
	Development bool
	// AppDir is the app's directory: its variables' files, the outbound
	// CA file, the docs page's local assets are relative to it.
	AppDir string
	// LookupEnv reads the variables' environment (nil: os.LookupEnv);
	// SkipVariables leaves them unresolved (host.Options.SkipVariables).
	LookupEnv     func(key string) (string, bool)
	SkipVariables bool
	// Store is the app's store, which must keep rate limits if any is
	// configured.
	Store storage.Store
	// Clients are the host's outbound clients, one per outbound settings,
	// kept across reloads.
	Clients *outbound.Clients
	// WriteDocsError answers a request the docs page refuses.
	WriteDocsError func(w http.ResponseWriter, r *http.Request, status int, data any)
}

// New resolves the settings of in. Its errors name the setting and the
// file (or Options field) it came from.
func New(in Input) (*Settings, error) {
	cfg := in.Config
	s := &Settings{Config: cfg, Server: in.Server.WithDefaults(), Limits: in.Limits.WithDefaults(),
		OpenAPI: overlay.OpenAPI(in.OpenAPI, cfg.OpenAPI).WithDefaults(), Embedder: in.OpenAPI}
	id := in.Idempotency.WithDefaults()
	s.Idempotency = idempotency.Config{ScopeHeader: in.Idempotency.ScopeHeader, Lease: time.Duration(id.Lease), Replay: time.Duration(id.Replay)}
	var err error
	if !in.SkipVariables {
		if s.Variables, err = variables.Resolve(cfg.Variables, variables.Source{LookupEnv: in.LookupEnv, Dir: in.AppDir}); err != nil {
			return nil, err
		}
	}
	switch in.ResponseValidation {
	case config.ValidateAlways:
		s.Checked = true
	case config.ValidateNever:
	default:
		s.Checked = in.Development
	}
	if s.Compress, err = newCompression(s.Server.Compression, s.Limits.ResponseBytes); err != nil {
		return nil, err
	}
	// The schema route is served in development unless disabled, in
	// production only when enabled.
	s.Served, s.DocPath = in.Development, s.OpenAPI.Path
	if e := s.OpenAPI.Enabled; e != nil {
		s.Served = *e
	}
	s.Security, s.CORS = cfg.Verifiers(), cfg.CORSPolicy()
	if s.Outbound, err = outboundClient(in.Clients, in.Outbound, in.AppDir); err != nil {
		return nil, err
	}
	if s.RateLimits, s.TrustedProxies, err = edge.NewRateLimits(cfg); err != nil {
		return nil, err
	}
	if _, ok := in.Store.(storage.RateLimiter); len(s.RateLimits) > 0 && !ok {
		return nil, fmt.Errorf("%s: rateLimits: the app's store (%T) keeps no rate limits; use the memory or redis store", config.File, in.Store)
	}
	if s.Served {
		if s.Docs, err = newDocs(s, in); err != nil {
			return nil, err
		}
	}
	return s, nil
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

// outboundClient is the outbound client of the settings o (endpoints.json's
// merged with Options.Outbound) for the app in appDir: the one clients
// has when o (and the CA file's content) made it, else a new one, which
// replaces it (the old one's requests in flight finish; its idle
// connections close).
func outboundClient(clients *outbound.Clients, o config.Outbound, appDir string) (*outbound.Client, error) {
	allow, err := allowlist.Parse(o.AllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("outbound.allowedHosts (of %s or Options.Outbound): %v", config.File, err)
	}
	cas, err := o.ReadCAFile(appDir)
	if err != nil {
		return nil, err
	}
	perHost := o.MaxConcurrentPerHost // resolved by Options.merge
	key := fmt.Sprintf("%q %d %x", o.AllowedHosts, perHost, sha256.Sum256(cas))
	c, err := clients.Get(key, outbound.Config{Allow: allow, CAs: cas, MaxPerHost: perHost})
	if err != nil {
		return nil, fmt.Errorf("%s: /outbound/caFile: %s: %v", config.File, o.CAFilePath(appDir), err)
	}
	return c, nil
}

// newDocs prepares the docs page (package docspage), or nil when it is
// off.
func newDocs(s *Settings, in Input) (*docspage.Page, error) {
	o := s.OpenAPI.Docs
	if o.Off {
		return nil, nil
	}
	// o, of the resolved openApi settings, has its defaults filled in.
	assets := o.Assets
	if dir, err := o.AssetsDir(in.AppDir); err != nil {
		return nil, err
	} else if dir != "" {
		assets = dir
	}
	return docspage.New(docspage.Config{
		Path:       o.Path,
		Assets:     assets,
		Title:      s.OpenAPI.Title,
		Schema:     s.DocPath,
		ConfigFile: config.File,
		WriteError: in.WriteDocsError,
	})
}

// DocumentOff says, for a request of path that no route serves, why the
// OpenAPI document is not answered there and what serves it: "" unless
// path is where the document would be served (openApi.path) and it is
// not. It names only the setting, as any client may read it.
func (s *Settings) DocumentOff(path string) string {
	if s.Served || path != s.DocPath {
		return ""
	}
	why := "is false"
	if s.OpenAPI.Enabled == nil {
		why = "is not set, and the document is served in development only"
	}
	st, _ := config.SettingAt("/openApi/enabled")
	return fmt.Sprintf("the OpenAPI document is not served: %s's openApi.enabled %s; set it to true (or %s=true) to serve the document here", config.File, why, st.Env)
}

// ShadowedBy returns an error when the host answers the route's path
// itself, before routing (the OpenAPI document, the docs page and its
// assets), so the route would never be called: the load refuses it
// rather than leave it silently unreachable. Only routes whose every
// segment is static text are checked; a [param] or catch-all route still
// answers its other paths.
func (s *Settings) ShadowedBy(rf routefile.Route) error {
	for _, seg := range rf.Segments {
		if seg.Kind != routefile.Static {
			return nil
		}
	}
	p := rf.Pattern()
	if s.Served && p == s.DocPath {
		return fmt.Errorf("%s: the route %s is where the host serves the OpenAPI document, which answers before routing: rename the route, or move the document (%s openApi.path)", rf.File, p, config.File)
	}
	if s.Docs != nil && (p == s.Docs.Path() || strings.HasPrefix(p, s.Docs.Path()+docspage.AssetsPath)) {
		return fmt.Errorf("%s: the route %s is where the host serves the docs page, which answers before routing: rename the route, or move the page (%s openApi.docs.path)", rf.File, p, config.File)
	}
	return nil
}
