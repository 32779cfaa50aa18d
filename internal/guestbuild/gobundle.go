package guestbuild

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// BundleModule is the module the Go routes of an app build into when they
// are bundled (endpoints.json "build": {"goBundle": true}, the default).
const BundleModule = abi.BundleDir + "/go.wasm"

// BundleGo returns sources with its Go routes (those whose module is a
// route of server/api or server/routes) and Go middleware (modules of
// server/middleware) replaced by one source that builds them all into
// BundleModule, listing them in Routes; not the runtime declaration.
// Without Go routes it returns sources as they are.
func BundleGo(sources []Source) []Source { return BundleGoBy(sources, nil) }

// BundleGoBy is BundleGo with the Go routes split among bundles:
// bundleOf(dir) is the bundle module (server/bundles/NAME.wasm) the
// package in dir builds into; nil, or "", means BundleModule. The bundles
// take the place of the first Go route, sorted by module. A bundle of
// middleware alone (a bundle declares at least one route) gives them to
// the first bundle with routes.
func BundleGoBy(sources []Source, bundleOf func(dir string) string) []Source {
	if !slices.ContainsFunc(sources, func(s Source) bool { return s.Lang == LangGo && len(s.Routes) == 0 && isRouteModule(s.Module) }) {
		return sources
	}
	var out []Source
	groups := map[string][]Source{}
	at := -1
	for _, s := range sources {
		if s.Lang == LangGo && len(s.Routes) == 0 && (isRouteModule(s.Module) || isMiddlewareModule(s.Module)) {
			if at < 0 {
				at = len(out)
			}
			module := ""
			if bundleOf != nil {
				module = bundleOf(s.Path)
			}
			if module == "" {
				module = BundleModule
			}
			groups[module] = append(groups[module], s)
			continue
		}
		out = append(out, s)
	}
	modules := slices.Sorted(maps.Keys(groups))
	hasRoutes := func(m string) bool {
		return slices.ContainsFunc(groups[m], func(r Source) bool { return isRouteModule(r.Module) })
	}
	first := modules[slices.IndexFunc(modules, hasRoutes)]
	var bundles []Source
	for _, m := range modules {
		if !hasRoutes(m) {
			groups[first] = append(groups[first], groups[m]...)
		}
	}
	for _, m := range modules {
		if hasRoutes(m) {
			bundles = append(bundles, Source{Lang: LangGo, Path: commonDir(groups[m]), Module: m, Routes: groups[m]})
		}
	}
	return slices.Insert(out, at, bundles...)
}

// Contents says what a bundle source builds ("34 routes, 1 middleware"),
// for the lines build and dev print; "" for a source of one module.
func (s Source) Contents() string {
	if len(s.Routes) == 0 {
		return ""
	}
	var routes, mws int
	for _, r := range s.Routes {
		if isMiddlewareModule(r.Module) {
			mws++
		} else {
			routes++
		}
	}
	out := plural(routes, "route", "routes")
	if mws > 0 {
		out += ", " + plural(mws, "middleware", "middleware")
	}
	return out
}

// plural is n and the noun's form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// isRouteModule reports whether module is a route module named by its
// file (server/api, server/routes).
func isRouteModule(module string) bool {
	return strings.HasPrefix(module, "server/api/") || strings.HasPrefix(module, "server/routes/")
}

// isMiddlewareModule reports whether module is a middleware module
// (server/middleware/NAME.wasm), which a bundle serves as well
// (abi.Bundle.Middleware).
func isMiddlewareModule(module string) bool {
	dir, name := path.Split(module)
	return dir == abi.MiddlewareDir+"/" && strings.HasSuffix(name, routefile.Extension)
}

// commonDir is the deepest directory holding every route's package, for
// messages: "handlers" for handlers/get-user and handlers/create-user.
func commonDir(routes []Source) string {
	dir := routes[0].Path
	for _, r := range routes[1:] {
		for dir != "." && r.Path != dir && !strings.HasPrefix(r.Path, dir+"/") {
			dir = path.Dir(dir)
		}
	}
	return dir
}

