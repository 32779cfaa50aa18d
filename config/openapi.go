package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/openapi"
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
	// DefaultOpenAPISpecVersion is the default of [OpenAPI.SpecVersion]:
	// OpenAPI 3.1.0.
	DefaultOpenAPISpecVersion = openapi.Version31
	// DefaultPlainRoutes is the default of [OpenAPI.PlainRoutes]:
	// [PlainRoutesInclude].
	DefaultPlainRoutes = PlainRoutesInclude
	// DefaultDocsPath is the default of [Docs.Path]: where the
	// interactive reference of the document is served.
	DefaultDocsPath = "/_endpoints/docs"
	// DefaultDocsAssets is the default of [Docs.Assets], empty: the docs
	// page loads its interactive reference (Scalar, a pinned version built
	// into the binary) from the host itself, below the page's path, so
	// that it works offline. Set openApi.docs.assets to a URL or to a
	// directory of the app (the dist/browser folder of the npm package
	// @scalar/api-reference) to load another version.
	DefaultDocsAssets = ""
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
	// Description is the document's info.description (CommonMark): what
	// the API is for. Empty: none, unless the runtime declaration adds one.
	Description string `json:"description"`
	// Servers are the document's servers, the base URLs of the API
	// (https://spec.openapis.org/oas/v3.1.0#server-object). Nil: none,
	// unless the runtime declaration adds some; OpenAPI tools then take
	// the document's own address as the base.
	//
	//	"servers": [{"url": "/", "description": "This server"}]
	Servers []OpenAPIServer `json:"servers"`
	// Path serves the document. If empty, [DefaultOpenAPIPath].
	Path string `json:"path"`
	// SpecVersion is the OpenAPI version of the document,
	// [openapi.Version31] ("3.1.0", [DefaultOpenAPISpecVersion] when empty) or
	// [openapi.Version32] ("3.2.0"): it
	// decides where the schema of one event of a stream goes
	// (docs/spec.md §7).
	SpecVersion string `json:"specVersion"`
	// PlainRoutes says what the document does with plain routes; see
	// [PlainRoutesPolicy]. If empty, [DefaultPlainRoutes].
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

// WithDefaults returns o with its defaults filled in: when the page is
// on, Path [DefaultDocsPath] and Assets [DefaultDocsAssets] when empty.
func (o Docs) WithDefaults() Docs {
	if o.Off {
		return o
	}
	if o.Path == "" {
		o.Path = DefaultDocsPath
	}
	if o.Assets == "" {
		o.Assets = DefaultDocsAssets
	}
	return o
}

// WithDefaults returns o with its defaults filled in: Title, Version,
// Path, SpecVersion, PlainRoutes and the docs page's (see
// [Docs.WithDefaults]). Enabled stays as it is: nil means "in development
// only", which depends on how the host runs.
func (o OpenAPI) WithDefaults() OpenAPI {
	if o.Title == "" {
		o.Title = DefaultOpenAPITitle
	}
	if o.Version == "" {
		o.Version = DefaultOpenAPIVersion
	}
	if o.Path == "" {
		o.Path = DefaultOpenAPIPath
	}
	if o.SpecVersion == "" {
		o.SpecVersion = DefaultOpenAPISpecVersion
	}
	if o.PlainRoutes == "" {
		o.PlainRoutes = DefaultPlainRoutes
	}
	o.Docs = o.Docs.WithDefaults()
	return o
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

// UnmarshalJSON accepts true, false or {enabled, title, version,
// description, servers, path, specVersion, plainRoutes, docs}.
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
		// OpenAPI's own members, without this method (the fields tagged
		// "-" are Go's only).
		type members OpenAPI
		var v members
		if err := json.Unmarshal(data, &v, json.RejectUnknownMembers(true)); err != nil {
			return err
		}
		o.Enabled, o.Title, o.Version, o.Path, o.Docs = v.Enabled, v.Title, v.Version, v.Path, v.Docs
		o.Description, o.Servers = v.Description, v.Servers
		o.SpecVersion, o.PlainRoutes = v.SpecVersion, v.PlainRoutes
		return nil
	}
	return errors.New("openApi must be true, false or an object {enabled, title, version, description, servers, path, specVersion, plainRoutes, docs}")
}

