// Package routetable is the route modules of one version of an app as a
// load makes them, beside the previous version (abi/README.md, docs/spec.md
// §2): a module whose bytes did not change is reused, a changed one loaded
// again (in parallel, package routemod), a new version that fails keeps
// the previous one serving; the routes configuration is read the same way
// and applied to the routes it concerns; and each route claims its methods
// and path in the version's router. What else a version serves with (the
// settings, middleware, the runtime declaration, the document, security)
// is package versionload's, which hears of problems and changed files
// through an appload.Reporter; the swap is the host's (host/reload.go).
package routetable

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/router"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Table is the routes of one version of an app. A table that serves is
// never changed: requests read it.
type Table struct {
	// Files are the route modules by path in the app, with their hashes,
	// so a reload loads only what changed.
	Files map[string]*File
	// Router routes a request to one of Routes, those served.
	Router router.Router[*routemod.Route]
	Routes []*routemod.Route
	// RoutesConfig is the routes configuration (docs/spec.md §7), nil
	// without one; ConfigHash the hash of its file (zero when absent).
	RoutesConfig *openapi.RoutesConfig
	ConfigHash   [sha256.Size]byte
}

// Pools lists the pools of the table's route modules, each once, file
// after file (File.Pools).
func (t *Table) Pools() []*engine.Pool {
	var out []*engine.Pool
	for _, f := range t.Files {
		for _, p := range f.Pools() {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// File is one route module of a table: the hash of its bytes and
// the routes it serves (one, or a bundle's), none when it failed to load.
type File struct {
	// Hash is the hash of its bytes: a load reuses the file when they did
	// not change.
	Hash [sha256.Size]byte
	// Routes are the routes it serves.
	Routes []*routemod.Route
	// Err is why Routes is empty, or why a newer version (or some of a
	// bundle's routes) was refused.
	Err error
	// Held are routes that loaded but are not served, in Development:
	// the OpenAPI document could not be built with them (err says why;
	// package versionload's salvage). The next load serves them again when their
	// bytes did not change, without loading them anew.
	Held []*routemod.Route
}

// Pools lists the pools of the file's routes, served (Routes) and held
// (Held), each once, in the order of their first route: one for a module,
// whose routes share it, and two or more for a bundle whose newer version
// refused some of its routes in development, which keep their previous
// version's module serving (Load.Assemble). Everything that must reach
// each module of the file (the janitor's sweeps, the pools' statistics,
// their compilation stopped and resumed, their close at the host's close)
// takes them all. Nil when the file serves nothing.
func (f *File) Pools() []*engine.Pool {
	var out []*engine.Pool
	for _, r := range slices.Concat(f.Routes, f.Held) {
		if p := r.Module.Pool; p != nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Load is one making of a Table (T) from the app's route modules, beside
// the previous version (Prev): ReadConfig, Start, then Assemble with what
// Start loaded (or Discard it).
type Load struct {
	// Dir is the app; ConfigFile its routes configuration
	// (server/routes.config.json).
	Dir        appload.Dir
	ConfigFile string
	// Engine loads the modules, with pools of PoolSize instances.
	Engine   *engine.Engine
	PoolSize int
	// Logger says which modules a reload loads anew.
	Logger *slog.Logger
	// Progress, when not nil, is told of each module loaded anew: its
	// file, how many of total are done (reused ones included), how long
	// it took, and why it failed. Calls do not overlap.
	Progress func(file string, done, total int, took time.Duration, err error)
	// Report receives the problems and changed files the load finds.
	Report appload.Reporter
	// Prev is the table that serves, nil at the first load; T the table
	// being made, with Files not nil.
	Prev, T *Table

	// configChanged: the routes configuration is not Prev's, so every
	// route applies it anew.
	configChanged bool
	stoppedMu     sync.Mutex
	stopped       []*engine.Pool
}

// ReadConfig reads the routes configuration (ConfigFile): a broken new
// version keeps the previous one (appload.Next).
func (l *Load) ReadConfig() {
	var prev *appload.Version[openapi.RoutesConfig]
	if l.Prev != nil {
		prev = &appload.Version[openapi.RoutesConfig]{Hash: l.Prev.ConfigHash, Value: l.Prev.RoutesConfig}
	}
	v, changed := appload.Next(l.Dir, l.ConfigFile, prev, func(data []byte) (*openapi.RoutesConfig, error) {
		return openapi.ParseRoutesConfig(l.ConfigFile, data)
	}, l.Report)
	l.T.RoutesConfig, l.T.ConfigHash, l.configChanged = v.Value, v.Hash, changed
}

// Result is what loading one route module gave, for Assemble.
type Result struct {
	file *File
	news bool // loaded from new bytes now
}

// made is the pool this load made for the result's file: that of the
// module it loaded from new bytes, which its routes share (the routes of
// a previous version it keeps serving join the file only in Assemble,
// never the result). Nil when the file was reused, or failed to load.
func (r Result) made() *engine.Pool {
	if !r.news || len(r.file.Routes) == 0 {
		return nil
	}
	return r.file.Routes[0].Module.Pool
}

// Start loads the route modules files (paths in the app) in the
// background, at most GOMAXPROCS at once, reusing Prev's for unchanged
// bytes; the function it returns waits for them.
func (l *Load) Start(ctx context.Context, files []string) func() []Result {
	prev := l.Prev
	results := make([]Result, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var progressMu sync.Mutex
	done := 0
	progress := func(f string, took time.Duration, err error) {
		progressMu.Lock()
		defer progressMu.Unlock()
		done++
		if f != "" && l.Progress != nil {
			l.Progress(f, done, len(files), took, err)
		}
	}
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, hash, err := l.Dir.Read(f)
			var old *File
			if prev != nil {
				old = prev.Files[f]
			}
			if err == nil && old != nil && old.Hash == hash && len(old.Held) > 0 {
				// Left out of the previous document: served again now,
				// as if loaded fresh, so that the document is tried with
				// them (the file that collided with them may be fixed).
				results[i] = Result{file: &File{Hash: hash, Routes: old.served()}}
				progress("", 0, nil)
				return
			}
			if err == nil && old != nil && old.Hash == hash && (len(old.Routes) > 0 || old.Err != nil) {
				results[i] = Result{file: old}
				progress("", 0, nil)
				return
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			if err == nil && old != nil {
				// Every module of the previous version: a bundle's
				// routes that its newer version refused keep an older
				// module serving, and its compiler competes the same.
				for _, p := range old.Pools() {
					l.stopCompile(p)
				}
			}
			if prev != nil && err == nil {
				// A new Go module compiles for a second or more: say so
				// before the reload's own line.
				l.Logger.Info("loading "+f, "module", f)
			}
			lf := &File{Hash: hash}
			began := time.Now()
			if err == nil {
				lf.Routes, err = routemod.LoadRoutes(ctx, l.Engine, f, data, l.PoolSize, prev == nil)
			}
			lf.Err = err
			results[i] = Result{file: lf, news: true}
			if len(lf.Routes) > 0 {
				err = nil // a bundle whose routes were refused in part loaded; Assemble reports them
			}
			progress(f, time.Since(began), err)
		}()
	}
	return func() []Result {
		wg.Wait()
		return results
	}
}

// stopCompile stops the background compilation of p, a pool of a file
// whose new bytes this load is about to load: the compiler, which takes
// seconds for a Go module and the cores it is given, would otherwise
// compete with the load of the new version, and the developer who saved
// it waits for that load. The host's reload queues it again when the
// file's previous version keeps serving (StoppedCompiles).
func (l *Load) stopCompile(p *engine.Pool) {
	if p == nil {
		return
	}
	p.StopCompiling()
	l.stoppedMu.Lock()
	l.stopped = append(l.stopped, p)
	l.stoppedMu.Unlock()
}

// StoppedCompiles are the pools of Prev whose background compilation
// Start stopped, to load their files' new bytes on free cores: those whose
// file's previous version keeps serving should compile again. Call it once
// Start's results were waited for.
func (l *Load) StoppedCompiles() []*engine.Pool {
	l.stoppedMu.Lock()
	defer l.stoppedMu.Unlock()
	return l.stopped
}

// Discard retires the modules a load that is given up made, and only
// those: a module reused from Prev, or the previous version of a bundle
// that keeps serving routes its new version refused, serves on.
func (l *Load) Discard(ctx context.Context, results []Result) {
	for _, res := range results {
		if p := res.made(); p != nil {
			p.Retire(ctx)
		}
	}
}

// Assemble makes the route table from the loaded modules (files and
// Start's results): a failed module keeps its previous version, the routes
// configuration applies to the routes new or changed, check refuses what
// the host's settings refuse of a route (a timeout over
// limits.maxTimeout, a path the host answers itself), and each route
// claims its methods and path. A bundle's route that another module claims
// already is refused alone; the bundle's other routes serve.
func (l *Load) Assemble(ctx context.Context, files []string, results []Result, check func(*routemod.Route) error) {
	t, prev := l.T, l.Prev
	configFailed := false
	for i, res := range results {
		f, lf := files[i], res.file
		var old *File
		if prev != nil {
			old = prev.Files[f]
		}
		// partial: a bundle loaded now whose routes were refused in part
		// (routemod.BundleRoutes); its other routes serve.
		partial := res.news && lf.Err != nil && len(lf.Routes) > 0
		if lf.Err != nil {
			l.Report.Problem(lf.Err, res.news)
			if partial && prev != nil {
				l.Report.Note(f, true, old != nil)
			}
			if !partial && old != nil && len(old.Routes) > 0 {
				// The previous version keeps serving; the broken bytes
				// are remembered so they are not loaded again.
				lf = &File{Hash: lf.Hash, Routes: old.Routes, Err: lf.Err}
			}
		} else if res.news && prev != nil {
			l.Report.Note(f, true, old != nil)
		}
		// built: the routes were made now from new bytes, and their
		// module belongs to no other table. Routes reused from prev are
		// shared with it, and requests read them: they are never changed,
		// only rebuilt when the routes configuration changed.
		fresh := res.news && (lf.Err == nil || partial)
		routes := lf.Routes
		if partial && old != nil {
			// A route the new bundle declares but refused keeps its
			// previous version serving, as a module that fails to load
			// does; the bundle's other routes serve anew.
			routes = append(slices.Clone(routes), keptRoutes(old.Routes, lf.Routes, lf.Err)...)
		}
		served, refused := make([]*routemod.Route, 0, len(routes)), lf.Err
		servedFresh := 0
		for i, r := range routes {
			built := fresh && i < len(lf.Routes)
			if built || l.configChanged {
				// Routes shared with prev are never changed: a new
				// configuration applies to a fresh route of the same module.
				next, err := r, error(nil)
				if !built {
					next, err = routemod.NewRoute(r.FileRoute, r.Module)
				}
				if err == nil {
					err = next.AddConfigResponses(l.ConfigFile, t.RoutesConfig)
				}
				if err != nil {
					// A problem of the configuration, not of the module: the
					// route keeps serving (as before, or without the
					// configuration's responses), and the configuration is
					// applied again at the next reload.
					l.Report.Problem(fmt.Errorf("%s: %w; the route keeps serving without this configuration's responses until it is fixed", l.ConfigFile, err), true)
					configFailed = true
					if built {
						if next, err = routemod.NewRoute(r.FileRoute, r.Module); err != nil {
							l.Report.Problem(err, res.news)
							refused = err
							continue
						}
					}
				}
				r = next
			}
			if r == nil {
				continue
			}
			if err := check(r); err != nil {
				l.Report.Problem(err, res.news)
				refused = err
				continue
			}
			if err := r.Register(&t.Router); err != nil {
				l.Report.Problem(err, res.news)
				refused = err
				continue
			}
			served = append(served, r)
			t.Routes = append(t.Routes, r)
			if built {
				servedFresh++
			}
		}
		if p := res.made(); servedFresh == 0 && p != nil && fresh {
			p.Retire(ctx) // none of its routes serves
		}
		if len(served) == 0 {
			served = nil
		}
		t.Files[f] = &File{Hash: lf.Hash, Routes: served, Err: refused}
	}
	if configFailed && prev != nil {
		t.ConfigHash = prev.ConfigHash // try the configuration again at the next reload
	}
}

// keptRoutes are the routes of a bundle's previous version (prev) that
// its new version (loaded: the routes it serves) declares but refused
// (err, a *routemod.RefusedError): they keep serving until it serves them.
// A route the new version no longer declares is not kept.
func keptRoutes(prev, loaded []*routemod.Route, err error) []*routemod.Route {
	var re *routemod.RefusedError
	if !errors.As(err, &re) {
		return nil
	}
	var out []*routemod.Route
	for _, r := range prev {
		name := r.FileRoute.String()
		if slices.Contains(re.Routes, name) && !slices.ContainsFunc(loaded, func(l *routemod.Route) bool { return l.FileRoute.String() == name }) {
			out = append(out, r)
		}
	}
	return out
}

// Removed lists the route modules Prev had and T no longer has, in no
// particular order.
func (l *Load) Removed() []string {
	if l.Prev == nil {
		return nil
	}
	var out []string
	for f := range l.Prev.Files {
		if _, ok := l.T.Files[f]; !ok {
			out = append(out, f)
		}
	}
	return out
}
