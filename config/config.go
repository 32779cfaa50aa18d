package config

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"golang.org/x/net/http/httpguts"

	"github.com/wasmendpoints/endpoints/internal/appfile"
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
	// An entry also declares its scheme in the document when nothing
	// else does (jwt: http bearer; basic: http basic; apiKey: an apiKey
	// scheme in apiKey's "in" and "name", by default the X-API-Key
	// header), so apps in any language need no runtime declaration for it.
	//
	// Each entry is checked when the file is read, by every command
	// (auth.Config.Check: key sources, URL forms, algorithms, key hashes,
	// users), and what needs I/O (the key set file, the JWKS URL, the
	// secret's variable) when the app loads; see the README,
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
	// address read from X-Forwarded-For, or from Forwarded when it has
	// none (for rate limits, the failed-credentials budget, a bundle
	// route's breaker). Defaults to none.
	TrustedProxies []string `json:"trustedProxies,omitzero"`
	// Variables are the values the app's guests read (variable_get), by
	// name, each from the environment, a file or a default, and possibly
	// secret; see [Variable]. Absent: none.
	//
	//	"variables": {"webhookSecret": {"env": "ORDERS_WEBHOOK_SECRET", "secret": true}}
	Variables map[string]Variable `json:"variables,omitzero"`
	// AuthFailures bounds the failed credentials a client address and a
	// user name may send before the host answers 429; see
	// [AuthFailures] for the defaults.
	AuthFailures AuthFailures `json:"authFailures,omitzero"`
	// Outbound lists the services guests may call over HTTP; see
	// [Outbound]. Absent: none.
	Outbound Outbound `json:"outbound,omitzero"`
	// Databases are the SQL databases the app's guests reach by name; see
	// [Database]. Absent: "main", an SQLite file under the app
	// ([DefaultDatabasePath]), created when a guest first uses it.
	Databases map[string]Database `json:"databases,omitzero"`

	// edges are "security" and "cors" as checkEdges decoded them.
	edges edges
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("1.5s", "250ms").
type Duration time.Duration

// UnmarshalJSON parses a duration string.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		got := string(data)
		if len(got) > 40 {
			got = got[:40] + "..."
		}
		return fmt.Errorf("want a duration string such as \"2s\" or \"500ms\", got %s", got)
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

// Parse decodes and checks the content of the file endpoints.json
// ([File]), nil when the file is absent, with the overrides set: the
// last override of a setting wins, over the file. Decoding is strict: an
// unknown key is an error that names it and the keys allowed there. An
// error names the file, the setting's JSON pointer and what was expected
// ("endpoints.json: /limits/bodyBytes: must be positive, got -1"), and,
// when an override set the setting, the override ("(/limits/bodyBytes
// set by ENDPOINTS_LIMITS_BODY_BYTES)"). No file and no override give
// the zero App: every default.
func Parse(file string, data []byte, overrides ...Override) (*App, error) {
	if data == nil && len(overrides) == 0 {
		return &App{}, nil
	}
	merged, err := applyOverrides(file, data, overrides)
	if err != nil {
		return nil, err
	}
	cfg, err := parse(file, merged)
	if err != nil {
		return nil, Attribute(err, overrides)
	}
	return cfg, nil
}

// Attribute adds to err, when it is an error of this package about a
// setting (a bad value, a CA file that cannot be read) that one of the
// overrides set, which override it was: "(/outbound/caFile set by
// ENDPOINTS_OUTBOUND_CA_FILE)", so that an operator knows where to look.
// Other errors, and nil, are returned as they are. The last override of
// the setting (or of an object holding it) is the one in effect, as in
// [Parse].
func Attribute(err error, overrides []Override) error {
	var bad *settingError
	if !errors.As(err, &bad) {
		return err
	}
	for _, o := range slices.Backward(overrides) {
		if bad.pointer == o.Pointer || strings.HasPrefix(bad.pointer, o.Pointer+"/") {
			return fmt.Errorf("%w (%s set by %s)", err, o.Pointer, o.Source)
		}
	}
	// A member an entry lacks, when an override set another of its
	// members: most often the override made the entry, its name
	// misspelled (ENDPOINTS_RATE_LIMITS_ORDRS_LIMIT beside "orders").
	for _, o := range slices.Backward(overrides) {
		if e := entryOf(o.Pointer); e != "" && strings.HasPrefix(bad.pointer, e+"/") {
			return fmt.Errorf("%w (the entry %s has %s set by %s: is its name the one you meant?)", err, e, o.Pointer, o.Source)
		}
	}
	return err
}