// MarshalJSON writes the option back in its object form.
func (o OpenAPI) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Enabled     *bool             `json:"enabled,omitempty"`
		Title       string            `json:"title,omitempty"`
		Version     string            `json:"version,omitempty"`
		Description string            `json:"description,omitempty"`
		Servers     []OpenAPIServer   `json:"servers,omitempty"`
		Path        string            `json:"path,omitempty"`
		SpecVersion string            `json:"specVersion,omitempty"`
		PlainRoutes PlainRoutesPolicy `json:"plainRoutes,omitempty"`
		Docs        Docs              `json:"docs,omitzero"`
	}{o.Enabled, o.Title, o.Version, o.Description, o.Servers, o.Path, o.SpecVersion, o.PlainRoutes, o.Docs})
}

// OpenAPIServer is one entry of openApi.servers: a base URL of the API and what
// it is, the document's Server Object
// (https://spec.openapis.org/oas/v3.1.0#server-object).
type OpenAPIServer struct {
	// URL is the base URL: absolute, or relative to where the document is
	// served ("/"). Required.
	URL string `json:"url"`
	// Description says which server it is ("Production").
	Description string `json:"description,omitempty"`
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

// CheckOpenAPI checks o as the "openApi" member of endpoints.json is
// checked (the paths, the OpenAPI version, the plain routes' policy, the
// servers and where the docs page's assets come from), for settings that
// come from elsewhere, such as an embedder's (host.Options.OpenAPI):
// errors name source and the setting's JSON pointer, with the same words
// as for the file.
//
//	err := config.CheckOpenAPI("host.Options.OpenAPI", config.OpenAPI{SpecVersion: "3.0.3"})
//	// host.Options.OpenAPI: /openApi/specVersion: "3.0.3": want "3.1.0" (the default) or "3.2.0"
func CheckOpenAPI(source string, o OpenAPI) error {
	return checkOpenAPI(source, o)
}

// checkOpenAPI checks the "openApi" member: the paths, the OpenAPI
// version, the plain routes' policy and where the docs page's assets come
// from.
func checkOpenAPI(file string, o OpenAPI) error {
	switch {
	case o.Path != "" && !strings.HasPrefix(o.Path, "/"):
		return badSetting(file, "/openApi/path", "%q: want a path starting with /, such as %q", o.Path, DefaultOpenAPIPath)
	case o.SpecVersion != "" && o.SpecVersion != openapi.Version31 && o.SpecVersion != openapi.Version32:
		return badSetting(file, "/openApi/specVersion", "%q: want %q (the default) or %q", o.SpecVersion, openapi.Version31, openapi.Version32)
	case o.Docs.Path != "" && !strings.HasPrefix(o.Docs.Path, "/"):
		return badSetting(file, "/openApi/docs/path", "%q: want a path starting with /, such as %q", o.Docs.Path, DefaultDocsPath)
	}
	if err := o.PlainRoutes.check(); err != nil {
		return badSetting(file, "/openApi/plainRoutes", "%v", err)
	}
	for i, sv := range o.Servers {
		if sv.URL == "" {
			return badSetting(file, fmt.Sprintf("/openApi/servers/%d/url", i), "missing: want a base URL such as \"/\" or \"https://api.example.com/v1\"")
		}
	}
	if a := o.Docs.Assets; strings.Contains(a, "://") {
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return badSetting(file, "/openApi/docs/assets", "%q: want an http(s) URL such as %q, a directory of the app, or nothing for the reference built into endpoints", a, "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser")
		}
	}
	return nil
}

func (p PlainRoutesPolicy) check() error {
	switch p {
	case "", PlainRoutesInclude, PlainRoutesWarn, PlainRoutesRequire, PlainRoutesExclude:
		return nil
	}
	return fmt.Errorf("%q: want %q (the default), %q, %q or %q", string(p), PlainRoutesInclude, PlainRoutesWarn, PlainRoutesRequire, PlainRoutesExclude)
}
