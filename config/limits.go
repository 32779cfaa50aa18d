package config

import (
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

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
	// ValidateInDevelopment checks answers in development mode (host.Development) only. The
	// default.
	ValidateInDevelopment ResponseValidation = "development"
	// ValidateNever sends answers unchecked.
	ValidateNever ResponseValidation = "never"
)

// Limits bound what one request may cost: the "limits" member of
// endpoints.json, and host.Options.Limits for a Go embedder, whose non-zero
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
	// RecycleMemoryBytes is the linear memory past which an instance is
	// closed when its call ends, rather than kept for the next call (which
	// takes another instance or makes one). Linear memory never shrinks,
	// so without it an instance keeps the most its calls ever needed for
	// as long as it lives: the memory one large request touched stays
	// resident, and a route that keeps adding to a package variable makes
	// the instance's later calls, in a bundle those of any of its routes,
	// run out of memory. A recycled instance's package variables start
	// over in the next one. Defaults to [DefaultRecycleMemoryShare] of
	// MemoryBytes (48 MiB of the default 64 MiB); MemoryBytes itself
	// turns recycling off.
	//
	// # Notes
	//
	//   - An instance whose first call already took it past the mark is
	//     kept: a new instance would be as large after that call, so
	//     recycling it would only add an instantiation to every call of a
	//     route whose steady state is that large (a warning names the
	//     route). Its instances are closed only as idle ones are
	//     ([Limits.InstanceIdleTimeout]) or when a call fails.
	RecycleMemoryBytes int64 `json:"recycleMemoryBytes,omitzero"`
	// Timeout is the deadline of one guest call, counted from the start of
	// the request, so waiting for a free instance uses it up too: a guest
	// still running then is stopped (500), a request still waiting gets 503.
	// Defaults to [DefaultTimeout].
	Timeout Duration `json:"timeout,omitzero"`
	// Instances is the most instances of one module alive at once, which
	// bounds the concurrent requests one route serves; more wait for a free
	// one. Each route of a bundle has as many, from the bundle's shared
	// instances. Defaults to 2 × GOMAXPROCS.
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
	// QueryParams is the most parameters a query string may hold, counted
	// as one more than its '&' separators, for an operation that declares
	// its query; more is a 400 that says so, before anything is parsed.
	// Defaults to [DefaultQueryParams]; at most 10000.
	//
	// # Notes
	//
	//   - A query string that does not parse whole (a ';' separator, a '%'
	//     not followed by two hexadecimal digits) is a 400 too: the guest
	//     reads the raw query, so the host validates all of it or none.
	QueryParams int `json:"queryParams,omitzero"`
	// InstanceIdleTimeout is how long an idle instance is kept beyond the
	// first one of its module, which stays warm. Defaults to
	// [DefaultInstanceIdleTimeout].
	InstanceIdleTimeout Duration `json:"instanceIdleTimeout,omitzero"`
	// MaxTimeout is the longest deadline a route's contract may set for
	// itself ("timeout", and a stream's "idleTimeout", docs/spec.md §3):
	// a contract asking for more fails the load of its module. It bounds
	// what modules ask for, not Timeout, which the operator sets. Defaults
	// to [DefaultMaxTimeout].
	MaxTimeout Duration `json:"maxTimeout,omitzero"`
	// OutboundBytes is the most bytes of one outbound response's body a
	// guest may read, unless it asked to stream it (abi.HTTPRequest.Stream:
	// then the call's deadline bounds it): past it http_body_read returns
	// abi.ErrLimit. Defaults to [DefaultOutboundBytes].
	OutboundBytes int64 `json:"outboundBytes,omitzero"`
	// OutboundRequests is the most outbound HTTP requests one call may
	// send (redirects not counted); one more gets abi.ErrLimit. Defaults
	// to [DefaultOutboundRequests].
	OutboundRequests int `json:"outboundRequests,omitzero"`
	// OutboundHeaderBytes is the most bytes the status and headers of one
	// call's open outbound responses may hold together, counted as the
	// JSON http_response gives (abi.HTTPResponse): a response that would
	// pass it is closed and its http_send returns abi.ErrLimit, while one
	// the guest closed (http_close) gives its bytes back. It bounds what
	// the host keeps for a call whose services answer with large headers
	// (each response's head is at most abi.HTTPResponseHeaderMaxBytes as
	// sent). Defaults to [DefaultOutboundHeaderBytes].
	OutboundHeaderBytes int64 `json:"outboundHeaderBytes,omitzero"`
	// SQLResultBytes is the largest result one database statement may
	// give a guest, as JSON (abi/README.md §4.5); a larger one
	// fails with the code "too_large". Defaults to
	// [DefaultSQLResultBytes].
	SQLResultBytes int64 `json:"sqlResultBytes,omitzero"`
	// BreakerTrappedCalls is the number of a client's calls in a row to a
	// route of a bundle that trapped (a trap, os.Exit, a deadline its
	// handler ran into) after which that client's calls to the route are
	// refused for a while: 503 with Retry-After, for BreakerPause, then
	// one call a pause probes whether it is served again, the pause
	// doubling while the probe traps, up to BreakerMaxPause. A trapped
	// call costs a fresh instance and the CPU time it took, and a
	// bundle's routes share their cores; the route's other clients are
	// served meanwhile. Defaults to [DefaultBreakerTrappedCalls];
	// endpoints.json refuses 0, which would not turn the breaker off
	// (nothing does), and host.Options.Limits takes 0 as unset.
	BreakerTrappedCalls int `json:"breakerTrappedCalls,omitzero"`
	// BreakerPause is how long a client is first refused once its calls
	// to a route of a bundle trapped BreakerTrappedCalls times in a row.
	// Defaults to [DefaultBreakerPause].
	BreakerPause Duration `json:"breakerPause,omitzero"`
	// BreakerMaxPause bounds the pause, which doubles each time a
	// client's probe traps again. At least BreakerPause, at most
	// [MaxBreakerMaxPause]. Defaults to [DefaultBreakerMaxPause], or to
	// BreakerPause when that is longer.
	BreakerMaxPause Duration `json:"breakerMaxPause,omitzero"`
	// BreakerClients is the most clients a route of a bundle keeps a
	// breaker state for (only clients whose last call to it trapped have
	// one); past it, the least recent client's is dropped, and that
	// client starts over. Each costs about 200 bytes. At most
	// [MaxBreakerClients]. Defaults to [DefaultBreakerClients];
	// endpoints.json refuses 0, as it does BreakerTrappedCalls'.
	BreakerClients int `json:"breakerClients,omitzero"`
}

