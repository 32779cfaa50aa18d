// Package guestbuild builds route modules from their sources: Go with the Go
// toolchain, C with clang and wasi-libc, AssemblyScript with the app's asc,
// Rust with rustc and its wasm32 standard library, WAT with wat2wasm.
//
// A Go route is an ordinary main package anywhere in the app that says which
// route it serves with a directive, in the form `endpoints routes` prints:
//
//	//endpoints:route GET /api/users/:id
//	package main
//
// builds server/api/users/[id].get.wasm (routefile.FromRoute gives the
// mapping). Go sources cannot sit in directories named like the modules:
// [id].get is not a valid Go import path, and `go mod tidy` fails on it.
//
// C, AssemblyScript, Rust and WAT sources sit beside the modules they
// build, named like them:
//
//	server/api/users/[id].get.c    → server/api/users/[id].get.wasm
//	server/api/users/index.post.ts → server/api/users/index.post.wasm
//	server/api/users/index.get.rs  → server/api/users/index.get.wasm
//	server/routes/hello.get.wat    → server/routes/hello.get.wasm
//
// The runtime declaration's source in those languages is
// server/endpoints/runtime.{c,wat,ts,rs}, building abi.RuntimeModule.
//
// Every .ts and .rs file under the route directories is a route source;
// code that AssemblyScript or Rust routes share lives outside them (e.g.
// lib/users.ts, lib/users.rs).
package guestbuild

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// Directive marks a Go main package as a route's source.
const Directive = "//endpoints:route"

// RuntimeDirective marks a Go main package as the app's runtime declaration,
// built to abi.RuntimeModule.
const RuntimeDirective = "//endpoints:runtime"

// MiddlewareDirective marks a Go main package as a middleware module:
// "//endpoints:middleware 10-audit" builds server/middleware/10-audit.wasm.
const MiddlewareDirective = "//endpoints:middleware"

// Language of a route source.
type Language string

// Languages guestbuild builds.
const (
	LangGo  Language = "go"
	LangC   Language = "c"
	LangWAT Language = "wat"
	// LangAS is AssemblyScript.
	LangAS   Language = "assemblyscript"
	LangRust Language = "rust"
)

// Source is one route's source and the module it builds.
type Source struct {
	Lang Language
	// Path is the source directory (Go) or file, relative to the app, with
	// forward slashes.
	Path string
	// Module is the .wasm it builds, relative to the app.
	Module string
	// Routes are the Go routes a bundle (BundleGo) builds into Module,
	// each with the module it builds alone; nil for any other source.
	// Path is then the directory that holds them all.
	Routes []Source
	// Directive is where a Go source's //endpoints:route line is, as
	// "handlers/users/get/main.go:3" (relative to the app): the file that
	// says which route its package serves, which `endpoints routes`
	// shows. "" for any other source, and for a bundle.
	Directive string
}

// owns reports whether the Go source s (or a route of its bundle) is the
// package in dir.
func (s Source) owns(dir string) bool {
	if s.Lang != LangGo {
		return false
	}
	if len(s.Routes) == 0 {
		return s.Path == dir
	}
	return slices.ContainsFunc(s.Routes, func(r Source) bool { return r.Path == dir })
}

// vanished is what a walk of the app does with err, met reading a
// directory: one gone since its parent was read (a route directory the
// app lacks, a build's directory beside its module, removed once the
// module is renamed out of it, a package deleted meanwhile) holds no
// source, and the walk goes on; any other error stops it.
func vanished(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return filepath.SkipDir
	}
	return err
}

// RouteDirs are the directories searched for C, AssemblyScript, Rust and
// WAT sources, relative to the app.
var RouteDirs = []string{"server/api", "server/routes", abi.MiddlewareDir}

