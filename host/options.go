package host

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"time"

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

// ResponseValidation is the policy for checking a guest's answer against the
// declared responses (docs/spec.md §4 step 10). Defaults to [ValidateInDevelopment].
//
// The declared responses are the contract's, those of the routes
// configuration, and, for an operation with a request part, the
// framework's 400 Validation Error body, which the OpenAPI document lists
// for it.
type ResponseValidation string

// Response validation policies. The zero value, "", means
// [ValidateInDevelopment].
const (
	// ValidateAlways checks every answer, in production too: one that
	// breaks the contract is replaced by a 500 Response Contract Error.
	ValidateAlways ResponseValidation = "always"
	// ValidateInDevelopment checks answers in [Development] mode only. The
	// default.
	ValidateInDevelopment ResponseValidation = "development"
	// ValidateNever sends answers unchecked.
	ValidateNever ResponseValidation = "never"
)

// Limits bound what one request may cost: the "limits" member of
// endpoints.json, and [Options.Limits] for a Go embedder, whose non-zero
// fields win over the file's, field by field. A zero field takes its default,
// named on the field ([DefaultBodyBytes]...).
//
//	{"limits": {"bodyBytes": 65536, "timeout": "2s", "instances": 8}}
type Limits struct {
	// BodyBytes is the largest request body accepted; larger ones get 413.
	// Defaults to [DefaultBodyBytes].
	BodyBytes int64 `json:"bodyBytes,omitzero"`
	// MemoryBytes caps the linear memory of each instance, rounded down to
	// 64 KiB pages. A guest that needs more fails its call with 500.
	// Defaults to [DefaultMemoryBytes].
	//
	// The cap is address space, not resident memory. An instance's memory
	// is mapped outside the Go heap, costs only the pages its guest
	// touched, and returns to the system the moment the instance is
	// closed (on unix; elsewhere it is a Go slice the GC frees). So the
	// guest memory of a process is at most routes × Instances ×
	// MemoryBytes, of which only touched pages count: a Go SDK guest
	// (examples/users) touches about 3 MiB once loaded, and its own heap
	// grows to about 8 MiB under sustained load.
	//
	// # Notes
	//
	//   - Each module also costs, whatever its instances, its compiled code
	//     (about 17 MiB for a 3-4 MB Go SDK module) and wazero's decoded
	//     copy of it in the Go heap (about 8 MiB, which the GC's default
	//     pacing lets grow to twice that); see RATIONALE.md, "What a
	//     process holds".
	MemoryBytes int64 `json:"memoryBytes,omitzero"`
	// Timeout is the deadline of one guest call, counted from the start of
	// the request, so waiting for a free instance uses it up too: a guest
	// still running then is stopped (500), a request still waiting gets 503.
	// Defaults to [DefaultTimeout].
	Timeout Duration `json:"timeout,omitzero"`
	// Instances is the most instances of one module alive at once, which
	// bounds the concurrent requests one route serves; more wait for a free
	// one. Defaults to 2 × GOMAXPROCS.
	//
	// A route starts with one instance and makes more only while requests
	// overlap; an instance that fails is closed, and its memory freed, at
	// once; idle ones beyond the first are closed after InstanceIdleTimeout. So a
	// route that served a burst holds Instances × its guest's touched
	// memory (see MemoryBytes) until InstanceIdleTimeout passes, then one
	// instance's.
	Instances int `json:"instances,omitzero"`
	// ResponseBytes is the largest answer the host buffers: an endpoint's
	// JSON answer, which is checked against the contract before it is sent.
	// A guest writing more is stopped, its instance discarded, and the
	// client gets a 500. Streamed answers (media responses, plain routes)
	// go out as written and are bounded only by the call's deadline.
	// Defaults to [DefaultResponseBytes].
	ResponseBytes int64 `json:"responseBytes,omitzero"`
	// LoadTimeout bounds the guest code a module runs when it is loaded:
	// its start function (_initialize), endpoints_abi_version and the
	// export of its contract or runtime declaration. A module still running
	// then is stopped and fails its load. It applies at the next start.
	// Defaults to [DefaultLoadTimeout].
	LoadTimeout Duration `json:"loadTimeout,omitzero"`
	// JSONDepth is the deepest nesting of arrays and objects a JSON request
	// body may have; a deeper one is a 400 that says so. Validating deeply
	// nested values costs more than linear time, so the bound keeps a small
	// body from costing the host much. Defaults to [DefaultJSONDepth];
	// at most 10000.
	JSONDepth int `json:"jsonDepth,omitzero"`
	// JSONValues is the most values (objects, arrays, strings, numbers,
	// booleans, nulls) a JSON request body may hold; more is a 400 that
	// says so. Validation costs up to about a microsecond per value, so
	// this, not bodyBytes, bounds what a body costs the host before the
	// guest runs. Defaults to [DefaultJSONValues].
	JSONValues int `json:"jsonValues,omitzero"`
	// InstanceIdleTimeout is how long an idle instance is kept beyond the
	// first one of its module, which stays warm. Defaults to
	// [DefaultInstanceIdleTimeout].
	InstanceIdleTimeout Duration `json:"instanceIdleTimeout,omitzero"`
}