// entryOf is the pointer of the named entry holding the setting at
// pointer ("/rateLimits/orders" of "/rateLimits/orders/limit"), "" when
// the setting is no member of a named entry.
func entryOf(pointer string) string {
	for _, s := range Settings() {
		i := strings.Index(s.Pointer, NamePlaceholder)
		if i < 0 || s.Pointer == s.Pointer[:i]+NamePlaceholder || !s.match(pointer) {
			continue
		}
		name, _, _ := strings.Cut(pointer[i:], "/")
		return s.Pointer[:i] + name
	}
	return ""
}

// Load reads endpoints.json ([File]) from appDir and applies the
// overrides, as [Parse] does. A missing file gives the defaults (with the
// overrides set); a bad one an error naming the file, the key and what is
// wrong.
func Load(appDir string, overrides ...Override) (*App, error) {
	data, err := appfile.Read(filepath.Join(appDir, File), File)
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
		case reflect.Map: // rateLimits, variables: any name
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
	data, err := normalizeSizes(file, data)
	if err != nil {
		return nil, err
	}
	var cfg App
	if err := json.Unmarshal(data, &cfg, json.RejectUnknownMembers(true)); err != nil {
		var se *json.SemanticError
		if errors.As(err, &se) && se.JSONPointer != "" {
			ptr := string(se.JSONPointer)
			if se.Err != nil && strings.Contains(se.Err.Error(), "unknown object member") {
				parent, name := ptr[:strings.LastIndex(ptr, "/")], ptr[strings.LastIndex(ptr, "/")+1:]
				return nil, badSetting(file, ptr, "unknown key %q; allowed here: %s", name, allowedKeys(parent))
			}
			if se.Err == nil || errors.Is(se.Err, strconv.ErrSyntax) || errors.Is(se.Err, strconv.ErrRange) {
				return nil, badSetting(file, ptr, "%s", wrongType(ptr, se))
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
	if err := checkOpenAPI(file, cfg.OpenAPI); err != nil {
		return nil, err
	}
	l := cfg.Limits
	switch {
	case l.BodyBytes < 0:
		return nil, badSetting(file, "/limits/bodyBytes", "must be positive, got %d", l.BodyBytes)
	case l.MemoryBytes != 0 && l.MemoryBytes < 65536*2:
		return nil, badSetting(file, "/limits/memoryBytes", "must be at least 131072 (two 64 KiB pages), got %d", l.MemoryBytes)
	case l.MemoryBytes > 4<<30:
		return nil, badSetting(file, "/limits/memoryBytes", "must be at most 4 GiB, got %d", l.MemoryBytes)
	case l.RecycleMemoryBytes < 0:
		return nil, badSetting(file, "/limits/recycleMemoryBytes", "must be positive, got %d", l.RecycleMemoryBytes)
	case l.RecycleMemoryBytes > l.WithDefaults().MemoryBytes:
		return nil, badSetting(file, "/limits/recycleMemoryBytes", "must be at most limits.memoryBytes (%d), got %d; equal to it turns recycling off", l.WithDefaults().MemoryBytes, l.RecycleMemoryBytes)
	case l.Instances < 0:
		return nil, badSetting(file, "/limits/instances", "must be positive, got %d", l.Instances)
	case cfg.Server.MaxHeaderBytes < 0:
		return nil, badSetting(file, "/server/maxHeaderBytes", "must be positive, got %d", cfg.Server.MaxHeaderBytes)
	case l.JSONDepth < 0 || l.JSONDepth > 10000:
		return nil, badSetting(file, "/limits/jsonDepth", "must be between 1 and 10000, got %d", l.JSONDepth)
	case l.QueryParams < 0 || l.QueryParams > 10000:
		return nil, badSetting(file, "/limits/queryParams", "must be between 1 and 10000, got %d", l.QueryParams)
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
	case st.Namespace != "" && storage.ValidNamespace(st.Namespace) != nil:
		return nil, badSetting(file, "/storage/namespace", "%v; choose another", storage.ValidNamespace(st.Namespace))
	case st.MaxBytes < 0:
		return nil, badSetting(file, "/storage/maxBytes", "must be positive, got %d", st.MaxBytes)
	case st.KVBytes < 0:
		return nil, badSetting(file, "/storage/kvBytes", "must be positive, got %d", st.KVBytes)
	case st.IdempotencyBytes < 0:
		return nil, badSetting(file, "/storage/idempotencyBytes", "must be positive, got %d", st.IdempotencyBytes)
	case st.RateLimitBytes < 0:
		return nil, badSetting(file, "/storage/rateLimitBytes", "must be positive, got %d", st.RateLimitBytes)
	case st.IdempotencyClientBytes < 0:
		return nil, badSetting(file, "/storage/idempotencyClientBytes", "must be positive, got %d (each client's share of the Idempotency-Key records; leave it out for the default)", st.IdempotencyClientBytes)
	case cfg.Idempotency.Lease < 0:
		return nil, badSetting(file, "/idempotency/lease", "must be positive")
	case cfg.Idempotency.Replay < 0:
		return nil, badSetting(file, "/idempotency/replay", "must be positive")
	case cfg.Idempotency.ScopeHeader != "" && !httpguts.ValidHeaderFieldName(cfg.Idempotency.ScopeHeader):
		return nil, badSetting(file, "/idempotency/scopeHeader", "%q is not a header name (a token: letters, digits and !#$%%&'*+-.^_`|~), such as \"X-Client-Id\"", cfg.Idempotency.ScopeHeader)
	case l.OutboundBytes < 0:
		return nil, badSetting(file, "/limits/outboundBytes", "must be positive, got %d", l.OutboundBytes)
	case l.OutboundRequests < 0:
		return nil, badSetting(file, "/limits/outboundRequests", "must be positive, got %d", l.OutboundRequests)
	case l.OutboundHeaderBytes < 0:
		return nil, badSetting(file, "/limits/outboundHeaderBytes", "must be positive, got %d", l.OutboundHeaderBytes)
	}
	if err := checkOutbound(file, cfg.Outbound); err != nil {
		return nil, err
	}
	if l.SQLResultBytes < 0 {
		return nil, badSetting(file, "/limits/sqlResultBytes", "must be positive, got %d", l.SQLResultBytes)
	}
	if err := l.checkBreaker(file, data); err != nil {
		return nil, err
	}
	if err := checkDatabases(file, cfg.Databases); err != nil {
		return nil, err
	}
	if err := checkBuild(file, data, cfg.Build); err != nil {
		return nil, err
	}
	if err := checkVariables(file, cfg.Variables); err != nil {
		return nil, err
	}
	if err := cfg.AuthFailures.check(file); err != nil {
		return nil, err
	}
	if err := cfg.Server.Compression.check(file); err != nil {
		return nil, err
	}
	if err := cfg.Server.checkRefusalPause(file); err != nil {
		return nil, err
	}
	if err := cfg.Server.checkPipelining(file); err != nil {
		return nil, err
	}
	if err := checkEdges(file, &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// wrongType says what the setting at ptr expected and what it got, for a
// value of the wrong JSON type ("bodyBytes": true).
func wrongType(ptr string, se *json.SemanticError) string {
	var want string
	switch t := se.GoType; {
	case t == nil:
		want = "another type"
	case isSize(ptr):
		want = "a number of bytes or a size such as \"1MiB\""
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		want = "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		want = "a number"
	case t.Kind() == reflect.String:
		want = "a string"
	case t.Kind() == reflect.Bool:
		want = "true or false"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		want = "an array of strings"
	case t.Kind() == reflect.Slice:
		want = "an array"
	case t.Kind() == reflect.Map || t.Kind() == reflect.Struct:
		want = "an object"
	default:
		want = t.String()
	}
	got := "something else"
	switch se.JSONKind {
	case '"':
		got = "a string"
	case '0':
		got = "a number"
	case 't', 'f':
		got = "a boolean"
	case 'n':
		got = "null"
	case '{':
		got = "an object"
	case '[':
		got = "an array"
	}
	if len(se.JSONValue) > 0 && len(se.JSONValue) <= 64 {
		got += " (" + string(se.JSONValue) + ")"
	}
	return "want " + want + ", got " + got
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