// Find lists the route sources of the app, sorted by module. Go routes are
// found anywhere in the app except in directories Go ignores (hidden, _,
// testdata) and vendor or node_modules.
func Find(appDir string) ([]Source, error) {
	var out []Source
	err := filepath.WalkDir(appDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return vanished(err)
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != appDir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(appDir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		src, err := goRoute(path, rel)
		if err != nil {
			return err
		}
		if src != nil {
			out = append(out, *src)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, root := range RouteDirs {
		dir := filepath.Join(appDir, filepath.FromSlash(root))
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return vanished(err)
			}
			if d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(appDir, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			switch filepath.Ext(path) {
			case ".c":
				out = append(out, Source{Lang: LangC, Path: rel, Module: strings.TrimSuffix(rel, ".c") + ".wasm"})
			case ".wat":
				out = append(out, Source{Lang: LangWAT, Path: rel, Module: strings.TrimSuffix(rel, ".wat") + ".wasm"})
			case ".ts":
				if !strings.HasSuffix(rel, ".d.ts") {
					out = append(out, Source{Lang: LangAS, Path: rel, Module: strings.TrimSuffix(rel, ".ts") + ".wasm"})
				}
			case ".rs":
				out = append(out, Source{Lang: LangRust, Path: rel, Module: strings.TrimSuffix(rel, ".rs") + ".wasm"})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	rt, err := runtimeSources(appDir)
	if err != nil {
		return nil, err
	}
	out = append(out, rt...)
	slices.SortFunc(out, func(a, b Source) int { return strings.Compare(a.Module, b.Module) })
	for i := 1; i < len(out); i++ {
		if out[i].Module != out[i-1].Module {
			continue
		}
		if a, b := out[i-1], out[i]; a.Lang == LangGo && b.Lang == LangGo && isRouteModule(a.Module) {
			// Bundled, the module is never written: the route is what
			// they share.
			if route, err := routeOf(a); err == nil {
				return nil, fmt.Errorf("%s and %s both serve %s (their //endpoints:route lines; alone, each would build %s): keep one of them, or change one's route", a.Path, b.Path, route, a.Module)
			}
		}
		return nil, fmt.Errorf("%s and %s both build %s: keep one of them", out[i-1].Path, out[i].Path, out[i].Module)
	}
	return out, nil
}

// RuntimeSourceBase is the runtime declaration's source path without its
// extension, relative to the app: server/endpoints/runtime.
const RuntimeSourceBase = "server/endpoints/runtime"

// runtimeSources finds the runtime declaration's sources in C, WAT,
// AssemblyScript and Rust: server/endpoints/runtime.{c,wat,ts,rs}, each
// building abi.RuntimeModule (with a Go one, Find reports two sources of
// the module). Whatever the language, the module exports what ABI §6 asks
// of a runtime declaration; the host says at load what one lacks.
func runtimeSources(appDir string) ([]Source, error) {
	base := RuntimeSourceBase
	var out []Source
	for _, l := range []struct {
		ext  string
		lang Language
	}{{".c", LangC}, {".wat", LangWAT}, {".ts", LangAS}, {".rs", LangRust}} {
		rel := base + l.ext
		info, err := os.Stat(filepath.Join(appDir, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		case !info.Mode().IsRegular():
			return nil, fmt.Errorf("%s is not a regular file: the runtime declaration's source must be one", rel)
		}
		out = append(out, Source{Lang: l.lang, Path: rel, Module: abi.RuntimeModule})
	}
	return out, nil
}

// goRoute reads the directive of the Go package in dir, if it has one. A
// directory or a file removed while it reads them has none.
func goRoute(dir, rel string) (*Source, error) {
	files, err := goFiles(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil || len(files) == 0 {
		return nil, err
	}
	var found, foundIn string
	for _, f := range files {
		ds, err := directives(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			where := fmt.Sprintf("%s/%s:%d", rel, filepath.Base(f), d.line)
			if d.route == "" {
				return nil, fmt.Errorf("%s: %s names no route; write it as %s GET /api/users/:id", where, Directive, Directive)
			}
			if found != "" {
				return nil, fmt.Errorf("%s: a second %s (the first is at %s): one package builds one route%s", where, Directive, foundIn, secondRouteHint(found, d.route))
			}
			found, foundIn = d.route, where
		}
	}
	if found == runtimeRoute {
		return &Source{Lang: LangGo, Path: rel, Module: abi.RuntimeModule}, nil
	}
	if name, ok := strings.CutPrefix(found, middlewarePrefix); ok {
		if !validMiddlewareName(name) {
			return nil, fmt.Errorf("%s: %s %q: want a file name of letters, digits, '.', '-' and '_', such as %s 10-audit", foundIn, MiddlewareDirective, name, MiddlewareDirective)
		}
		return &Source{Lang: LangGo, Path: rel, Module: abi.MiddlewareDir + "/" + name + ".wasm"}, nil
	}
	if found == "" {
		if strings.ContainsAny(rel, "[]") {
			return nil, fmt.Errorf("%s: Go sources cannot live in a directory named like a route module ([id] is not a valid Go import path): move them to a directory such as handlers/get-user and add a line %s GET /api/users/:id", rel, Directive)
		}
		return nil, nil
	}
	r, err := routefile.FromRoute(found)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", foundIn, err)
	}
	return &Source{Lang: LangGo, Path: rel, Module: r.File, Directive: foundIn}, nil
}

// runtimeRoute is what directive returns for RuntimeDirective, and
// middlewarePrefix begins what it returns for MiddlewareDirective.
const (
	runtimeRoute     = "runtime"
	middlewarePrefix = "middleware "
)

// validMiddlewareName reports whether name makes a middleware file name.
func validMiddlewareName(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// found is a directive of a Go source: its route (runtimeRoute for the
// runtime directive, middlewarePrefix and a name for a middleware) and its
// line.
type found struct {
	route string
	line  int
}

// directives returns the directives of the file, in order; a package has
// one, and goRoute says so of a second.
func directives(file string) ([]found, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []found
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, RuntimeDirective); ok && strings.TrimSpace(rest) == "" {
			out = append(out, found{runtimeRoute, n})
			continue
		}
		if rest, ok := strings.CutPrefix(line, MiddlewareDirective); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			out = append(out, found{middlewarePrefix + strings.TrimSpace(rest), n})
			continue
		}
		if rest, ok := strings.CutPrefix(line, Directive); ok {
			if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
				continue // another directive that shares the prefix
			}
			out = append(out, found{strings.TrimSpace(rest), n})
		}
	}
	return out, sc.Err()
}

// secondRouteHint says what to do with a package's second route: another
// package, or, for another method of the same path, one directive for
// every method with a handler per method.
func secondRouteHint(first, second string) string {
	m1, p1, _ := strings.Cut(first, " ")
	m2, p2, _ := strings.Cut(second, " ")
	if p1 != "" && p1 == p2 && m1 != m2 && m1 != "*" && m2 != "*" {
		return fmt.Sprintf("; for several methods of %s write one %s * %s and register a handler per method with Operation.Method set, or give %s a package of its own (endpoints new route APP '%s')", p1, Directive, p1, second, second)
	}
	return fmt.Sprintf("; give %s a package of its own (endpoints new route APP '%s')", second, second)
}

// goFiles lists the non-test .go files directly in dir.
func goFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			files = append(files, filepath.Join(dir, n))
		}
	}
	return files, nil
}

