package edge

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Middleware is a loaded module of server/middleware: code that wraps the
// handlers of the routes its declaration selects (abi.ExportBefore,
// abi.ExportAfter), or verifies a security scheme's credentials
// (abi.ExportVerify). [LoadMiddleware] makes one; the host runs its
// exports through [Before], [After] and a guard's scheme.
type Middleware struct {
	// File is the module's file in the app, such as
	// server/middleware/10-audit.wasm; Name is its base name without
	// .wasm (10-audit), as x-endpoints-verifier names it.
	File, Name string
	// Pool holds the module's instances; requests use a lane of it per
	// route ([Middleware.Lane]).
	Pool *engine.Pool
	// Decl is the module's declaration (abi.ExportMiddleware): the routes
	// and methods it wraps, its phases and the answers it documents.
	Decl abi.Middleware
	// Index is its place in the declaration of the bundle that serves it
	// (abi.Bundle.Middleware), on the bundle's pool; -1 for a module of
	// its own.
	Index int
	// Database: its module imports the host's database functions
	// (engine.UsesDatabase; a bundle's middleware, the bundle's), so
	// the requests it wraps may be answered 503 while its database is
	// down or waits for its migrations.
	Database bool
	// before, after and verifies say which exports it has.
	before, after, verifies bool
}

// Applies reports whether m wraps requests to the route (client form)
// with method.
func (m *Middleware) Applies(route, method string) bool {
	if len(m.Decl.Methods) > 0 && !slices.Contains(m.Decl.Methods, method) &&
		!(method == http.MethodHead && slices.Contains(m.Decl.Methods, http.MethodGet)) {
		return false
	}
	if len(m.Decl.Routes) == 0 {
		return true
	}
	for _, p := range m.Decl.Routes {
		if openapi.MatchRoutePattern(p, route) {
			return true
		}
	}
	return false
}

// FindMiddleware lists the *.wasm files of server/middleware, in byte
// order of their names.
func FindMiddleware(appDir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(appDir, filepath.FromSlash(abi.MiddlewareDir)))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.Type()&fs.ModeType == 0 && strings.HasSuffix(e.Name(), routefile.Extension) {
			files = append(files, path.Join(abi.MiddlewareDir, e.Name()))
		}
	}
	slices.Sort(files)
	return files, nil
}

// LoadMiddleware compiles a middleware module, checks its exports and
// reads its declaration.
func LoadMiddleware(ctx context.Context, e *engine.Engine, wasm []byte, file string, poolSize int) (*Middleware, error) {
	c, err := e.Prepare(ctx, wasm, file, true)
	if err != nil {
		return nil, err
	}
	compiled := c.Compiled()
	m := &Middleware{File: file, Name: strings.TrimSuffix(path.Base(file), routefile.Extension), Index: -1, Database: engine.UsesDatabase(wasm)}
	if err := m.checkExports(compiled.ExportedFunctions(), compiled.ExportedMemories()); err != nil {
		_ = c.Close(ctx)
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	m.Pool = e.NewPool(c, file, poolSize, true)
	lc := e.LoadCall(ctx, file)
	in, err := m.Pool.Warm(lc)
	if err != nil {
		_ = c.Close(ctx)
		return nil, err
	}
	fail := func(err error) (*Middleware, error) {
		in.Close(ctx)
		_ = c.Close(ctx)
		return nil, err
	}
	if err := engine.CheckVersion(in, lc, file); err != nil {
		return fail(err)
	}
	if in.Mod.ExportedFunction(abi.ExportMiddleware) != nil {
		b, err := engine.ExportedBytes(in, lc, file, abi.ExportMiddleware, abi.ContractMaxBytes)
		if err != nil {
			return fail(err)
		}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &m.Decl, json.RejectUnknownMembers(true)); err != nil {
				return fail(fmt.Errorf("%s: middleware declaration: %v (allowed keys: routes, methods, phases, responses)", file, err))
			}
		} else {
			return fail(fmt.Errorf("%s: %s returned no declaration: a Go middleware calls endpoints.DeclareMiddleware from init; a module meant for every route may leave the export out", file, abi.ExportMiddleware))
		}
		if len(m.Decl.Phases) > 0 {
			has := map[string]*bool{abi.PhaseBefore: &m.before, abi.PhaseAfter: &m.after, abi.PhaseVerify: &m.verifies}
			exported := map[string]bool{abi.PhaseBefore: m.before, abi.PhaseAfter: m.after, abi.PhaseVerify: m.verifies}
			for _, p := range []string{abi.PhaseBefore, abi.PhaseAfter, abi.PhaseVerify} {
				*has[p] = false
			}
			for i, p := range m.Decl.Phases {
				flag, ok := has[p]
				switch {
				case !ok:
					return fail(fmt.Errorf("%s: middleware declaration: /phases/%d: %q: want \"before\", \"after\" or \"verify\"", file, i, p))
				case !exported[p]:
					return fail(fmt.Errorf("%s: middleware declaration: /phases/%d: %q, but the module does not export endpoints_%s", file, i, p, p))
				}
				*flag = true
			}
		}
		if err := m.checkDeclaration(); err != nil {
			return fail(err)
		}
	}
	m.Pool.Park(in)
	e.CompileLater(m.Pool)
	return m, nil
}

