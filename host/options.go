package host

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/overlay"
	"github.com/wasmendpoints/endpoints/storage"
)

// Mode says how the host runs an app: [Options.Mode]. The zero value is
// [Production].
type Mode int

const (
	// Production is `endpoints serve`: any bad module fails the load,
	// answers are not checked against the contract unless the policy says
	// always, and 500 bodies carry no details.
	Production Mode = iota
	// Development is `endpoints dev`: a bad module is reported and the rest
	// served, answers are checked, and 500 bodies say what went wrong.
	Development
)

// String returns "production" or "development".
func (m Mode) String() string {
	if m == Development {
		return "development"
	}
	return "production"
}

// The limits in effect: a zero field of Limits takes its default
// (config.Limits.WithDefaults, the one place defaults are filled).

func limitLoadTimeout(l config.Limits) time.Duration {
	return time.Duration(l.WithDefaults().LoadTimeout)
}

func limitMemoryBytes(l config.Limits) int64 { return l.WithDefaults().MemoryBytes }

func limitRecycleMemoryBytes(l config.Limits) int64 { return l.WithDefaults().RecycleMemoryBytes }

func limitMaxTimeout(l config.Limits) time.Duration {
	return time.Duration(l.WithDefaults().MaxTimeout)
}

func limitInstanceIdleTimeout(l config.Limits) time.Duration {
	return time.Duration(l.WithDefaults().InstanceIdleTimeout)
}

func limitInstances(l config.Limits) int { return l.WithDefaults().Instances }