// GoFlags are the flags Go passes to `go build`, with GOOS=wasip1 and
// GOARCH=wasm in the environment:
//
//   - -buildmode=c-shared: a WASI reactor that exports _initialize and the
//     //go:wasmexport functions instead of running main.
//   - -trimpath: no local paths in the module, so builds are reproducible.
//   - -ldflags=-s -w: no symbol table or DWARF, a third smaller.
var GoFlags = []string{"-buildmode=c-shared", "-trimpath", "-ldflags=-s -w"}

// Go builds the Go main package in srcDir into out:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags='-s -w' -o out .
//
// The directory must be inside a Go module that can resolve its imports
// (the SDK included). The Go build cache makes a rebuild of unchanged code
// cheap.
func Go(ctx context.Context, srcDir, out string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("build Go route %s: %w (install Go 1.24 or newer)", srcDir, err)
	}
	// go build runs in srcDir, so the output path must be absolute.
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	if files, err := goFiles(srcDir); err != nil || len(files) == 0 {
		return fmt.Errorf("build Go route %s: no .go files (%v)", srcDir, err)
	}
	return runToolchain(ctx, "build Go route", srcDir, out, func(tmp string) *exec.Cmd {
		args := append([]string{"build"}, GoFlags...)
		args = append(args, "-o", tmp, ".")
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = srcDir
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		return cmd
	}, nil)
}

// Built reports one module built by App.
type Built struct {
	Source
	Took time.Duration
	Err  error
	// Cached says that the module was copied from the module cache: its
	// sources, SDK and compiler are those of a module built before.
	Cached bool
	// Uncompiled are the routes of a Go bundle that a build with
	// Options.Salvage left out, since they do not compile: the module
	// was written without them (Err is nil).
	Uncompiled []Uncompiled
}

// Options are how BuildWith builds.
type Options struct {
	// Salvage builds a Go bundle whose route packages do not all compile
	// without those that do not (GoBundleSalvaging), for endpoints dev; a
	// build for production fails whole.
	Salvage bool
}

// App builds every route source of the app, at most GOMAXPROCS at once,
// writing each module under outDir at its path relative to the app (outDir
// is usually appDir itself). progress, when not nil, is called after each
// build. The error joins every failed build.
func App(ctx context.Context, appDir, outDir string, progress func(Built)) ([]Built, error) {
	sources, err := Find(appDir)
	if err != nil {
		return nil, err
	}
	return Build(ctx, appDir, outDir, sources, progress)
}

