package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/schemedoc"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/openapi"
)

// RoutesConfigFile is the routes configuration of an app (docs/spec.md §7).
const RoutesConfigFile = "server/routes.config.json"

// openAPI is the document's configuration: Options.OpenAPI over
// endpoints.json's.
// openAPI is the openApi settings in effect: Options.OpenAPI over
// endpoints.json's, defaults filled in by config.
func (s *settings) openAPI() config.OpenAPI {
	return openAPIOver(s.opts.OpenAPI, s.config.OpenAPI).WithDefaults()
}

// specVersion is the OpenAPI version the document declares.
func (s *settings) specVersion() string {
	return s.openAPI().SpecVersion
}

// plainRoutes is the policy for plain routes in the document.
func (s *settings) plainRoutes() config.PlainRoutesPolicy {
	return s.openAPI().PlainRoutes
}

// plainOperations are the plain routes of a table as the document lists
// them (docs/spec.md §9), sorted by file. A route on a
// catch-all or optional segment has no OpenAPI path template and is left
// out, as is one under the framework's own /_endpoints/. A module without
// a method suffix serves the methods no other module of its path claims.
func plainOperations(t *table) []openapi.Route {
	claimed := map[string][]string{}
	for _, r := range t.routes {
		switch {
		case r.rf.Method != "":
			claimed[r.rf.Pattern()] = append(claimed[r.rf.Pattern()], r.rf.Method)
		case !r.plain:
			for m := range r.ops {
				claimed[r.rf.Pattern()] = append(claimed[r.rf.Pattern()], m)
			}
		}
	}
	var out []openapi.Route
	for _, r := range t.routes {
		if !r.plain || r.rf.Dynamic() || strings.HasPrefix(r.rf.Pattern()+"/", "/_endpoints/") {
			continue
		}
		op := openapi.Route{Method: r.rf.Method, Path: r.rf.OpenAPIPath(), File: r.file, Plain: true}
		if op.Method == "" {
			taken := claimed[r.rf.Pattern()]
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

// withoutMeta returns the plain operations that the routes configuration
// gives no "plainRoutes" entry.
func withoutMeta(ops []openapi.Route, cfg *openapi.RoutesConfig) []openapi.Route {
	var out []openapi.Route
	for _, op := range ops {
		if cfg == nil || cfg.PlainRoutes[openapi.ClientPath(op.Path)] == nil {
			out = append(out, op)
		}
	}
	return out
}

// plainProblems applies the plain routes policy: under "warn" it logs
// each plain route without meta, under "require" it returns a problem for
// each, naming its file.
func (h *Host) plainProblems(t *table) []error {
	policy := t.set.plainRoutes()
	if policy != config.PlainRoutesWarn && policy != config.PlainRoutesRequire {
		return nil
	}
	var problems []error
	for _, op := range withoutMeta(plainOperations(t), t.routesConfig) {
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

// document is one built OpenAPI document, ready to serve.
type document struct {
	json []byte
	etag string
	doc  *openapi.Document
}

// buildDocument builds the document of a table: the contracts, the routes
// configuration, then the runtime declaration's fragment and extend step
// (unless t.runtimeDocOut leaves them out), then the security schemes
// endpoints.json configures (package schemedoc), then the embedder's.
func (h *Host) buildDocument(ctx context.Context, t *table) (*document, error) {
	doc, err := buildRoutesDocument(t, h.opts.Mode)
	if err != nil {
		return nil, err
	}
	return finishDocument(ctx, t, doc)
}

// buildRoutesDocument is the first step of buildDocument: the document of
// the table's routes and routes configuration alone, for a host running in
// mode.
func buildRoutesDocument(t *table, mode Mode) (*openapi.Document, error) {
	var ops []openapi.Route
	for _, r := range t.routes {
		if r.plain {
			continue
		}
		methods := make([]string, 0, len(r.ops))
		for m := range r.ops {
			methods = append(methods, m)
		}
		slices.Sort(methods)
		for _, m := range methods {
			ops = append(ops, openapi.Route{
				Method:     m,
				Path:       r.rf.OpenAPIPath(),
				File:       r.file,
				Contract:   r.ops[m].contract,
				Defs:       r.mod.contract.Defs,
				Negotiates: r.ops[m].negotiates(),
			})
		}
	}
	if t.set.plainRoutes() != config.PlainRoutesExclude {
		ops = append(ops, plainOperations(t)...)
	}
	cfg := t.set.openAPI()
	opts := openapi.Options{Title: cfg.Title, Version: cfg.Version, Routes: edge.RoutesWithMiddleware(t.routesConfig, middlewareDecls(t.middleware), ops), SpecVersion: t.set.specVersion()}
	if rc := opts.Routes; rc != nil && rc.PlainRoutes != nil && t.set.plainRoutes() == config.PlainRoutesExclude {
		// Excluded plain routes keep their meta for when they are included
		// again: it names no operation of this document.
		c := *rc
		c.PlainRoutes = nil
		opts.Routes = &c
	}
	if mode == Development {
		// A pattern left behind by a deleted route must not take the app
		// down while it is being edited; a production load refuses it.
		opts.Unmatched = func(err error) {
			t.warnings = append(t.warnings, fmt.Errorf("%w: ignored in development; a production start (endpoints serve) refuses it: remove or fix the entry", err))
		}
	}
	doc, err := openapi.Build(ops, opts)
	if err != nil {
		return nil, err
	}
	// endpoints.json's description and servers, which a runtime
	// declaration's fragment may still replace.
	doc.Info.Description = cfg.Description
	for _, sv := range cfg.Servers {
		doc.Servers = append(doc.Servers, &openapi.Server{URL: sv.URL, Description: sv.Description})
	}
	return doc, nil
}

// finishDocument adds to the routes' document what buildDocument adds
// after them.
func finishDocument(ctx context.Context, t *table, doc *openapi.Document) (*document, error) {
	if rm := t.runtime; rm != nil && rm.decl.OpenAPI != nil && t.runtimeDocOut == nil {
		if frag := rm.decl.OpenAPI.Document; len(frag) > 0 {
			if err := doc.Merge(frag); err != nil {
				return nil, fmt.Errorf("%s: openApi.document: %w", abi.RuntimeModule, err)
			}
		}
		if rm.decl.OpenAPI.Extend {
			b, err := marshalDocument(doc)
			if err != nil {
				return nil, err
			}
			out, err := rm.runExtend(ctx, b, time.Now().Add(limitTimeout(t.set.opts.Limits)).UnixNano())
			if err != nil {
				return nil, err
			}
			var edited openapi.Document
			if err := json.Unmarshal(out, &edited); err != nil {
				return nil, fmt.Errorf("%s: openApi.extend wrote a document that does not decode: %v", abi.RuntimeModule, err)
			}
			doc = &edited
		}
	}
	// The schemes endpoints.json configures declare themselves, after the
	// runtime declaration, whose declaration of one wins if it agrees.
	if err := schemedoc.Apply(doc, auth.ConfigMap(t.set.security), config.File); err != nil {
		return nil, err
	}
	if frag := t.set.opts.OpenAPI.Document; len(frag) > 0 {
		if err := doc.Merge(frag); err != nil {
			return nil, fmt.Errorf("Options.OpenAPI.Document: %w", err)
		}
	}
	if ext := t.set.opts.OpenAPI.Extend; ext != nil {
		if err := ext(doc); err != nil {
			return nil, fmt.Errorf("Options.OpenAPI.Extend: %w", err)
		}
	}
	b, err := marshalDocument(doc)
	if err != nil {
		return nil, err
	}
	return newDocument(b, doc), nil
}

// newDocument is the served form of doc, encoded as b.
func newDocument(b []byte, doc *openapi.Document) *document {
	sum := sha256.Sum256(b)
	return &document{json: b, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, doc: doc}
}

// marshalDocument encodes deterministically: the same app gives the same
// bytes.
func marshalDocument(doc *openapi.Document) ([]byte, error) {
	b, err := doc.MarshalIndent()
	if err != nil {
		return nil, fmt.Errorf("encoding the OpenAPI document: %w", err)
	}
	return b, nil
}

// Document returns the app's OpenAPI document as served, whether or not
// the schema route is enabled.
func (h *Host) Document() []byte {
	if d := h.table.Load().doc; d != nil {
		return d.json
	}
	return nil
}

// openAPIServed reports whether the schema route is served in this mode:
// in development unless disabled, in production only when enabled.
func (s *settings) openAPIServed() bool {
	o := s.openAPI()
	if o.Enabled != nil {
		return *o.Enabled
	}
	return s.opts.Mode == Development
}

func (s *settings) openAPIPath() string { return s.openAPI().Path }

// serveDocument answers the schema route: the document with an ETag, 304
// when the client has it (RFC 9110 §13.1.2).
func serveDocument(w http.ResponseWriter, r *http.Request, d *document) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		allow := []string{"GET", "HEAD"}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, r, http.StatusMethodNotAllowed, "", map[string]any{"method": r.Method, "allow": allow})
		return
	}
	hdr := w.Header()
	hdr.Set("ETag", d.etag)
	hdr.Set("Cache-Control", "no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), d.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", fmt.Sprint(len(d.json)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(d.json)
	}
}

// etagMatches implements the weak comparison of If-None-Match.
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// documentProblem explains, in development (mode), why there is no
// document.
func documentProblem(t *table, mode Mode) any {
	if mode != Development || t.docErr == nil {
		return nil
	}
	return map[string]string{"error": t.docErr.Error()}
}