// Defaults and bounds of the breaker of a bundle's routes ([Limits]).
const (
	// DefaultBreakerTrappedCalls is the default of
	// [Limits.BreakerTrappedCalls]: 5 calls in a row, so that a route
	// that traps now and then is never refused.
	DefaultBreakerTrappedCalls = 5
	// DefaultBreakerPause is the default of [Limits.BreakerPause]: 1 s.
	DefaultBreakerPause = time.Second
	// DefaultBreakerMaxPause is the default of [Limits.BreakerMaxPause]:
	// 30 s.
	DefaultBreakerMaxPause = 30 * time.Second
	// MaxBreakerMaxPause is the longest [Limits.BreakerMaxPause]: 24 h.
	MaxBreakerMaxPause = 24 * time.Hour
	// DefaultBreakerClients is the default of [Limits.BreakerClients]:
	// 1024 clients, under 200 KiB a route however many addresses a flood
	// comes from.
	DefaultBreakerClients = 1024
	// MaxBreakerClients is the most [Limits.BreakerClients]: 1048576
	// clients, about 200 MiB a route.
	MaxBreakerClients = 1 << 20
)

// DefaultSQLResultBytes is the default of [Limits.SQLResultBytes]: 1 MiB.
const DefaultSQLResultBytes = 1 << 20

