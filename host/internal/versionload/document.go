package versionload

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/appversion"
	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// plainProblems applies the plain routes policy: under "warn" it logs
// each plain route without meta, under "require" it returns a problem for
// each, naming its file.
func (l *loading) plainProblems() []error {
	t := l.t
	policy := t.Set.OpenAPI.PlainRoutes
	if policy != config.PlainRoutesWarn && policy != config.PlainRoutesRequire {
		return nil
	}
	routesConfig := l.cfg.RoutesConfig
	var problems []error
	for _, op := range document.WithoutMeta(document.PlainOperations(t.DocRoutes()), t.RoutesConfig) {
		route := openapi.ClientPath(op.Path)
		if policy == config.PlainRoutesWarn {
			l.cfg.Logger.Warn("plain route without meta: the document lists it with defaults only",
				"app", string(l.cfg.Dir), "file", op.File, "route", route, "hint", fmt.Sprintf("add %q to \"plainRoutes\" in %s", route, routesConfig))
			continue
		}
		problems = append(problems, fmt.Errorf("%s: plain route %s has no meta, and %s says openApi.plainRoutes %q: add {\"plainRoutes\": {%q: {\"summary\": \"...\"}}} to %s, or make the route an endpoint",
			op.File, route, config.File, policy, route, routesConfig))
	}
	return problems
}

// middlewareDecls returns the declarations of mws, in order.
func middlewareDecls(mws []*edge.Middleware) []abi.Middleware {
	decls := make([]abi.Middleware, len(mws))
	for i, m := range mws {
		decls[i] = m.Decl
	}
	return decls
}

// buildDocument builds the document of a version: the contracts, the
// routes configuration, then the runtime declaration's fragment and
// extend step (unless t.RuntimeDocOut leaves them out), then the security
// schemes endpoints.json configures (package schemedoc), then the
// embedder's.
func (l *loading) buildDocument(t *appversion.Version) (*document.Served, error) {
	doc, err := buildRoutesDocument(t, l.cfg.Development)
	if err != nil {
		return nil, err
	}
	return l.finishDocument(t, doc)
}

// buildRoutesDocument is the first step of buildDocument: the document of
// the version's routes and routes configuration alone, for a host running
// in development or not. The warnings of a development build go to
// t.Warnings.
func buildRoutesDocument(t *appversion.Version, development bool) (*openapi.Document, error) {
	doc, warnings, err := document.BuildRoutes(t.DocRoutes(), document.Settings{
		OpenAPI:     t.Set.OpenAPI,
		Routes:      t.RoutesConfig,
		Middleware:  middlewareDecls(t.Middleware),
		Development: development,
	})
	t.Warnings = append(t.Warnings, warnings...)
	return doc, err
}

// finishDocument adds to the routes' document what buildDocument adds
// after them.
func (l *loading) finishDocument(t *appversion.Version, doc *openapi.Document) (*document.Served, error) {
	a := document.Additions{Security: auth.ConfigMap(t.Set.Security), Embedder: t.Set.Embedder}
	if rm := t.Runtime; rm != nil && t.RuntimeDocOut == nil {
		a.Runtime = rm.Declaration().OpenAPI
		a.Extend = func(ctx context.Context, b []byte) ([]byte, error) {
			return l.h.Extend(ctx, rm, b, time.Now().Add(time.Duration(t.Set.Limits.Timeout)).UnixNano())
		}
	}
	return document.Finish(l.ctx, doc, a)
}