// Defaults of [Limits].
const (
	// DefaultBodyBytes is the default of [Limits.BodyBytes]: 1 MiB.
	DefaultBodyBytes = 1 << 20
	// DefaultMemoryBytes is the default of [Limits.MemoryBytes]: 64 MiB.
	DefaultMemoryBytes = 64 << 20
	// DefaultTimeout is the default of [Limits.Timeout]: 10 s.
	DefaultTimeout = 10 * time.Second
	// DefaultResponseBytes is the default of [Limits.ResponseBytes]:
	// 8 MiB.
	DefaultResponseBytes = 8 << 20
	// DefaultLoadTimeout is the default of [Limits.LoadTimeout]: 30 s.
	DefaultLoadTimeout = 30 * time.Second
	// DefaultInstanceIdleTimeout is the default of
	// [Limits.InstanceIdleTimeout]: 30 s, long enough that steady traffic
	// never pays for instantiation (about 5 ms for a Go SDK guest), short
	// enough that a burst's memory goes back soon after.
	DefaultInstanceIdleTimeout = 30 * time.Second
	// DefaultJSONDepth is the default of [Limits.JSONDepth]: 32 levels.
	DefaultJSONDepth = 32
	// DefaultJSONValues is the default of [Limits.JSONValues]: 4096 values.
	DefaultJSONValues = 4096
)

func (l Limits) loadTimeout() time.Duration {
	if l.LoadTimeout > 0 {
		return time.Duration(l.LoadTimeout)
	}
	return DefaultLoadTimeout
}

func (l Limits) responseBytes() int64 {
	if l.ResponseBytes > 0 {
		return l.ResponseBytes
	}
	return DefaultResponseBytes
}

func (l Limits) bodyBytes() int64 {
	if l.BodyBytes > 0 {
		return l.BodyBytes
	}
	return DefaultBodyBytes
}

func (l Limits) memoryBytes() int64 {
	if l.MemoryBytes >= 65536 {
		return l.MemoryBytes
	}
	return DefaultMemoryBytes
}

func (l Limits) timeout() time.Duration {
	if l.Timeout > 0 {
		return time.Duration(l.Timeout)
	}
	return DefaultTimeout
}

func (l Limits) instanceIdleTimeout() time.Duration {
	if l.InstanceIdleTimeout > 0 {
		return time.Duration(l.InstanceIdleTimeout)
	}
	return DefaultInstanceIdleTimeout
}

func (l Limits) instances() int {
	if l.Instances > 0 {
		return l.Instances
	}
	return 2 * runtime.GOMAXPROCS(0)
}

