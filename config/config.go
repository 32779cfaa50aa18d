package config

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/openapi"
	"github.com/wasmendpoints/endpoints/storage"
)

// File is the module options file at the root of an app
// (docs/spec.md §8).
const File = "endpoints.json"

// App is the content of endpoints.json ([File]): plain
// JSON, decoded strictly (an unknown key is an error naming it) by
// [Parse]. Every member is optional: the zero App, which a
// missing file gives, is every default. A Go embedder sets the same
// settings in host.Options, which win over the file's.
//
//	{"openApi": {"title": "Users API", "version": "1.2.0"},
//	 "limits": {"bodyBytes": 65536, "timeout": "2s"},
//	 "responseValidation": "always"}
type App struct {
	// OpenAPI configures the generated document and its docs page: false,
	// true or an object (docs/spec.md §8); see [OpenAPI].
	OpenAPI OpenAPI `json:"openApi,omitzero"`
	// Limits bound each request; see [Limits] for the defaults.
	Limits Limits `json:"limits,omitzero"`
	// ResponseValidation is "always", "development" or "never"; see
	// [ResponseValidation]. Empty keeps the runtime declaration's policy,
	// else [ValidateInDevelopment].
	ResponseValidation ResponseValidation `json:"responseValidation,omitzero"`
	// Storage says where Idempotency-Key records and the guests'
	// key-value data live; see [Storage]. Absent: the memory store.
	Storage Storage `json:"storage,omitzero"`
	// Idempotency tunes Idempotency-Key handling; see [Idempotency].
	Idempotency Idempotency `json:"idempotency,omitzero"`
	// Build is the app's own build step, for sources the built-in builds
	// do not know; see [Build]. Absent: none.
	Build Build `json:"build,omitzero"`
	// Server bounds how long the HTTP server waits on slow and idle
	// clients; see [Server].
	Server Server `json:"server,omitzero"`
	// Security configures, per security scheme of the document
	// (components.securitySchemes), the verifier the host enforces it
	// with: "jwt" for http bearer, oauth2 and openIdConnect schemes,
	// "apiKey" for apiKey ones, "basic" for http basic.
	//
	//	"security": {"bearer": {"jwt": {"jwks": "auth/jwks.json", "issuer": "https://users.example"}}}
	//
	// Each entry is checked when the app loads; see the README,
	// "Authentication, middleware and edge policies",
	// and docs/spec.md §12. A scheme that neither an entry nor a
	// verifier module ("x-endpoints-verifier") verifies fails the load in
	// production.
	Security map[string]stdjson.RawMessage `json:"security,omitzero"`
	// CORS lets browsers on other origins call the app: allowOrigins,
	// allowMethods, allowHeaders, exposeHeaders, allowCredentials and
	// maxAge. The host answers preflights before routing. Off when absent.
	//
	//	"cors": {"allowOrigins": ["http://localhost:5173"], "allowCredentials": true}
	CORS stdjson.RawMessage `json:"cors,omitzero"`
	// RateLimits are token buckets per client, by policy name; see
	// [RateLimit]. Absent: no rate limit.
	RateLimits map[string]RateLimit `json:"rateLimits,omitzero"`
	// TrustedProxies are the addresses or CIDR prefixes of the proxies in
	// front of the host: only a request from one of them has its client
	// address read from X-Forwarded-For (for rate limits). Defaults to
	// none.
	TrustedProxies []string `json:"trustedProxies,omitzero"`
}