// bundlePackage is the package name a route's package main is renamed to
// when it is bundled, and bundleMainDir the directory, relative to the
// app and present only in the overlay, of the generated main package.
// Find never lists a directory starting with "_", so no route sits there.
const (
	bundlePackage = "route"
	bundleMainDir = "_endpoints_bundle"
	// bundleFile is the file added to each route package: a package's
	// variables are initialised in the order of its files' names, and
	// digits sort first.
	bundleFile = "00_endpoints_bundle.go"
)

// GoBundle builds the Go routes into one module at out (module, relative
// to the app, names it in errors): a main package
// generated under the app imports each route's package, whose files are
// seen by the compiler, through `go build -overlay`, with `package main`
// renamed and one more file that tells the SDK which route the package's
// handlers serve (endpoints.BundleRoute). The sources on disk are not
// touched:
//
//	GOOS=wasip1 GOARCH=wasm go build -overlay OVERLAY -buildmode=c-shared -trimpath -ldflags='-s -w' -o out ./_endpoints_bundle
//
// The routes must all be in the Go module that holds the app.
func GoBundle(ctx context.Context, appDir, module string, routes []Source, out string) error {
	_, err := goBundle(ctx, appDir, module, routes, out, nil)
	return err
}

// goBundle is GoBundle linking, for each route whose path failed has, a
// package that declares it failed with that text (failedPackage) in
// place of the route's own. It returns the import path of each route's
// package in the build (the route's own or its stand-in), which the
// compiler's errors name.
func goBundle(ctx context.Context, appDir, module string, routes []Source, out string, failed map[string]string) (imports map[string]Source, err error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("build Go bundle %s: %w (install Go 1.24 or newer)", module, err)
	}
	if out, err = filepath.Abs(out); err != nil {
		return nil, err
	}
	app, err := filepath.Abs(appDir)
	if err != nil {
		return nil, err
	}
	modDir, modPath, err := goModule(app)
	if err != nil {
		return nil, fmt.Errorf("build Go bundle %s: %w", module, err)
	}
	tmp, err := os.MkdirTemp("", "endpoints-bundle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	replace := map[string]string{}
	// The compiler names the overlay's copies: its errors are rewritten to
	// name the sources, relative to the app.
	var names []string
	add := func(file string, data []byte) error {
		copyPath := filepath.Join(tmp, strconv.Itoa(len(replace))+".go")
		if err := os.WriteFile(copyPath, data, 0o644); err != nil {
			return err
		}
		replace[file] = copyPath
		rel, err := filepath.Rel(app, file)
		if err != nil {
			rel = file
		}
		names = append(names, copyPath, filepath.ToSlash(rel))
		// go prints a path relative to its directory when that is shorter.
		if relCopy, err := filepath.Rel(app, copyPath); err == nil {
			names = append(names, relCopy, filepath.ToSlash(rel))
		}
		return nil
	}
	var main strings.Builder
	main.WriteString("// Code generated by endpoints build: the Go routes of the app in one module. DO NOT EDIT.\n\npackage main\n\nimport (\n")
	imports = map[string]Source{}
	for i, r := range routes {
		dir := filepath.Join(app, filepath.FromSlash(r.Path))
		if text, ok := failed[r.Path]; ok {
			// Its own package does not compile: a package that declares
			// the route failed stands in for it.
			dir = filepath.Join(app, bundleMainDir, "failed", strconv.Itoa(i))
			route, src, err := failedPackage(r, text)
			if err != nil {
				return nil, err
			}
			if err := add(filepath.Join(dir, "failed.go"), src); err != nil {
				return nil, err
			}
			importPath, err := importPathOf(modDir, modPath, dir)
			if err != nil {
				return nil, fmt.Errorf("build Go bundle %s: route %s: %w", module, r.Path, err)
			}
			imports[importPath] = r
			fmt.Fprintf(&main, "\t_ %q // %s, which does not compile\n", importPath, route)
			continue
		}
		importPath, err := importPathOf(modDir, modPath, dir)
		if err != nil {
			return nil, fmt.Errorf("build Go bundle %s: route %s: %w", module, r.Path, err)
		}
		imports[importPath] = r
		files, err := goFiles(dir)
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("build Go bundle %s: route %s: no .go files (%v)", module, r.Path, err)
		}
		// Test files too: go build reads their package clauses, and one
		// still saying main would be a second package in the directory.
		tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			return nil, err
		}
		var inits []string // the route's init functions, renamed
		for _, f := range append(files, tests...) {
			src, err := renamedPackage(f)
			if err != nil {
				return nil, fmt.Errorf("build Go bundle %s: route %s: %w", module, r.Path, err)
			}
			if isRouteModule(r.Module) && !strings.HasSuffix(f, "_test.go") && builtForWasm(f) {
				var names []string
				src, names = renamedInits(f, src, len(inits))
				inits = append(inits, names...)
			}
			if err := add(f, src); err != nil {
				return nil, err
			}
		}
		route, gen, err := bundleEntry(r)
		if err != nil {
			return nil, err
		}
		if isRouteModule(r.Module) {
			gen = fmt.Appendf(gen, "\n// Its init functions, renamed: a panic in one fails this route alone.\nfunc init() { endpoints.BundleInit(%s) }\n", strings.Join(append([]string{strconv.Quote(r.Path)}, inits...), ", "))
		}
		if err := add(filepath.Join(dir, bundleFile), gen); err != nil {
			return nil, err
		}
		fmt.Fprintf(&main, "\t_ %q // %s\n", importPath, route)
	}
	main.WriteString(")\n\nfunc main() {}\n")
	if err := add(filepath.Join(app, bundleMainDir, "main.go"), []byte(main.String())); err != nil {
		return nil, err
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return nil, err
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return nil, err
	}
	err = runToolchain(ctx, "build Go bundle "+module+" of", appDir, out, func(tmpOut string) *exec.Cmd {
		args := append([]string{"build", "-overlay", overlayFile}, GoFlags...)
		args = append(args, "-o", tmpOut, "./"+bundleMainDir)
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = app
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		return cmd
	}, nil)
	if err != nil {
		return imports, &sourceNamedError{msg: explainGenerated(strings.NewReplacer(names...).Replace(err.Error())), err: err}
	}
	return imports, nil
}