// Options configure a [Host]; [New] takes them. The zero value is a
// production host with the settings of the app's endpoints.json (or their
// defaults), logging to [slog.Default] and caching compiled modules in the
// user cache directory.
//
// The fields that mirror endpoints.json (Limits, ResponseValidation,
// OpenAPI, Storage, Idempotency, Server) override the file field by field: a
// zero field keeps the file's value, or its default.
type Options struct {
	// Mode is [Production] (the zero value) or [Development].
	Mode Mode
	// Logger receives load reports, guest log lines and failures. If nil,
	// [slog.Default] is used.
	Logger *slog.Logger
	// Fallback serves requests no route matches. If nil, they get a 404
	// in the {statusCode, statusMessage, data} shape ([FrameworkError]).
	Fallback http.Handler
	// CacheDir holds compiled modules between runs, so a warm start skips
	// compilation. If empty, it is endpoints/wazero in the user cache
	// directory ([os.UserCacheDir]: $XDG_CACHE_HOME on Linux); "off"
	// disables the cache.
	CacheDir string
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
	// Limits and the other fields here; see [ConfigOverride],
	// [OverridesFromEnv] and [ParseOverride]. Nil: none.
	ConfigOverrides []ConfigOverride
	// Limits override those of endpoints.json, field by field; a zero
	// field keeps the file's (see [Limits] for the defaults).
	Limits Limits
	// ResponseValidation overrides the policy of endpoints.json, which
	// overrides the runtime declaration's. Empty keeps theirs; if none
	// sets it, [ValidateInDevelopment].
	ResponseValidation ResponseValidation
	// OpenAPI configures the generated document as endpoints.json's
	// "openApi" does, its set fields winning field by field, and adds to
	// it (Document, Extend). The zero value changes nothing.
	OpenAPI OpenAPIConfig
	// Store replaces the store endpoints.json configures: an embedder's
	// own implementation, or one shared by several hosts in a process.
	// The host does not close it. If nil, the host opens the store that
	// Storage and endpoints.json describe, and closes it.
	Store storage.Store
	// Storage overrides the "storage" member of endpoints.json, field by
	// field; see [StorageConfig] for the defaults. Ignored when Store is
	// set.
	Storage StorageConfig
	// Idempotency overrides the "idempotency" member of endpoints.json,
	// field by field; see [IdempotencyConfig] for the defaults.
	Idempotency IdempotencyConfig
	// Server overrides the "server" member of endpoints.json, field by
	// field; see [ServerConfig] for the defaults.
	Server ServerConfig
	// Observer receives the host's events (requests, guest calls,
	// validation failures, pools, reloads, Idempotency-Key outcomes, store
	// errors), for metrics and access logs; see [Observer]. If nil, no
	// event is built, which costs nothing.
	Observer *Observer
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

func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// merge fills the options' zero fields from the app's endpoints.json.
func (o Options) merge(cfg *AppConfig) Options {
	if cfg == nil {
		return o
	}
	l := &o.Limits
	if l.BodyBytes == 0 {
		l.BodyBytes = cfg.Limits.BodyBytes
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = cfg.Limits.MemoryBytes
	}
	if l.Timeout == 0 {
		l.Timeout = cfg.Limits.Timeout
	}
	if l.Instances == 0 {
		l.Instances = cfg.Limits.Instances
	}
	if l.ResponseBytes == 0 {
		l.ResponseBytes = cfg.Limits.ResponseBytes
	}
	if l.LoadTimeout == 0 {
		l.LoadTimeout = cfg.Limits.LoadTimeout
	}
	if l.JSONDepth == 0 {
		l.JSONDepth = cfg.Limits.JSONDepth
	}
	if l.JSONValues == 0 {
		l.JSONValues = cfg.Limits.JSONValues
	}
	if l.InstanceIdleTimeout == 0 {
		l.InstanceIdleTimeout = cfg.Limits.InstanceIdleTimeout
	}
	if o.ResponseValidation == "" {
		o.ResponseValidation = cfg.ResponseValidation
	}
	st := &o.Storage
	if st.Driver == "" {
		st.Driver, st.URL = cfg.Storage.Driver, cfg.Storage.URL
	}
	if st.Namespace == "" {
		st.Namespace = cfg.Storage.Namespace
	}
	if st.MaxBytes == 0 {
		st.MaxBytes = cfg.Storage.MaxBytes
	}
	o.Server = o.Server.merge(cfg.Server)
	if o.Observer != nil {
		// The host's own copy: the caller may reuse theirs.
		obs := *o.Observer
		o.Observer = &obs
	}
	id := &o.Idempotency
	if id.Lease == 0 {
		id.Lease = cfg.Idempotency.Lease
	}
	if id.Replay == 0 {
		id.Replay = cfg.Idempotency.Replay
	}
	if id.ScopeHeader == "" {
		id.ScopeHeader = cfg.Idempotency.ScopeHeader
	}
	return o
}

func (c IdempotencyConfig) lease() time.Duration {
	if c.Lease > 0 {
		return time.Duration(c.Lease)
	}
	return DefaultIdempotencyLease
}

func (c IdempotencyConfig) replay() time.Duration {
	if c.Replay > 0 {
		return time.Duration(c.Replay)
	}
	return DefaultIdempotencyReplay
}

// checksResponses reports whether answers are checked in this mode.
func (o *Options) checksResponses() bool {
	switch o.ResponseValidation {
	case ValidateAlways:
		return true
	case ValidateNever:
		return false
	}
	return o.Mode == Development
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