// BundledMiddleware makes the middleware a bundle declares at index
// (abi.Bundle.Middleware), served by the bundle's pool through its
// abi.ExportBeforeRoute, abi.ExportAfterRoute and abi.ExportVerifyRoute.
// where names the entry in errors, such as "server/bundles/go.wasm:
// /middleware/0".
func BundledMiddleware(bundle, where string, pool *engine.Pool, index int, bm abi.BundleMiddleware) (*Middleware, error) {
	if bm.Name == "" || strings.ContainsAny(bm.Name, "/\\ ") || strings.HasSuffix(bm.Name, routefile.Extension) {
		return nil, fmt.Errorf("%s/name: %q: want the name its module would have in %s, without %s (\"10-audit\")", where, bm.Name, abi.MiddlewareDir, routefile.Extension)
	}
	m := &Middleware{File: fmt.Sprintf("%s (middleware %s)", bundle, bm.Name), Name: bm.Name, Pool: pool, Decl: bm.Declaration, Index: index}
	if len(m.Decl.Phases) == 0 {
		return nil, fmt.Errorf("%s/declaration/phases: empty: a bundle's middleware lists the phases it implements, of \"before\", \"after\" and \"verify\"", where)
	}
	for j, p := range m.Decl.Phases {
		switch p {
		case abi.PhaseBefore:
			m.before = true
		case abi.PhaseAfter:
			m.after = true
		case abi.PhaseVerify:
			m.verifies = true
		default:
			return nil, fmt.Errorf("%s/declaration/phases/%d: %q: want \"before\", \"after\" or \"verify\"", where, j, p)
		}
	}
	if err := m.checkDeclaration(); err != nil {
		return nil, err
	}
	return m, nil
}

// checkDeclaration checks what the declaration selects (route patterns,
// methods) and the answers it declares; errors name m.File.
func (m *Middleware) checkDeclaration() error {
	for i, p := range m.Decl.Routes {
		if err := openapi.CheckRoutePattern(p); err != nil {
			return fmt.Errorf("%s: middleware declaration: /routes/%d: pattern %q: %v", m.File, i, p, err)
		}
	}
	for i, meth := range m.Decl.Methods {
		if !slices.Contains(routefile.Methods, strings.ToLower(meth)) || meth != strings.ToUpper(meth) {
			return fmt.Errorf("%s: middleware declaration: /methods/%d: %q: want an upper-case method such as \"POST\"", m.File, i, meth)
		}
	}
	return CheckMiddlewareResponses(m.File, m.Decl.Responses)
}