// Server is the "server" member of endpoints.json: the deadlines that
// keep slow, idle and stalled clients from holding connections, goroutines
// and guest instances. Zero fields take the defaults, which suit a server
// facing the internet:
//
//	{"readHeaderTimeout": "10s", "readTimeout": "30s", "writeTimeout": "30s",
//	 "idleTimeout": "60s", "maxHeaderBytes": 65536, "shutdownTimeout": "10s"}
//
// # Notes
//
//   - The host applies readTimeout and writeTimeout to every request itself
//     (through http.ResponseController), so an embedder's own http.Server
//     gets them too. readHeaderTimeout, idleTimeout and maxHeaderBytes are
//     settings of the http.Server: `endpoints serve` and `dev` apply them
//     (host.Host.HTTPServer builds such a server).
//   - writeTimeout bounds each write, not the whole answer, so a long
//     stream (Server-Sent Events) lives as long as its client keeps
//     reading; a client that stops reading is dropped after writeTimeout.
//   - They apply at the next start, except readTimeout and writeTimeout.
type Server struct {
	// ReadHeaderTimeout bounds reading a request's line and headers.
	// Defaults to [DefaultReadHeaderTimeout].
	ReadHeaderTimeout Duration `json:"readHeaderTimeout,omitzero"`
	// ReadTimeout bounds reading a request's body, counted from the start
	// of the request: a client that declares a body and sends it too
	// slowly gets 408 (or, once a guest reads the body, the guest sees a
	// read error). Defaults to [DefaultReadTimeout].
	ReadTimeout Duration `json:"readTimeout,omitzero"`
	// WriteTimeout bounds each write of an answer to the client. Defaults
	// to [DefaultWriteTimeout].
	WriteTimeout Duration `json:"writeTimeout,omitzero"`
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request. Defaults to [DefaultIdleTimeout].
	IdleTimeout Duration `json:"idleTimeout,omitzero"`
	// MaxHeaderBytes bounds the request line and headers. Defaults to
	// [DefaultMaxHeaderBytes].
	MaxHeaderBytes int `json:"maxHeaderBytes,omitzero"`
	// ShutdownTimeout is how long `endpoints serve` waits for requests in
	// flight when it is asked to stop (SIGINT, SIGTERM) before it stops
	// their guests. Defaults to [DefaultShutdownTimeout].
	ShutdownTimeout Duration `json:"shutdownTimeout,omitzero"`
}

// Defaults of [Server].
const (
	// DefaultReadHeaderTimeout is the default of
	// [Server.ReadHeaderTimeout]: 10 s.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout is the default of [Server.ReadTimeout]: 30 s.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout is the default of [Server.WriteTimeout]:
	// 30 s.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout is the default of [Server.IdleTimeout]: 60 s.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxHeaderBytes is the default of
	// [Server.MaxHeaderBytes]: 64 KiB.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultShutdownTimeout is the default of
	// [Server.ShutdownTimeout]: 10 s.
	DefaultShutdownTimeout = 10 * time.Second
)