// Affected picks the sources a change of the files changed (relative to the
// app, forward slashes) may have changed: the C, AssemblyScript, Rust or WAT
// source itself, the Go route whose package directory holds the file, and
// for a file no route owns, every route of the language that shares it:
// Go for a shared package or go.mod, C for a header; for a .ts or .rs
// file, the AssemblyScript or Rust routes whose last build read it or
// looked for it (an import tried there, a `mod` that could now find it)
// by their records in the module cache (another route's source
// included), and when no route owns it every route of the language that
// has no record (see cacheKey).
func Affected(appDir string, sources []Source, changed []string) []Source {
	return AffectedSince(appDir, nil, sources, changed)
}

// AffectedSince is Affected for sources listed again after the files
// changed, before being the sources listed before: a file that a source of
// before owned and none of sources owns (a Go route's package deleted or
// moved) changes the module that source built, when a source still builds
// it (the bundle that served the route), not every Go route.
func AffectedSince(appDir string, before, sources []Source, changed []string) []Source {
	pick := map[int]bool{}
	records := map[int]*reads{} // by index in sources; nil for none
	// readBy reports whether the route sources[i] of lang may read f,
	// and whether it knows (has a record).
	readBy := func(i int, lang Language, f string) (may, known bool) {
		r, ok := records[i]
		if !ok {
			if abs, err := filepath.Abs(filepath.Join(appDir, filepath.FromSlash(sources[i].Path))); err == nil {
				if rec, found := loadReads(lang, abs); found {
					r = &rec
				}
			}
			records[i] = r
		}
		if r == nil {
			return true, false // no record: it may read any file of its language
		}
		abs, err := filepath.Abs(filepath.Join(appDir, filepath.FromSlash(f)))
		return err != nil || r.concerns(abs), true
	}
	for _, f := range changed {
		shared, ok := sharedBy(f)
		if !ok {
			continue
		}
		owned := false
		for i, s := range sources {
			if s.Path == f || s.owns(path.Dir(f)) {
				pick[i], owned = true, true
			}
		}
		for _, b := range before {
			if owned {
				break
			}
			if b.Path == f || b.owns(path.Dir(f)) {
				owned = true
				if i := slices.IndexFunc(sources, func(s Source) bool { return s.Module == b.Module }); i >= 0 {
					pick[i] = true
				}
			}
		}
		for i, s := range sources {
			if shared == "" || s.Lang != shared {
				continue
			}
			if s.Lang == LangRust || s.Lang == LangAS {
				// A route's record also names the sources of other
				// routes it includes.
				if may, known := readBy(i, s.Lang, f); may && (known || !owned) {
					pick[i] = true
				}
			} else if !owned {
				pick[i] = true
			}
		}
	}
	var out []Source
	for i, s := range sources {
		if pick[i] {
			out = append(out, s)
		}
	}
	return out
}

// sharedBy says whether a changed file f may change a route, and which
// language's routes it changes when no route owns it ("" for none: a .c or
// .wat file is only ever its own route).
func sharedBy(f string) (Language, bool) {
	switch path.Ext(f) {
	case ".go":
		return LangGo, true
	case ".h":
		return LangC, true
	case ".ts":
		return LangAS, true
	case ".rs":
		return LangRust, true
	case ".c", ".wat":
		return "", true
	}
	if f == "go.mod" || f == "go.sum" {
		return LangGo, true
	}
	return "", false
}

// Build builds the given sources of the app, as App does. The first Go
// route is built alone, before the others start: built side by side from a
// cold cache, each would compile the same standard library, SDK and shared
// packages for wasip1 at the same time; after it, the others find them in
// the build cache and compile and link their own package only.
// AssemblyScript and Rust modules come from the module cache when their
// inputs did not change (cacheKey), and those compiled are cached by what
// their compiler read (keepBuilt); AssemblyScript routes that must be
// compiled are compiled in batches, one Node.js process per batch and at
// most GOMAXPROCS batches, since asc's start costs about as much as a
// route (assemblyScriptBatch; a batch of one route too: asc's own
// command starts Node twice, and says nothing of what it read).
func Build(ctx context.Context, appDir, outDir string, sources []Source, progress func(Built)) ([]Built, error) {
	return BuildWith(ctx, appDir, outDir, sources, Options{}, progress)
}