// Options configure a [Host]; [New] takes them. The zero value is a
// production host with the settings of the app's endpoints.json (or their
// defaults), logging to [slog.Default] and caching compiled modules in the
// user cache directory.
//
// The fields that mirror endpoints.json (Limits, ResponseValidation,
// OpenAPI, Storage, Databases, Idempotency, Server) override the file field
// by field: a zero field keeps the file's value, or its default.
type Options struct {
	// Mode is [Production] (the zero value) or [Development].
	Mode Mode
	// Logger receives load reports, guest log lines and failures. If nil,
	// [slog.Default] is used.
	Logger *slog.Logger
	// Fallback serves requests no route matches. If nil, they get a 404
	// in the {statusCode, statusMessage, data} shape ([FrameworkError]).
	// Its answers are compressed like the host's (server.compression)
	// when they set Content-Length and no Content-Encoding.
	Fallback http.Handler
	// Unserved, in [Development], names the route the app means to serve
	// at a path a 404 answers, when the embedder knows why it is missing:
	// `endpoints dev` names those of the sources whose build failed ("the
	// route GET /api/x of server/bundles/go.wasm did not build: see the
	// build's error above"). It gets the request's escaped path
	// ([url.URL.EscapedPath]) and returns "" when it knows of none; its
	// answer joins the 404's data as "unserved", beside the host's own
	// (the routes of modules that failed to load). Nil by default; not
	// asked in [Production], nor when Fallback serves the request. It is
	// called concurrently.
	Unserved func(escapedPath string) string
	// CacheDir holds compiled modules between runs, so a warm start skips
	// compilation. If empty, it is endpoints/wazero in the user cache
	// directory ([os.UserCacheDir]: $XDG_CACHE_HOME on Linux); "off"
	// disables the cache.
	//
	// # Notes
	//
	//   - What the cache holds is code the host runs, so each entry is
	//     bound by a MAC to the module it came from, under the key in
	//     CacheKeyFile; an entry that does not verify is compiled again,
	//     never run. The directory must belong to the host's user and be
	//     writable by no one else (its subdirectories too): otherwise it
	//     is not used, and a warning says why.
	CacheDir string
	// CacheKeyFile holds the key that authenticates the cache's entries:
	// 32 random bytes, made on first use, readable by its owner only, and
	// kept outside CacheDir, so that whoever can write the cache cannot
	// forge an entry. If empty, it is endpoints/cache.key in the user
	// configuration directory ([os.UserConfigDir]: $XDG_CONFIG_HOME or
	// ~/.config on Linux).
	CacheKeyFile string
	// ServeWhileCompiling serves a module the compilation cache does not
	// hold yet at once, with wazero's interpreter, while the compiler
	// builds its code in the background (at most GOMAXPROCS modules at
	// once); new requests then run the compiled code. A Go module takes
	// about a second per 3-4 MB to compile and a fraction of that to
	// interpret, so an app of many routes answers in seconds on its first
	// start, at first more slowly.
	//
	// At New, a route module that carries its contract and ABI version in
	// custom sections (endpoints build writes them after loading the
	// module as the host does) is routed from them at once: its code loads
	// in the background or at its first request, which waits for it (from
	// the cache, or with the interpreter when the cache lacks it). Its
	// code is then checked as at any load and must declare the same
	// contract; one that fails is logged, its route answers 500, and
	// [Host.WaitCompiled] reports it. Reloads load changed modules before
	// they serve, so a broken new version keeps the previous one.
	//
	// Off by default: New and Reload return with every module compiled
	// and checked. [Host.WaitCompiled] waits for the background work.
	ServeWhileCompiling bool
	// Progress, when not nil (the default is nil: no reports), is called
	// as route modules load (each one
	// read, instrumented, compiled or interpreted, instantiated, its
	// contract read) and as the background compiler finishes each module
	// (with ServeWhileCompiling), for a progress display. Calls of one
	// stage do not overlap; they may come from any goroutine.
	Progress func(Progress)
	// ConfigOverrides replace settings of endpoints.json each time it is
	// read (at start and at each reload), after the file and before
	// Limits and the other fields here; see [config.Override],
	// [config.OverridesFromEnv] and [config.ParseOverride]. Nil: none.
	ConfigOverrides []config.Override
	// Limits override those of endpoints.json, field by field; a zero
	// field keeps the file's (see [config.Limits] for the defaults).
	Limits config.Limits
	// ResponseValidation overrides the policy of endpoints.json, which
	// overrides the runtime declaration's. Empty keeps theirs; if none
	// sets it, [config.ValidateInDevelopment].
	ResponseValidation config.ResponseValidation
	// OpenAPI configures the generated document as endpoints.json's
	// "openApi" does, its set fields winning field by field, and adds to
	// it (Document, Extend). The zero value changes nothing.
	OpenAPI config.OpenAPI
	// Store replaces the store endpoints.json configures: an embedder's
	// own implementation, or one shared by several hosts in a process.
	// The host does not close it. If nil, the host opens the store that
	// Storage and endpoints.json describe, and closes it.
	Store storage.Store
	// Storage overrides the "storage" member of endpoints.json, field by
	// field; see [config.Storage] for the defaults. Ignored when Store is
	// set, but for IdempotencyClientBytes (the clients' shares of the
	// Idempotency-Key records, defaulted by [config.Storage.WithDefaults]).
	Storage config.Storage
	// Databases are SQL databases the app's guests reach by name, as
	// endpoints.json's "databases" declares them ([config.Database]), for
	// an embedder that gives them in code. They are merged with the
	// file's, and win as the other fields here do: a name only one of the
	// two declares is taken as it is; for a name both declare, a
	// database here that sets its location (Driver, Path or URL) replaces
	// the file's location whole (driver, path and url, which go together),
	// and MaxConns and StatementTimeout win field by field when set. The
	// merged declarations are checked as the file's are (a postgres
	// database takes a url, not a path...), and New fails naming the
	// database. Nil
	// keeps the file's; with neither, an app that uses a database gets
	// the SQLite file "main" of [config.DatabaseFile].
	//
	// Like endpoints.json's "databases", they take effect at New: a reload
	// does not reopen the databases.
	Databases map[string]config.Database
	// Idempotency overrides the "idempotency" member of endpoints.json,
	// field by field; see [config.Idempotency] for the defaults.
	Idempotency config.Idempotency
	// Server overrides the "server" member of endpoints.json, field by
	// field; see [config.Server] for the defaults.
	Server config.Server
	// Outbound overrides the "outbound" member of endpoints.json, field
	// by field (a non-nil AllowedHosts replaces the file's list); see
	// [config.Outbound]. The zero value keeps the file's.
	Outbound config.Outbound
	// Observer receives the host's events (requests, guest calls,
	// validation failures, pools, reloads, Idempotency-Key outcomes, store
	// errors), for metrics and access logs; see [Observer]. If nil, no
	// event is built, which costs nothing.
	Observer *Observer
	// LookupEnv reads the environment variables that endpoints.json's
	// "variables" name (config.Variable), when the app loads and at each
	// reload. If nil, [os.LookupEnv] is used: an embedder or a test sets
	// it to give variables without changing the process's environment.
	LookupEnv func(key string) (string, bool)
	// SkipVariables leaves endpoints.json's "variables" unresolved: none is
	// required, and guests read none (variable_get answers -1). It is for
	// tools that load an app to read it, never to serve it (`endpoints
	// openapi`, `routes`, `check`, a `build` that precompiles), which run
	// where the app's secrets are not, such as a CI job or an image build.
	// Nor is a jwt scheme's jwksUrl fetched: its verifier refuses every
	// token. And what of the app's security such a place lacks on purpose
	// (a scheme the document declares that endpoints.json configures no
	// verifier for, which ENDPOINTS_SECURITY gives where the app is
	// deployed; a jwt secret's unset environment variable) is one of
	// [Host.Warnings], not a problem that fails New in Production.
	SkipVariables bool
	// SkipMigrations leaves the app's databases alone at each load: no
	// migration is applied, and no database is opened. It is for the same
	// tools as SkipVariables, which must not change a database because
	// they read an app (`endpoints openapi` with a production database's
	// URL in its environment would otherwise migrate it, and an SQLite
	// app would get its file made); guests that use a database are never
	// called by them.
	SkipMigrations bool
}

