package host

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// RoutesConfigFile is the routes configuration of an app (docs/spec.md §7).
const RoutesConfigFile = "server/routes.config.json"

// plainProblems applies the plain routes policy: under "warn" it logs
// each plain route without meta, under "require" it returns a problem for
// each, naming its file.
func (h *Host) plainProblems(t *table) []error {
	policy := t.Set.OpenAPI.PlainRoutes
	if policy != config.PlainRoutesWarn && policy != config.PlainRoutesRequire {
		return nil
	}
	var problems []error
	for _, op := range document.WithoutMeta(document.PlainOperations(t.DocRoutes()), t.RoutesConfig) {
		route := openapi.ClientPath(op.Path)
		if policy == config.PlainRoutesWarn {
			h.logger.Warn("plain route without meta: the document lists it with defaults only",
				"app", h.app, "file", op.File, "route", route, "hint", fmt.Sprintf("add %q to \"plainRoutes\" in %s", route, RoutesConfigFile))
			continue
		}
		problems = append(problems, fmt.Errorf("%s: plain route %s has no meta, and %s says openApi.plainRoutes %q: add {\"plainRoutes\": {%q: {\"summary\": \"...\"}}} to %s, or make the route an endpoint",
			op.File, route, config.File, policy, route, RoutesConfigFile))
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

// buildDocument builds the document of a table: the contracts, the routes
// configuration, then the runtime declaration's fragment and extend step
// (unless t.runtimeDocOut leaves them out), then the security schemes
// endpoints.json configures (package schemedoc), then the embedder's.
func (h *Host) buildDocument(ctx context.Context, t *table) (*document.Served, error) {
	doc, err := buildRoutesDocument(t, h.opts.Mode)
	if err != nil {
		return nil, err
	}
	return finishDocument(ctx, t, doc, h.logger)
}

// buildRoutesDocument is the first step of buildDocument: the document of
// the table's routes and routes configuration alone, for a host running in
// mode. The warnings of a development build go to t.warnings.
func buildRoutesDocument(t *table, mode Mode) (*openapi.Document, error) {
	doc, warnings, err := document.BuildRoutes(t.DocRoutes(), document.Settings{
		OpenAPI:     t.Set.OpenAPI,
		Routes:      t.RoutesConfig,
		Middleware:  middlewareDecls(t.Middleware),
		Development: mode == Development,
	})
	t.Warnings = append(t.Warnings, warnings...)
	return doc, err
}

// finishDocument adds to the routes' document what buildDocument adds
// after them.
func finishDocument(ctx context.Context, t *table, doc *openapi.Document, logger *slog.Logger) (*document.Served, error) {
	a := document.Additions{Security: auth.ConfigMap(t.Set.Security), Embedder: t.Set.Embedder}
	if rm := t.Runtime; rm != nil && t.RuntimeDocOut == nil {
		a.Runtime = rm.Declaration().OpenAPI
		a.Extend = func(ctx context.Context, b []byte) ([]byte, error) {
			return runExtend(ctx, rm, logger, b, time.Now().Add(time.Duration(t.Set.Limits.Timeout)).UnixNano())
		}
	}
	return document.Finish(ctx, doc, a)
}

// Document returns the app's OpenAPI document as served, whether or not
// the schema route is enabled.
func (h *Host) Document() []byte {
	if d := h.table.Load().Doc; d != nil {
		return d.JSON
	}
	return nil
}

// documentProblem explains, in development (mode), why there is no
// document.
func documentProblem(t *table, mode Mode) any {
	if mode != Development || t.DocErr == nil {
		return nil
	}
	return map[string]string{"error": t.DocErr.Error()}
}
