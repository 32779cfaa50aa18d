// Package config is the settings of an Endpoints app: endpoints.json
// ([File], docs/spec.md §8) decoded and checked, the defaults of each
// setting, and the overrides that environment variables (ENDPOINTS_*) and
// --set flags make.
//
// [Load] reads the file of an app directory and [Parse] decodes its
// content; both decode strictly (an unknown key is an error that names
// it) and check every setting once, so an error says the file, the
// setting's JSON pointer and what was expected:
//
//	endpoints.json: /limits/bodyBytes: must be positive, got -1
//
// The zero [App], which a missing file gives, is every default. A zero
// field of a setting takes the default named on it ([DefaultBodyBytes],
// [DefaultTimeout]...). Package host serves an app with these settings;
// a Go embedder sets the same ones in host.Options, whose set fields win
// over the file's, field by field.
//
// # Overrides
//
// An [Override] replaces one setting, twelve-factor style, each time the
// file is read: [OverridesFromEnv] makes them from ENDPOINTS_* variables
// (ENDPOINTS_STORAGE_URL sets /storage/url), [ParseOverride] from a --set
// flag (storage.url=redis://cache:6379/0), and [Settings] lists every
// setting with its variable.
package config