func (o *Options) cacheDir() string {
	switch o.CacheDir {
	case "off":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "endpoints", "wazero")
	}
	return o.CacheDir
}

func (o *Options) cacheKeyFile() string {
	if o.CacheKeyFile != "" {
		return o.CacheKeyFile
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "endpoints", "cache.key")
}

func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// merge fills the options' zero fields from the app's endpoints.json
// (package overlay), then the defaults of storage and outbound (config's
// WithDefaults: the memory store's budgets derive from the merged
// maxBytes).
func (o Options) merge(cfg *config.App) Options {
	if cfg == nil {
		cfg = &config.App{}
	}
	o.Limits = overlay.Fill(o.Limits, cfg.Limits)
	if o.ResponseValidation == "" {
		o.ResponseValidation = cfg.ResponseValidation
	}
	o.Databases = overlay.Databases(o.Databases, cfg.Databases)
	o.Storage = overlay.Storage(o.Storage, cfg.Storage).WithDefaults()
	o.Server = overlay.Fill(o.Server, cfg.Server)
	if o.Observer != nil {
		// The host's own copy: the caller may reuse theirs.
		obs := *o.Observer
		o.Observer = &obs
	}
	o.Outbound = overlay.Fill(o.Outbound, cfg.Outbound).WithDefaults()
	o.Idempotency = overlay.Fill(o.Idempotency, cfg.Idempotency)
	return o
}

// Progress is one module done in a stage of making an app servable.
type Progress struct {
	// Stage is StageLoad, StageCompile or StageCode.
	Stage string
	// File is the module, relative to the app.
	File string
	// Done and Total count the modules of the stage: Done includes this
	// one (and, in a reload, the modules reused unchanged).
	Done, Total int
	// Took is how long this module took.
	Took time.Duration
	// Err is why the module failed, if it did.
	Err error
}

// Stages of [Progress].
const (
	// StageLoad: a route module was loaded; with
	// [Options.ServeWhileCompiling] it may serve interpreted.
	StageLoad = "load"
	// StageCompile: the compiler's code of a module that served
	// interpreted is ready, and new requests run it.
	StageCompile = "compile"
	// StageCode: the code of a route module routed from its contract
	// sections before its code loaded (see
	// [Options.ServeWhileCompiling]) is compiled and ready; Err says
	// why it failed. It shares Done and Total with StageCompile: both
	// count the modules the background work started with.
	StageCode = "code"
)