// Defaults of [Limits].
const (
	// DefaultBodyBytes is the default of [Limits.BodyBytes]: 1 MiB.
	DefaultBodyBytes = 1 << 20
	// DefaultMemoryBytes is the default of [Limits.MemoryBytes]: 64 MiB.
	DefaultMemoryBytes = 64 << 20
	// DefaultRecycleMemoryShare is the default of
	// [Limits.RecycleMemoryBytes], as a share of [Limits.MemoryBytes]:
	// three quarters, where a call still has a quarter of the limit to
	// grow into.
	DefaultRecycleMemoryShare = 0.75
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
	// DefaultMaxTimeout is the default of [Limits.MaxTimeout]: 5 min,
	// room for a long Server-Sent Events stream, not for a call that
	// never ends.
	DefaultMaxTimeout = 5 * time.Minute
	// DefaultOutboundBytes is the default of [Limits.OutboundBytes]:
	// 16 MiB.
	DefaultOutboundBytes = 16 << 20
	// DefaultOutboundRequests is the default of [Limits.OutboundRequests]:
	// 50 requests per call.
	DefaultOutboundRequests = 50
	// DefaultOutboundHeaderBytes is the default of
	// [Limits.OutboundHeaderBytes]: 1 MiB, 20 KiB for each of 50 open
	// responses, where an API's answer carries 1 or 2 KiB.
	DefaultOutboundHeaderBytes = 1 << 20
	// DefaultQueryParams is the default of [Limits.QueryParams]: 1000
	// parameters.
	DefaultQueryParams = 1000
)

// checkBreaker checks the breaker's settings of l, as endpoints.json
// (file), whose content (with the overrides applied) is data, gives them.
// A count given as 0 is refused, as a pause of "0s" is by its type: it
// would not turn the breaker off (nothing does), but silently mean the
// default.
func (l Limits) checkBreaker(file string, data []byte) error {
	d := l.WithDefaults()
	var given struct {
		Limits struct {
			BreakerTrappedCalls jsontext.Value `json:"breakerTrappedCalls"`
			BreakerClients      jsontext.Value `json:"breakerClients"`
		} `json:"limits"`
	}
	_ = json.Unmarshal(data, &given) // it parsed as an App already
	zero := func(v jsontext.Value, n int) bool { return n == 0 && len(v) > 0 && v.Kind() != 'n' }
	switch {
	case zero(given.Limits.BreakerTrappedCalls, l.BreakerTrappedCalls):
		return badSetting(file, "/limits/breakerTrappedCalls", "must be at least 1, got 0, which does not turn the breaker off (nothing does); leave it out for the default, %d trapped calls in a row", DefaultBreakerTrappedCalls)
	case zero(given.Limits.BreakerClients, l.BreakerClients):
		return badSetting(file, "/limits/breakerClients", "must be between 1 and %d, got 0, which does not turn the breaker off (nothing does); leave it out for the default, %d clients", MaxBreakerClients, DefaultBreakerClients)
	case l.BreakerTrappedCalls < 0:
		return badSetting(file, "/limits/breakerTrappedCalls", "must be positive, got %d", l.BreakerTrappedCalls)
	case l.BreakerClients < 0 || l.BreakerClients > MaxBreakerClients:
		return badSetting(file, "/limits/breakerClients", "must be between 1 and %d (each client kept costs about 200 bytes a route), got %d", MaxBreakerClients, l.BreakerClients)
	case l.BreakerPause > Duration(MaxBreakerMaxPause):
		return badSetting(file, "/limits/breakerPause", "must be at most %s, got %s", MaxBreakerMaxPause, time.Duration(l.BreakerPause))
	case l.BreakerMaxPause > Duration(MaxBreakerMaxPause):
		return badSetting(file, "/limits/breakerMaxPause", "must be at most %s, got %s", MaxBreakerMaxPause, time.Duration(l.BreakerMaxPause))
	case l.BreakerMaxPause != 0 && l.BreakerMaxPause < d.BreakerPause:
		return badSetting(file, "/limits/breakerMaxPause", "must be at least limits.breakerPause (%s), got %s", time.Duration(d.BreakerPause), time.Duration(l.BreakerMaxPause))
	}
	return nil
}