// BuildWith is Build with options.
func BuildWith(ctx context.Context, appDir, outDir string, sources []Source, opts Options, progress func(Built)) ([]Built, error) {
	results := make([]Built, len(sources))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	firstGo := slices.IndexFunc(sources, func(s Source) bool { return s.Lang == LangGo })
	firstGoDone := make(chan struct{})
	if firstGo < 0 {
		close(firstGoDone)
	}
	var mu sync.Mutex
	report := func(i int, b Built) {
		results[i] = b
		if progress != nil {
			mu.Lock()
			progress(b)
			mu.Unlock()
		}
	}
	// The module cache first: keys (a module whose key cannot be computed
	// is built, and the build says why it cannot be) and hits.
	keys := make([]string, len(sources))
	hashes := appHashes{}
	var batch []int // AssemblyScript routes to compile
	for i, s := range sources {
		if !cached(s.Lang) {
			continue
		}
		start := time.Now()
		key, err := cacheKey(ctx, appDir, s, hashes)
		if err != nil {
			continue
		}
		keys[i] = key
		out := filepath.Join(outDir, filepath.FromSlash(s.Module))
		if hit, _ := moduleCache.Get(key, out); hit { // a cache that fails is a miss
			report(i, Built{Source: s, Took: time.Since(start), Cached: true})
			keys[i] = "" // done
			continue
		}
		if s.Lang == LangAS {
			batch = append(batch, i)
		}
	}
	var wg sync.WaitGroup
	batches := min(len(batch), cap(sem))
	for b := range batches {
		var mine []int
		for k := b; k < len(batch); k += batches {
			mine = append(mine, batch[k])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			jobs := make([]ascJob, len(mine))
			starts := make([]*before, len(mine))
			for k, i := range mine {
				jobs[k] = ascJob{src: filepath.Join(appDir, filepath.FromSlash(sources[i].Path)), out: filepath.Join(outDir, filepath.FromSlash(sources[i].Module))}
				starts[k] = beginBuild(appDir, LangAS, jobs[k].src)
			}
			err := assemblyScriptBatch(ctx, appDir, jobs, func(k int, took time.Duration, r reads, err error) {
				i := mine[k]
				if err == nil {
					keepBuilt(ctx, appDir, LangAS, jobs[k].src, jobs[k].out, r, starts[k])
				} else {
					forgetBuilt(LangAS, jobs[k].src)
				}
				report(i, Built{Source: sources[i], Took: took, Err: err})
			})
			if err != nil {
				for _, i := range mine {
					report(i, Built{Source: sources[i], Err: fmt.Errorf("%s: %w", sources[i].Path, err)})
				}
			}
		}()
	}
	for i, s := range sources {
		if results[i].Cached || slices.Contains(batch, i) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.Lang == LangGo && i != firstGo {
				<-firstGoDone
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			src := filepath.Join(appDir, filepath.FromSlash(s.Path))
			out := filepath.Join(outDir, filepath.FromSlash(s.Module))
			var err error
			var uncompiled []Uncompiled
			switch s.Lang {
			case LangGo:
				if len(s.Routes) > 0 {
					uncompiled, err = buildBundle(ctx, appDir, outDir, s, out, opts.Salvage)
				} else {
					err = Go(ctx, src, out)
				}
			case LangC:
				err = C(ctx, src, out)
			case LangWAT:
				err = WAT(ctx, src, out)
			case LangAS:
				// Its key could not be computed: the build says why.
				forgetBuilt(LangAS, src)
				err = AssemblyScript(ctx, appDir, src, out)
			case LangRust:
				var r reads
				begun := beginBuild(appDir, LangRust, src)
				if r, err = rust(ctx, src, out); err == nil {
					keepBuilt(ctx, appDir, LangRust, src, out, r, begun)
				} else {
					forgetBuilt(LangRust, src)
				}
				keys[i] = "" // cached by what it read
			}
			if keys[i] != "" && err == nil {
				_ = moduleCache.Put(keys[i], out) // the next build compiles again
			}
			if i == firstGo {
				close(firstGoDone)
			}
			report(i, Built{Source: s, Took: time.Since(start), Err: err, Uncompiled: uncompiled})
		}()
	}
	wg.Wait()
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return results, errors.Join(errs...)
}

// buildBundle builds a bundle source (salvage: without the route packages
// that do not compile, which it returns; GoBundleSalvaging), then removes
// the modules its routes built alone before (under outDir): they would
// claim the bundle's routes a second time.
func buildBundle(ctx context.Context, appDir, outDir string, s Source, out string, salvage bool) ([]Uncompiled, error) {
	var uncompiled []Uncompiled
	var err error
	if salvage {
		uncompiled, err = GoBundleSalvaging(ctx, appDir, s.Module, s.Routes, out)
	} else {
		err = GoBundle(ctx, appDir, s.Module, s.Routes, out)
	}
	if err != nil {
		return nil, err
	}
	for _, r := range s.Routes {
		if err := os.Remove(filepath.Join(outDir, filepath.FromSlash(r.Module))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("build Go bundle %s: removing %s, which %s built alone before: %w", s.Module, r.Module, r.Path, err)
		}
	}
	return uncompiled, nil
}