// Call calls one export of the middleware (abi.ExportBefore, ExportAfter
// or ExportVerify) on an instance of its pool, for the call ctx: its own
// module's export, or the bundle's for its index.
func (m *Middleware) Call(ctx context.Context, in *engine.Instance, export string) ([]uint64, error) {
	if m.Index < 0 {
		fn := in.Before
		switch export {
		case abi.ExportAfter:
			fn = in.After
		case abi.ExportVerify:
			fn = in.Verify
		}
		return fn.Call(ctx)
	}
	fn, name := in.BeforeRoute, abi.ExportBeforeRoute
	switch export {
	case abi.ExportAfter:
		fn, name = in.AfterRoute, abi.ExportAfterRoute
	case abi.ExportVerify:
		fn, name = in.VerifyRoute, abi.ExportVerifyRoute
	}
	if fn == nil {
		return nil, fmt.Errorf("%s: the bundle declares middleware %q but does not export %q (abi/README.md §9)", m.File, m.Name, name)
	}
	return fn.Call(ctx, uint64(m.Index))
}

// checkExports checks the exports of a middleware module and records
// which of before, after and verify it has.
func (m *Middleware) checkExports(fns map[string]api.FunctionDefinition, mems map[string]api.MemoryDefinition) error {
	i32 := []api.ValueType{api.ValueTypeI32}
	check := func(name string, results []api.ValueType) (bool, error) {
		fn, ok := fns[name]
		if !ok {
			return false, nil
		}
		if len(fn.ParamTypes()) != 0 || !engine.SameTypes(fn.ResultTypes(), results) {
			return false, fmt.Errorf("export %q has signature %s, ABI v%d wants %s", name, engine.Signature(fn.ParamTypes(), fn.ResultTypes()), abi.Version, engine.Signature(nil, results))
		}
		return true, nil
	}
	var err error
	if ok, e := check(abi.ExportABIVersion, i32); e != nil || !ok {
		if e != nil {
			return e
		}
		return fmt.Errorf("not an Endpoints middleware module: missing export %q (ABI v%d); build it with an Endpoints SDK", abi.ExportABIVersion, abi.Version)
	}
	if _, err = check(abi.ExportMiddleware, []api.ValueType{api.ValueTypeI64}); err != nil {
		return err
	}
	if m.before, err = check(abi.ExportBefore, i32); err != nil {
		return err
	}
	if m.after, err = check(abi.ExportAfter, i32); err != nil {
		return err
	}
	if m.verifies, err = check(abi.ExportVerify, i32); err != nil {
		return err
	}
	if !m.before && !m.after && !m.verifies {
		return fmt.Errorf("not an Endpoints middleware module: it exports none of %q, %q and %q", abi.ExportBefore, abi.ExportAfter, abi.ExportVerify)
	}
	if _, ok := mems[abi.ExportMemory]; !ok {
		return fmt.Errorf("not an Endpoints middleware module: missing exported memory %q", abi.ExportMemory)
	}
	return nil
}

// Lane is the share of m's instances the requests to a route use, by the
// route's name (its file, and in a bundle its route; "" outside a route):
// a lane per route, each as large as the route's own, so that slow calls
// for one route never stall the middleware for another (engine.Lane).
func (m *Middleware) Lane(route string) *engine.Lane {
	return m.Pool.Lane(route, "")
}

// MiddlewareNamed returns the module of mws named name (its file name
// without .wasm), or nil.
func MiddlewareNamed(mws []*Middleware, name string) *Middleware {
	for _, m := range mws {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Chain lists the modules of mws that wrap a request to the route
// pattern (client form) with method, in order: those with a before or an
// after export whose declaration selects it.
func Chain(mws []*Middleware, pattern, method string) []*Middleware {
	if len(mws) == 0 {
		return nil
	}
	var out []*Middleware
	for _, m := range mws {
		if (m.before || m.after) && m.Applies(pattern, method) {
			out = append(out, m)
		}
	}
	return out
}
