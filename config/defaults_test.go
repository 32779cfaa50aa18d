package config

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/database"
	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/storage"
)

// TestJSONDefaultsAreTheDecoders: the defaults config documents for
// limits.jsonDepth and limits.jsonValues are those the decoder applies
// when the limits are zero.
func TestJSONDefaultsAreTheDecoders(t *testing.T) {
	if DefaultJSONDepth != jsonvalue.DefaultMaxDepth {
		t.Errorf("DefaultJSONDepth = %d, jsonvalue.DefaultMaxDepth = %d", DefaultJSONDepth, jsonvalue.DefaultMaxDepth)
	}
	if DefaultJSONValues != jsonvalue.DefaultMaxValues {
		t.Errorf("DefaultJSONValues = %d, jsonvalue.DefaultMaxValues = %d", DefaultJSONValues, jsonvalue.DefaultMaxValues)
	}
}

// TestWithDefaultsFillsEveryField: App.WithDefaults leaves no number or
// duration of limits, server, idempotency, authFailures and outbound at
// zero (a new setting without a default fails here), and
// keeps the fields that are set.
func TestWithDefaultsFillsEveryField(t *testing.T) {
	filled := App{}.WithDefaults()
	for _, member := range []struct {
		name  string
		value any
	}{{"limits", filled.Limits}, {"server", filled.Server}, {"idempotency", filled.Idempotency}, {"authFailures", filled.AuthFailures},
		{"outbound", filled.Outbound}} {
		v := reflect.ValueOf(member.value)
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && v.Field(i).IsZero() && !slices.Contains([]reflect.Kind{reflect.String, reflect.Bool, reflect.Slice}, f.Type.Kind()) {
				t.Errorf("%s.%s has no default: zero after WithDefaults", member.name, f.Name)
			}
		}
	}
	if filled.Limits.BodyBytes != DefaultBodyBytes || time.Duration(filled.Server.IdleTimeout) != DefaultIdleTimeout || time.Duration(filled.Idempotency.Replay) != DefaultIdempotencyReplay {
		t.Errorf("defaults: limits %+v, server %+v, idempotency %+v", filled.Limits, filled.Server, filled.Idempotency)
	}
	set := App{Limits: Limits{BodyBytes: 10, Timeout: Duration(time.Second)}, Idempotency: Idempotency{Lease: Duration(time.Minute)}}.WithDefaults()
	if set.Limits.BodyBytes != 10 || set.Limits.Timeout != Duration(time.Second) || set.Idempotency.Lease != Duration(time.Minute) {
		t.Errorf("WithDefaults changed set fields: limits %+v, idempotency %+v", set.Limits, set.Idempotency)
	}
}

// TestSettingsDefaultsAreTheConstants: the default each setting lists
// (what `endpoints help settings` prints) is the named constant the
// member's WithDefaults fills in, for the members whose defaults the host
// used to fill itself (openApi, storage, outbound) and a few others.
func TestSettingsDefaultsAreTheConstants(t *testing.T) {
	want := map[string]string{
		"/openApi/title":                     DefaultOpenAPITitle,
		"/openApi/version":                   DefaultOpenAPIVersion,
		"/openApi/path":                      DefaultOpenAPIPath,
		"/openApi/specVersion":               DefaultOpenAPISpecVersion,
		"/openApi/plainRoutes":               string(DefaultPlainRoutes),
		"/openApi/docs/path":                 DefaultDocsPath,
		"/openApi/docs/assets":               DefaultDocsAssets,
		"/storage/driver":                    DriverMemory,
		"/storage/maxBytes":                  FormatSize(storage.DefaultMaxBytes),
		"/storage/kvBytes":                   FormatSize(storage.DefaultKVBytes),
		"/storage/idempotencyBytes":          FormatSize(storage.DefaultIdempotencyBytes),
		"/storage/rateLimitBytes":            FormatSize(storage.DefaultRateLimitBytes),
		"/storage/idempotencyClientBytes":    FormatSize(storage.DefaultIdempotencyClientBytes),
		"/outbound/maxConcurrentPerHost":     strconv.Itoa(DefaultOutboundMaxConcurrentPerHost),
		"/limits/bodyBytes":                  FormatSize(DefaultBodyBytes),
		"/limits/recycleMemoryBytes":         FormatSize(DefaultMemoryBytes / 4 * 3),
		"/limits/timeout":                    DefaultTimeout.String(),
		"/storage/namespace":                 "", // the app directory's name
		"/openApi/enabled":                   "", // development only
		"/cors":                              "", // off
		"/databases/{name}/maxConns":         "10",
		"/databases/{name}/statementTimeout": "30s",
		"/databases/{name}/path":             "", // .endpoints/data/NAME.db
	}
	got := map[string]string{}
	for _, s := range Settings() {
		got[s.Pointer] = s.Default
	}
	for ptr, w := range want {
		if g, ok := got[ptr]; !ok || g != w {
			t.Errorf("%s: default %q (listed: %v), want %q", ptr, g, ok, w)
		}
	}
}