// WithDefaults returns c with its zero fields set to their defaults: the
// deadlines in effect.
func (c Server) WithDefaults() Server {
	def := func(d *Duration, v time.Duration) {
		if *d <= 0 {
			*d = Duration(v)
		}
	}
	def(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&c.ReadTimeout, DefaultReadTimeout)
	def(&c.WriteTimeout, DefaultWriteTimeout)
	def(&c.IdleTimeout, DefaultIdleTimeout)
	def(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	return c
}

// Build is the "build" member of endpoints.json: a command that
// turns sources the built-in builds (Go, C, WAT) do not know, such as
// AssemblyScript, into route modules, and the files whose saves rerun it:
//
//	{"command": "npm run asbuild", "watch": ["assembly/**/*.ts", "package.json"]}
//
// `endpoints build` runs the command after the built-in builds, and so does
// `endpoints dev` before it serves; under `endpoints dev` a saved file
// matching a watch pattern runs it again, and the modules it writes are
// reloaded like any other.
//
// # Notes
//
//   - The command runs through `sh -c` in the app directory, with the
//     environment of the endpoints process. A non-zero exit fails the build.
//   - A watch pattern is a path relative to the app, with forward slashes,
//     in the syntax of [path.Match] ("*" and "?" stay within one directory,
//     "[a-z]" is a class) plus "**" as a whole segment for any number of
//     directories: "assembly/**/*.ts" matches assembly/index.ts and
//     assembly/lib/util.ts. It may not be absolute or use "..".
//   - Hidden files and directories and those named node_modules, vendor,
//     testdata or starting with "_" are not watched.
//   - Watch the sources, not what the command writes: a command that
//     writes a file matching a pattern would run again and again.
type Build struct {
	// Command is the shell command line to run. Required when "build" is
	// present.
	Command string `json:"command,omitzero"`
	// Watch lists the glob patterns of the files whose saves rerun Command
	// under `endpoints dev`. Without it, dev runs Command once, at start.
	Watch []string `json:"watch,omitzero"`
}

// Storage drivers of [Storage.Driver].
const (
	// DriverMemory is the store in the host's memory ([storage.Memory]):
	// one process, lost on restart. The default.
	DriverMemory = "memory"
	// DriverRedis is a Redis server (package storage/redis), shared by
	// every host of the app behind a load balancer. A program that uses it
	// imports storage/redis, which registers the driver.
	DriverRedis = "redis"
)

// Storage is the "storage" member of endpoints.json, and
// host.Options.Storage for a Go embedder: where Idempotency-Key records, rate
// limits and the guests' key-value data live. The zero value is the memory
// store, namespaced by the app directory's name.
//
//	{"driver": "redis", "url": "redis://127.0.0.1:6379/0", "namespace": "shop"}
type Storage struct {
	// Driver is [DriverMemory] (the default, when empty) or [DriverRedis].
	Driver string `json:"driver,omitzero"`
	// URL locates the Redis server: redis://[user:password@]host:port/db.
	// Required with [DriverRedis]; unused by the memory store.
	URL string `json:"url,omitzero"`
	// Namespace separates apps sharing one store. If empty, it is the name
	// of the app directory, so hosts of one app agree on it.
	Namespace string `json:"namespace,omitzero"`
	// MaxBytes bounds the memory store. If zero, [storage.DefaultMaxBytes]
	// (64 MiB).
	MaxBytes int64 `json:"maxBytes,omitzero"`
}

// Idempotency is the "idempotency" member of endpoints.json, and
// host.Options.Idempotency for a Go embedder: how the Idempotency-Key step
// (docs/spec.md §6) keeps its records. The zero value is every default.
//
//	{"lease": "30s", "replay": "24h", "scopeHeader": "X-Client-Id"}
type Idempotency struct {
	// Lease is how long a request holds its key while it runs. If zero,
	// [DefaultIdempotencyLease]. Keep it above limits.timeout: a request
	// running past its lease answers 409 IDEMPOTENCY_LEASE_LOST.
	Lease Duration `json:"lease,omitzero"`
	// Replay is how long a completed answer is replayed. If zero,
	// [DefaultIdempotencyReplay].
	Replay Duration `json:"replay,omitzero"`
	// ScopeHeader names a request header whose value scopes keys, such as
	// the client id a trusted proxy sets after authentication: two
	// clients sending the same key never share a record. If empty, keys
	// are scoped by operation only.
	ScopeHeader string `json:"scopeHeader,omitzero"`
}

// Defaults of [Idempotency].
const (
	// DefaultIdempotencyLease is the default of [Idempotency.Lease]:
	// 60 s.
	DefaultIdempotencyLease = 60 * time.Second
	// DefaultIdempotencyReplay is the default of
	// [Idempotency.Replay]: 24 h.
	DefaultIdempotencyReplay = 24 * time.Hour
)

// Defaults of the generated document, of [OpenAPI] and [Docs]
// (docs/spec.md §8).
const (
	// DefaultOpenAPIPath is the default of [OpenAPI.Path]: where the
	// document is served.
	DefaultOpenAPIPath = "/_endpoints/schema"
	// DefaultOpenAPITitle is the default of [OpenAPI.Title],
	// the document's info.title: "Endpoints API".
	DefaultOpenAPITitle = openapi.DefaultTitle
	// DefaultOpenAPIVersion is the default of [OpenAPI.Version],
	// the document's info.version: "0.1.0".
	DefaultOpenAPIVersion = openapi.DefaultVersion
	// DefaultDocsPath is the default of [Docs.Path]: where the
	// interactive reference of the document is served.
	DefaultDocsPath = "/_endpoints/docs"
	// DefaultDocsAssets is the default of [Docs.Assets]: where the docs
	// page loads its interactive reference (Scalar) from, a pinned version
	// on a public CDN. Set openApi.docs.assets to a directory of the app
	// holding the same files (the dist/browser folder of the npm package
	// @scalar/api-reference) to serve them locally, offline.
	DefaultDocsAssets = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser"
)

// OpenAPI configures the generated document and its reference page:
// the "openApi" member of endpoints.json (a boolean or an object), and
// host.Options.OpenAPI for a Go embedder, whose fields that are set win over
// the file's, field by field. Document and Extend are Go-only. The zero
// value is every default: the document at [DefaultOpenAPIPath] and the docs
// page at [DefaultDocsPath], served in development mode (host.Development) only.
//
//	{"openApi": {"title": "Users API", "version": "1.2.0", "enabled": true}}
type OpenAPI struct {
	// Set reports whether the member was present in endpoints.json.
	Set bool `json:"-"`
	// Enabled is true to serve the document (and the docs page) in
	// production too, false to never serve them; nil keeps the default:
	// served in development mode (host.Development) only.
	Enabled *bool `json:"enabled"`
	// Title is the document's info.title. If empty,
	// [DefaultOpenAPITitle].
	Title string `json:"title"`
	// Version is the API's version, info.version. If empty,
	// [DefaultOpenAPIVersion].
	Version string `json:"version"`
	// Path serves the document. If empty, [DefaultOpenAPIPath].
	Path string `json:"path"`
	// SpecVersion is the OpenAPI version of the document,
	// [openapi.Version31] ("3.1.0", the default when empty) or
	// [openapi.Version32] ("3.2.0"): it
	// decides where the schema of one event of a stream goes
	// (docs/spec.md §7).
	SpecVersion string `json:"specVersion"`
	// PlainRoutes says what the document does with plain routes; see
	// [PlainRoutesPolicy]. If empty, [PlainRoutesInclude].
	PlainRoutes PlainRoutesPolicy `json:"plainRoutes"`
	// Docs configures the interactive reference page served beside the
	// document: false turns it off; {"path", "assets"} moves it or loads
	// its assets from elsewhere (a URL, or a directory of the app served
	// locally). The zero value serves it at [DefaultDocsPath] with
	// [DefaultDocsAssets].
	Docs Docs `json:"docs"`
	// Document (Go embedders only) is an OpenAPI fragment (a JSON object)
	// deep-merged into the generated document after the runtime
	// declaration's additions: objects merge, arrays and scalars replace
	// ([openapi.Document.Merge]). Nil: none.
	Document []byte `json:"-"`
	// Extend (Go embedders only) runs last and edits the document in
	// place: for what a fragment cannot say, such as security on chosen
	// operations. An error fails the load. Nil: none.
	Extend func(*openapi.Document) error `json:"-"`
}

// Docs is the "docs" member of "openApi": the interactive reference
// page served beside the document, whenever the document is served. The
// zero value serves it at [DefaultDocsPath] with [DefaultDocsAssets].
//
//	{"openApi": {"docs": {"path": "/docs", "assets": "public/scalar"}}}
type Docs struct {
	// Off turns the page off ("docs": false).
	Off bool `json:"-"`
	// Path serves the page. If empty, [DefaultDocsPath].
	Path string `json:"path"`
	// Assets is where the page loads its scripts from: a URL, or a
	// directory of the app that the host serves below Path. If empty,
	// [DefaultDocsAssets].
	Assets string `json:"assets"`
}

// UnmarshalJSON accepts true, false or {path, assets}.
func (o *Docs) UnmarshalJSON(data []byte) error {
	switch firstByte(data) {
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(data, &b); err != nil {
			return err
		}
		o.Off = !b
		return nil
	case '{':
		var v struct {
			Path   string `json:"path"`
			Assets string `json:"assets"`
		}
		if err := json.Unmarshal(data, &v, json.RejectUnknownMembers(true)); err != nil {
			return err
		}
		if v.Path != "" && !strings.HasPrefix(v.Path, "/") {
			return fmt.Errorf("openApi.docs.path %q must start with /", v.Path)
		}
		o.Path, o.Assets = v.Path, v.Assets
		return nil
	}
	return errors.New("openApi.docs must be true, false or an object {path, assets}")
}

// MarshalJSON writes the option back.
func (o Docs) MarshalJSON() ([]byte, error) {
	if o.Off {
		return []byte("false"), nil
	}
	return json.Marshal(struct {
		Path   string `json:"path,omitempty"`
		Assets string `json:"assets,omitempty"`
	}{o.Path, o.Assets})
}

// UnmarshalJSON accepts true, false or {enabled, title, version, path,
// specVersion, plainRoutes, docs}.
func (o *OpenAPI) UnmarshalJSON(data []byte) error {
	o.Set = true
	switch firstByte(data) {
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(data, &b); err != nil {
			return err
		}
		o.Enabled = &b
		return nil
	case '{':
		var v struct {
			Enabled     *bool             `json:"enabled"`
			Title       string            `json:"title"`
			Version     string            `json:"version"`
			Path        string            `json:"path"`
			SpecVersion string            `json:"specVersion"`
			PlainRoutes PlainRoutesPolicy `json:"plainRoutes"`
			Docs        Docs              `json:"docs"`
		}
		if err := json.Unmarshal(data, &v, json.RejectUnknownMembers(true)); err != nil {
			return err
		}
		if v.Path != "" && !strings.HasPrefix(v.Path, "/") {
			return fmt.Errorf("openApi.path %q must start with /", v.Path)
		}
		if v.SpecVersion != "" && v.SpecVersion != openapi.Version31 && v.SpecVersion != openapi.Version32 {
			return fmt.Errorf("openApi.specVersion %q: want %q (the default) or %q", v.SpecVersion, openapi.Version31, openapi.Version32)
		}
		if err := v.PlainRoutes.check(); err != nil {
			return fmt.Errorf("openApi.plainRoutes: %w", err)
		}
		o.Enabled, o.Title, o.Version, o.Path, o.Docs = v.Enabled, v.Title, v.Version, v.Path, v.Docs
		o.SpecVersion, o.PlainRoutes = v.SpecVersion, v.PlainRoutes
		return nil
	}
	return errors.New("openApi must be true, false or an object {enabled, title, version, path, specVersion, plainRoutes, docs}")
}

// MarshalJSON writes the option back in its object form.
func (o OpenAPI) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Enabled     *bool             `json:"enabled,omitempty"`
		Title       string            `json:"title,omitempty"`
		Version     string            `json:"version,omitempty"`
		Path        string            `json:"path,omitempty"`
		SpecVersion string            `json:"specVersion,omitempty"`
		PlainRoutes PlainRoutesPolicy `json:"plainRoutes,omitempty"`
	}{o.Enabled, o.Title, o.Version, o.Path, o.SpecVersion, o.PlainRoutes})
}

