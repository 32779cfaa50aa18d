package document

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Route is one route module of a table, as the document sees it.
type Route struct {
	// Path is where the module is routed: its file, pattern and method.
	Path routefile.Route
	// File is the module, relative to the app.
	File string
	// Plain: the module has no contract (docs/spec.md §9).
	Plain bool
	// Operations are an endpoint's operations, in method order; none for
	// a plain route.
	Operations []openapi.Route
}

// Settings are what a document is built with besides the routes.
type Settings struct {
	// OpenAPI is endpoints.json's openApi in effect, its defaults filled.
	OpenAPI config.OpenAPI
	// Routes is the routes configuration (server/routes.config.json), nil
	// when the app has none.
	Routes *openapi.RoutesConfig
	// Middleware are the app's middleware declarations, in order: the
	// answers they declare are added to the operations they guard.
	Middleware []abi.Middleware
	// Development: an entry of the routes configuration that matches no
	// route is a warning, not an error (a deleted route must not take the
	// app down while it is being edited).
	Development bool
}

// BuildRoutes builds the document of routes and s: the endpoints'
// operations, the plain routes unless s.OpenAPI.PlainRoutes excludes
// them, then endpoints.json's description and servers. The warnings are
// those of a development build (s.Development), returned even when the
// build fails.
//
//	doc, warnings, err := document.BuildRoutes(routes, document.Settings{OpenAPI: cfg.OpenAPI.WithDefaults()})
func BuildRoutes(routes []Route, s Settings) (doc *openapi.Document, warnings []error, err error) {
	var ops []openapi.Route
	for _, r := range routes {
		ops = append(ops, r.Operations...)
	}
	cfg := s.OpenAPI
	if cfg.PlainRoutes != config.PlainRoutesExclude {
		ops = append(ops, PlainOperations(routes)...)
	}
	opts := openapi.Options{Title: cfg.Title, Version: cfg.Version, Routes: edge.RoutesWithMiddleware(s.Routes, s.Middleware, ops), SpecVersion: cfg.SpecVersion}
	if rc := opts.Routes; rc != nil && rc.PlainRoutes != nil && cfg.PlainRoutes == config.PlainRoutesExclude {
		// Excluded plain routes keep their meta for when they are included
		// again: it names no operation of this document.
		c := *rc
		c.PlainRoutes = nil
		opts.Routes = &c
	}
	if s.Development {
		opts.Unmatched = func(err error) {
			warnings = append(warnings, fmt.Errorf("%w: ignored in development; a production start (endpoints serve) refuses it: remove or fix the entry", err))
		}
	}
	doc, err = openapi.Build(ops, opts)
	if err != nil {
		return nil, warnings, err
	}
	// endpoints.json's description and servers, which a runtime
	// declaration's fragment may still replace.
	doc.Info.Description = cfg.Description
	for _, sv := range cfg.Servers {
		doc.Servers = append(doc.Servers, &openapi.Server{URL: sv.URL, Description: sv.Description})
	}
	return doc, warnings, nil
}

// PlainOperations are the plain routes of routes as the document lists
// them (docs/spec.md §9), sorted by file. A route on a catch-all or
// optional segment has no OpenAPI path template and is left out, as is one
// under the framework's own /_endpoints/. A module without a method suffix
// serves the methods no other module of its path claims.
func PlainOperations(routes []Route) []openapi.Route {
	claimed := map[string][]string{}
	for _, r := range routes {
		switch {
		case r.Path.Method != "":
			claimed[r.Path.Pattern()] = append(claimed[r.Path.Pattern()], r.Path.Method)
		case !r.Plain:
			for _, op := range r.Operations {
				claimed[r.Path.Pattern()] = append(claimed[r.Path.Pattern()], op.Method)
			}
		}
	}
	var out []openapi.Route
	for _, r := range routes {
		if !r.Plain || r.Path.Dynamic() || strings.HasPrefix(r.Path.Pattern()+"/", "/_endpoints/") {
			continue
		}
		op := openapi.Route{Method: r.Path.Method, Path: r.Path.OpenAPIPath(), File: r.File, Plain: true}
		if op.Method == "" {
			taken := claimed[r.Path.Pattern()]
			for _, m := range plainMethods {
				if !slices.Contains(taken, m) && (m != http.MethodHead || !slices.Contains(taken, http.MethodGet)) {
					op.Serves = append(op.Serves, m)
				}
			}
		}
		out = append(out, op)
	}
	slices.SortFunc(out, func(a, b openapi.Route) int { return strings.Compare(a.File, b.File) })
	return out
}

// plainMethods are the methods a route module may serve (docs/spec.md §2).
var plainMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// WithoutMeta returns the plain operations that the routes configuration
// cfg (nil when the app has none) gives no "plainRoutes" entry.
func WithoutMeta(ops []openapi.Route, cfg *openapi.RoutesConfig) []openapi.Route {
	var out []openapi.Route
	for _, op := range ops {
		if cfg == nil || cfg.PlainRoutes[openapi.ClientPath(op.Path)] == nil {
			out = append(out, op)
		}
	}
	return out
}
