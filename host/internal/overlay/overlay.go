// Package overlay lays the settings an embedder gives in code
// (host.Options' Limits, Storage, Databases, Server, Outbound, Idempotency,
// OpenAPI)
// over those of the app's endpoints.json, member by member: what the code
// sets wins, what it leaves zero keeps the file's. Defaults are not its
// business: config's WithDefaults fills them afterwards, on the merged
// value.
package overlay

import (
	"cmp"
	"maps"
	"reflect"

	"github.com/wasmendpoints/endpoints/config"
)

// Fill returns over with each zero field taken from base, field by field
// and into nested structs: a field over sets wins, whatever base says.
// Slices, maps and pointers count as zero when nil (an empty, non-nil
// list set in code replaces the file's); a bool counts as zero when
// false, so true on either side wins. T must be a struct whose fields are
// all exported.
//
//	limits := overlay.Fill(config.Limits{Timeout: config.Duration(time.Second)}, file.Limits)
//
// Being by reflection, it fills a field added to a config struct without
// a word here.
func Fill[T any](over, base T) T {
	fill(reflect.ValueOf(&over).Elem(), reflect.ValueOf(base))
	return over
}

// fill sets the zero fields of the struct to (addressable) from from.
func fill(to, from reflect.Value) {
	for i := range to.NumField() {
		f := to.Field(i)
		switch {
		case f.Kind() == reflect.Struct:
			fill(f, from.Field(i))
		case f.IsZero():
			f.Set(from.Field(i))
		}
	}
}

// Storage is over's storage over base's: its location (driver and url,
// which go together) when it names a driver, else base's whole; then
// each other zero field from base.
func Storage(over, base config.Storage) config.Storage {
	if over.Driver == "" {
		over.Driver, over.URL = base.Driver, base.URL
	}
	base.Driver, base.URL = "", ""
	return Fill(over, base)
}

// OpenAPI is over's "openApi" settings over base's: the fields set in over
// win (a non-nil Enabled or Servers, a non-empty string, Docs when any of
// it is set), the others are base's; Set says either was set. Document and
// Extend, which endpoints.json cannot give, are over's.
func OpenAPI(over, base config.OpenAPI) config.OpenAPI {
	out := base
	out.Set = over.Set || base.Set
	if over.Enabled != nil {
		out.Enabled = over.Enabled
	}
	out.Title = cmp.Or(over.Title, base.Title)
	out.Version = cmp.Or(over.Version, base.Version)
	out.Description = cmp.Or(over.Description, base.Description)
	if over.Servers != nil {
		out.Servers = over.Servers
	}
	out.Path = cmp.Or(over.Path, base.Path)
	out.SpecVersion = cmp.Or(over.SpecVersion, base.SpecVersion)
	out.PlainRoutes = cmp.Or(over.PlainRoutes, base.PlainRoutes)
	if over.Docs != (config.Docs{}) {
		out.Docs = over.Docs
	}
	out.Document, out.Extend = over.Document, over.Extend
	return out
}

// Databases is over's databases over base's (host.Options.Databases over
// endpoints.json's "databases"): a name only one declares is taken as it
// is; for a name both declare, over's location (Driver, Path or URL),
// when it sets one, replaces base's whole, since they go together, and
// MaxConns and StatementTimeout win when set. Nil or empty over keeps
// base.
func Databases(over, base map[string]config.Database) map[string]config.Database {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]config.Database{}
	}
	for name, o := range over {
		d, ok := out[name]
		if !ok {
			out[name] = o
			continue
		}
		if o.Driver != "" || o.Path != "" || o.URL != "" {
			d.Driver, d.Path, d.URL = o.Driver, o.Path, o.URL
		}
		if o.MaxConns != 0 {
			d.MaxConns = o.MaxConns
		}
		if o.StatementTimeout != 0 {
			d.StatementTimeout = o.StatementTimeout
		}
		out[name] = d
	}
	return out
}