// PlainRoutesPolicy is what the document does with plain routes, the
// route modules that export no contract (docs/spec.md §9): the "openApi.plainRoutes" member of endpoints.json.
//
//	{"openApi": {"plainRoutes": "warn"}}
//
// A plain route's meta is its entry under "plainRoutes" in
// server/routes.config.json.
type PlainRoutesPolicy string

// Policies for plain routes. The zero value is [PlainRoutesInclude].
const (
	// PlainRoutesInclude lists every plain route, with its meta when it has
	// some. The default.
	PlainRoutesInclude PlainRoutesPolicy = "include"
	// PlainRoutesWarn lists every plain route and logs, at each load, a
	// warning for each one without meta.
	PlainRoutesWarn PlainRoutesPolicy = "warn"
	// PlainRoutesRequire lists every plain route and makes one without
	// meta a problem of the load, naming its file: endpoints serve then
	// refuses to start.
	PlainRoutesRequire PlainRoutesPolicy = "require"
	// PlainRoutesExclude leaves plain routes out of the document.
	PlainRoutesExclude PlainRoutesPolicy = "exclude"
)

func (p PlainRoutesPolicy) check() error {
	switch p {
	case "", PlainRoutesInclude, PlainRoutesWarn, PlainRoutesRequire, PlainRoutesExclude:
		return nil
	}
	return fmt.Errorf("%q: want %q (the default), %q, %q or %q", string(p), PlainRoutesInclude, PlainRoutesWarn, PlainRoutesRequire, PlainRoutesExclude)
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("1.5s", "250ms").
type Duration time.Duration

// UnmarshalJSON parses a duration string.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"2s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("%q is not a positive duration such as \"2s\" or \"500ms\"", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// Load reads endpoints.json ([File]) from appDir and applies the
// overrides, as [Parse] does. A missing file gives the defaults (with the
// overrides set); a bad one an error naming the file, the key and what is
// wrong.
func Load(appDir string, overrides ...Override) (*App, error) {
	data, err := os.ReadFile(filepath.Join(appDir, File))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return Parse(File, data, overrides...)
}

// allowedKeys names the keys an object of endpoints.json may hold, by its
// JSON pointer, for the error about an unknown one: the JSON names of the
// fields of the struct it decodes into, so the list cannot drift from the
// settings.
func allowedKeys(object string) string {
	t := reflect.TypeFor[App]()
	for tok := range strings.SplitSeq(strings.TrimPrefix(object, "/"), "/") {
		if tok == "" {
			break
		}
		switch t.Kind() {
		case reflect.Map: // rateLimits: any name
			t = t.Elem()
			continue
		case reflect.Struct:
		default:
			return ""
		}
		f, ok := jsonField(t, tok)
		if !ok {
			return ""
		}
		t = f.Type
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	var names []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// jsonField is the field of struct type t whose JSON name is name.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// parse decodes and checks the content of endpoints.json.
func parse(file string, data []byte) (*App, error) {
	var cfg App
	if err := json.Unmarshal(data, &cfg, json.RejectUnknownMembers(true)); err != nil {
		var se *json.SemanticError
		if errors.As(err, &se) && se.JSONPointer != "" {
			ptr := string(se.JSONPointer)
			if se.Err != nil && strings.Contains(se.Err.Error(), "unknown object member") {
				parent, name := ptr[:strings.LastIndex(ptr, "/")], ptr[strings.LastIndex(ptr, "/")+1:]
				return nil, badSetting(file, ptr, "unknown key %q; allowed here: %s", name, allowedKeys(parent))
			}
			return nil, badSetting(file, ptr, "%v", se.Err)
		}
		return nil, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "json: "))
	}
	switch cfg.ResponseValidation {
	case "", ValidateAlways, ValidateInDevelopment, ValidateNever:
	default:
		return nil, badSetting(file, "/responseValidation", "%q is not one of \"always\", \"development\", \"never\"", cfg.ResponseValidation)
	}
	l := cfg.Limits
	switch {
	case l.BodyBytes < 0:
		return nil, badSetting(file, "/limits/bodyBytes", "must be positive, got %d", l.BodyBytes)
	case l.MemoryBytes != 0 && l.MemoryBytes < 65536*2:
		return nil, badSetting(file, "/limits/memoryBytes", "must be at least 131072 (two 64 KiB pages), got %d", l.MemoryBytes)
	case l.MemoryBytes > 4<<30:
		return nil, badSetting(file, "/limits/memoryBytes", "must be at most 4 GiB, got %d", l.MemoryBytes)
	case l.Instances < 0:
		return nil, badSetting(file, "/limits/instances", "must be positive, got %d", l.Instances)
	case cfg.Server.MaxHeaderBytes < 0:
		return nil, badSetting(file, "/server/maxHeaderBytes", "must be positive, got %d", cfg.Server.MaxHeaderBytes)
	case l.JSONDepth < 0 || l.JSONDepth > 10000:
		return nil, badSetting(file, "/limits/jsonDepth", "must be between 1 and 10000, got %d", l.JSONDepth)
	case l.JSONValues < 0:
		return nil, badSetting(file, "/limits/jsonValues", "must be positive, got %d", l.JSONValues)
	case l.ResponseBytes < 0:
		return nil, badSetting(file, "/limits/responseBytes", "must be positive, got %d", l.ResponseBytes)
	}
	st := cfg.Storage
	switch {
	case st.Driver != "" && st.Driver != DriverMemory && !slices.Contains(storage.Drivers(), st.Driver):
		return nil, badSetting(file, "/storage/driver", "%q is not \"memory\" nor a driver this program links (registered: %s); a program embedding the host imports the driver's package, e.g. _ \"github.com/wasmendpoints/endpoints/storage/redis\"", st.Driver, strings.Join(storage.Drivers(), ", "))
	case st.Driver == DriverRedis && st.URL == "":
		return nil, badSetting(file, "/storage/url", "the redis driver needs a url, such as \"redis://127.0.0.1:6379/0\"")
	case (st.Driver == "" || st.Driver == DriverMemory) && st.URL != "":
		return nil, badSetting(file, "/storage/url", "the memory store takes no url; add \"driver\": \"redis\"")
	case st.MaxBytes < 0:
		return nil, badSetting(file, "/storage/maxBytes", "must be positive, got %d", st.MaxBytes)
	case cfg.Idempotency.Lease < 0:
		return nil, badSetting(file, "/idempotency/lease", "must be positive")
	case cfg.Idempotency.Replay < 0:
		return nil, badSetting(file, "/idempotency/replay", "must be positive")
	}
	if err := checkBuild(file, data, cfg.Build); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// checkBuild checks the "build" member: a command whenever the member is
// present, and watch patterns that are clean globs relative to the app.
func checkBuild(file string, data []byte, b Build) error {
	if strings.TrimSpace(b.Command) == "" {
		// The member may be present yet empty ({} or only "watch").
		var probe struct {
			Build jsontext.Value `json:"build"`
		}
		if err := json.Unmarshal(data, &probe); err == nil && len(probe.Build) > 0 && probe.Build.Kind() != 'n' {
			return badSetting(file, "/build/command", "required when \"build\" is present: the shell command that builds the modules, such as \"npm run asbuild\"")
		}
	}
	for i, p := range b.Watch {
		var problem string
		switch {
		case p == "":
			problem = "is empty"
		case strings.HasPrefix(p, "/"):
			problem = "must be relative to the app, not absolute"
		case slices.Contains(strings.Split(p, "/"), ".."):
			problem = "must not leave the app with \"..\""
		case path.Clean(p) != p:
			problem = fmt.Sprintf("is not a clean path; write %q", path.Clean(p))
		default:
			for _, seg := range strings.Split(p, "/") {
				if strings.Contains(seg, "**") && seg != "**" {
					problem = fmt.Sprintf("uses \"**\" inside the segment %q; \"**\" must be a whole segment, as in \"src/**/*.ts\"", seg)
					break
				}
				if _, err := path.Match(seg, ""); err != nil {
					problem = fmt.Sprintf("is not a valid glob (%v) in the segment %q", err, seg)
					break
				}
			}
		}
		if problem != "" {
			return badSetting(file, fmt.Sprintf("/build/watch/%d", i), "%q %s", p, problem)
		}
	}
	return nil
}

// firstByte is the first byte of a JSON value after any white space: its
// kind ('{', '"', 't', ...), or 0 for nothing.
func firstByte(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// settingError is a bad setting of endpoints.json: the file, the setting's
// JSON pointer and what is wrong with it. Parse reads the pointer to
// name the override that set it.
type settingError struct {
	file, pointer, msg string
}

func (e *settingError) Error() string { return e.file + ": " + e.pointer + ": " + e.msg }

// badSetting returns a *settingError.
func badSetting(file, pointer, format string, args ...any) error {
	return &settingError{file: file, pointer: pointer, msg: fmt.Sprintf(format, args...)}
}