// explainGenerated adds to msg, a failed bundle build's error, what the
// file the build adds to each route package is when msg names it: a file
// the developer never saw, and that is not on disk (the compiler names it
// when the app's go.mod lacks the Go SDK, which it imports first).
func explainGenerated(msg string) string {
	if !strings.Contains(msg, "/"+bundleFile+":") {
		return msg
	}
	note := bundleFile + " is the file endpoints build adds to each route package of a bundle, only while it builds: it calls the Go SDK to register the route"
	if strings.Contains(msg, "no required module provides package "+sdkImport) {
		note += "; the app's go.mod must require the SDK's module: go get github.com/wasmendpoints/endpoints in the app"
	}
	return msg + "\n(" + note + ")"
}

// BundleEntry is what the bundle built from r declares of it: its route
// ("GET /api/users/:id"), or "middleware NAME" for a middleware.
func BundleEntry(r Source) (string, error) {
	what, _, err := bundleEntry(r)
	return what, err
}

// bundleEntry is what the generated main package's import of the Go
// source r says it is (its route, or "middleware NAME") and the file
// added to its package, which makes what it registers one entry of the
// bundle: a route (endpoints.BundleRoute) or a middleware
// (endpoints.BundleMiddleware).
func bundleEntry(r Source) (what string, file []byte, err error) {
	const head = "// Code generated by endpoints build for the Go bundle. DO NOT EDIT.\n\npackage %s\n\nimport endpoints %q\n\n"
	if isMiddlewareModule(r.Module) {
		name := strings.TrimSuffix(path.Base(r.Module), routefile.Extension)
		return "middleware " + name, fmt.Appendf(nil, head+"// The middleware this package declares is %s.\nvar _ = endpoints.BundleMiddleware(%q)\n", bundlePackage, sdkImport, r.Module, name), nil
	}
	route, err := routeOf(r)
	if err != nil {
		return "", nil, err
	}
	return route, fmt.Appendf(nil, head+"// The handlers this package registers serve %s.\nvar _ = endpoints.BundleRoute(%q)\n", bundlePackage, sdkImport, route, route), nil
}

// sdkImport is the import path of the Go SDK.
const sdkImport = "github.com/wasmendpoints/endpoints/guest-sdk/go"