// TestRecycleMemoryFollowsMemoryBytes: limits.recycleMemoryBytes left
// out is three quarters of limits.memoryBytes in effect, whichever that
// is; set, it is kept.
func TestRecycleMemoryFollowsMemoryBytes(t *testing.T) {
	tests := []struct {
		name string
		in   Limits
		want int64
	}{
		{"both left out", Limits{}, 48 << 20},
		{"memoryBytes set", Limits{MemoryBytes: 16 << 20}, 12 << 20},
		{"memoryBytes below a page counts as left out", Limits{MemoryBytes: 1000}, 48 << 20},
		{"set", Limits{MemoryBytes: 16 << 20, RecycleMemoryBytes: 4 << 20}, 4 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.WithDefaults().RecycleMemoryBytes; got != tt.want {
				t.Errorf("RecycleMemoryBytes = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestStorageDefaultsFollowMaxBytes: the memory store's budgets a
// storage.maxBytes alone gives are its split, and the client share a
// sixteenth of the records' budget; a Redis store gets the fixed share
// and no memory budgets.
func TestStorageDefaultsFollowMaxBytes(t *testing.T) {
	tests := []struct {
		name string
		in   Storage
		want Storage
	}{
		{"zero: the memory store's defaults", Storage{},
			Storage{Driver: DriverMemory, MaxBytes: storage.DefaultMaxBytes, KVBytes: storage.DefaultKVBytes, IdempotencyBytes: storage.DefaultIdempotencyBytes,
				RateLimitBytes: storage.DefaultRateLimitBytes, IdempotencyClientBytes: storage.DefaultIdempotencyClientBytes}},
		{"maxBytes alone is split", Storage{MaxBytes: 16 << 20},
			Storage{Driver: DriverMemory, MaxBytes: 16 << 20, KVBytes: 8 << 20, IdempotencyBytes: 6 << 20, RateLimitBytes: 2 << 20, IdempotencyClientBytes: 6 << 20 / 16}},
		{"a set budget is kept", Storage{IdempotencyBytes: 1 << 20, IdempotencyClientBytes: 4096},
			Storage{Driver: DriverMemory, MaxBytes: storage.DefaultMaxBytes, KVBytes: storage.DefaultKVBytes, IdempotencyBytes: 1 << 20,
				RateLimitBytes: storage.DefaultRateLimitBytes, IdempotencyClientBytes: 4096}},
		{"redis: the fixed share only", Storage{Driver: DriverRedis, URL: "redis://r"},
			Storage{Driver: DriverRedis, URL: "redis://r", IdempotencyClientBytes: storage.DefaultIdempotencyClientBytes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.WithDefaults(); got != tt.want {
				t.Errorf("WithDefaults() = %+v, want %+v", got, tt.want)
			}
			if got := tt.in.WithDefaults().WithDefaults(); got != tt.want {
				t.Errorf("WithDefaults twice = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDatabaseDefaultsAreTheDrivers: the defaults config documents and
// fills for a database are those package database applies itself.
func TestDatabaseDefaultsAreTheDrivers(t *testing.T) {
	d := Database{}.WithDefaults()
	if d.MaxConns != database.DefaultMaxConns || time.Duration(d.StatementTimeout) != database.DefaultStatementTimeout || d.Driver != DatabaseSQLite {
		t.Errorf("Database{}.WithDefaults() = %+v, want maxConns %d, statementTimeout %s (package database's), driver sqlite", d, database.DefaultMaxConns, database.DefaultStatementTimeout)
	}
	if got := (Database{URL: "postgres://db/app"}).WithDefaults().Driver; got != DatabasePostgres {
		t.Errorf("a database with a url defaults to driver %q, want postgres", got)
	}
}

// TestAppWithDefaultsLeavesTheCallersDatabases: App.WithDefaults fills
// each listed database's defaults in a new map, the caller's unchanged.
func TestAppWithDefaultsLeavesTheCallersDatabases(t *testing.T) {
	a := App{Databases: map[string]Database{"main": {}}}
	filled := a.WithDefaults()
	if got := filled.Databases["main"]; got != (Database{}).WithDefaults() {
		t.Errorf("filled main = %+v, want %+v", got, Database{}.WithDefaults())
	}
	if got := a.Databases["main"]; got != (Database{}) {
		t.Errorf("the caller's main = %+v after WithDefaults, want it unchanged", got)
	}
}