// routeOf is the route of a Go route source in the directive's form, from
// its module's file name.
func routeOf(s Source) (string, error) {
	r, err := routefile.Parse(s.Module)
	if err != nil {
		return "", err
	}
	return r.String(), nil
}

// renamedPackage returns the source of file with its package clause
// renamed from main to bundlePackage (main_test, in a test file, to
// bundlePackage_test), so that the generated main package can import it.
// Everything else, line numbers included, stays.
func renamedPackage(file string) ([]byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.PackageClauseOnly)
	if err != nil {
		return nil, err
	}
	name, suffix := f.Name.Name, ""
	if strings.HasSuffix(file, "_test.go") {
		name, suffix, _ = strings.Cut(name, "_")
		if suffix != "" {
			suffix = "_" + suffix // package main_test: an external test
		}
	}
	if name != "main" {
		return nil, fmt.Errorf("%s: package %s: a Go route is a main package (package main)", filepath.Base(file), f.Name.Name)
	}
	off := fset.Position(f.Name.Pos()).Offset
	out := make([]byte, 0, len(src)+len(bundlePackage))
	out = append(out, src[:off]...)
	out = append(out, bundlePackage+suffix...)
	return append(out, src[off+len(f.Name.Name):]...), nil
}

// initPrefix begins the names renamedInits gives a route's init
// functions, numbered from 0 in the order Go would run them.
const initPrefix = "_endpointsInit"

// renamedInits returns src, the source of the route file file, with each
// of its init functions renamed initPrefix+N, N counting from first, and
// their new names in order: the file the build adds to the package runs
// them under endpoints.BundleInit, so that a panic in one fails the
// route, not the bundle. Only the names change: every line keeps its
// number. A file that does not parse is returned as it is, for the
// compiler to say what is wrong, as it would of a route built alone.
func renamedInits(file string, src []byte, first int) ([]byte, []string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return src, nil
	}
	var out []byte
	var names []string
	last := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "init" {
			continue
		}
		name := initPrefix + strconv.Itoa(first+len(names))
		off := fset.Position(fn.Name.Pos()).Offset
		out = append(append(out, src[last:off]...), name...)
		last = off + len("init")
		names = append(names, name)
	}
	if names == nil {
		return src, nil
	}
	return append(out, src[last:]...), names
}

// builtForWasm reports whether go build, for GOOS=wasip1 GOARCH=wasm,
// compiles the Go file file: its name's suffixes and build constraints
// allow it.
func builtForWasm(file string) bool {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "wasip1", "wasm", false
	ok, err := ctx.MatchFile(filepath.Dir(file), filepath.Base(file))
	return err == nil && ok
}

// goModule finds the Go module holding dir: its directory and path.
func goModule(dir string) (string, string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		f, err := os.Open(filepath.Join(d, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
					p := strings.TrimSpace(rest)
					if unq, err := strconv.Unquote(p); err == nil {
						p = unq
					}
					return d, p, nil
				}
			}
			return "", "", fmt.Errorf("%s has no module line", filepath.Join(d, "go.mod"))
		}
		if filepath.Dir(d) == d {
			return "", "", fmt.Errorf("%s is in no Go module: add a go.mod (go mod init) that requires the Go SDK", dir)
		}
	}
}

// importPathOf is the import path of the package in dir, which must be in
// the module at modDir and not in a module of its own.
func importPathOf(modDir, modPath, dir string) (string, error) {
	rel, err := filepath.Rel(modDir, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("not inside the Go module at %s", modDir)
	}
	for d := dir; d != modDir; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return "", fmt.Errorf("it is a Go module of its own (%s): a bundle links the packages of the app's module; move it into that module, or set \"build\": {\"goBundle\": false} in %s", filepath.Join(d, "go.mod"), "endpoints.json")
		}
	}
	if rel == "." {
		return modPath, nil
	}
	return modPath + "/" + filepath.ToSlash(rel), nil
}

// sourceNamedError is a build error whose text names the sources where the
// compiler named the overlay's copies; it unwraps to the original.
type sourceNamedError struct {
	msg string
	err error
}

func (e *sourceNamedError) Error() string { return e.msg }
func (e *sourceNamedError) Unwrap() error { return e.err }
