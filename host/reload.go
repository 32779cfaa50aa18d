package host

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/openapi"
)

// loadedFile is one route module of a table: the hash of its bytes and
// the route it serves, nil when it failed to load.
type loadedFile struct {
	hash  [sha256.Size]byte
	route *route
	err   error // why route is nil, or why a newer version was refused
}

// tableState is what lets a table be retired while requests still use it.
// Each request holds a reference; a retired table's modules that the new
// table does not share are closed when the last request ends.
type tableState struct {
	refs    atomic.Int64
	retired atomic.Bool
	closed  atomic.Bool
	// leaving are the modules only this table has, closed when it drains.
	leaving []*pool
	// next is the security plan of the table that follows; verifiers it
	// shares stay open when this table drains.
	next *securityPlan
}

// acquire takes a reference to the current table for one request.
func (h *Host) acquire() *table {
	for {
		t := h.table.Load()
		t.state.refs.Add(1)
		if !t.state.retired.Load() {
			return t
		}
		h.releaseTable(t)
	}
}

// releaseTable drops a request's reference; the last one out of a retired table
// closes what it alone held.
func (h *Host) releaseTable(t *table) {
	if t.state.refs.Add(-1) == 0 && t.state.retired.Load() {
		t.drained()
	}
}

func (t *table) drained() {
	if !t.state.closed.CompareAndSwap(false, true) {
		return
	}
	ctx := context.Background()
	for _, p := range t.state.leaving {
		p.retire(ctx)
	}
	t.security.closeExcept(t.state.next)
}

// ReloadReport says what a reload changed.
type ReloadReport struct {
	// Added, Changed and Removed list module and configuration files by
	// their path in the app.
	Added, Changed, Removed []string
	// Problems are the files that failed to load: a file that served
	// before keeps serving its previous version.
	Problems []error
	// Took is how long the reload took.
	Took time.Duration
}

// Unchanged reports whether the reload found nothing new.
func (r ReloadReport) Unchanged() bool {
	return len(r.Added)+len(r.Changed)+len(r.Removed) == 0 && len(r.Problems) == 0
}

// String is the one line `endpoints dev` prints per reload.
func (r ReloadReport) String() string {
	var parts []string
	for _, p := range []struct {
		verb  string
		files []string
	}{{"added", r.Added}, {"changed", r.Changed}, {"removed", r.Removed}} {
		if len(p.files) > 0 {
			parts = append(parts, p.verb+" "+strings.Join(p.files, ", "))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing changed")
	}
	s := fmt.Sprintf("reloaded in %s: %s", r.Took.Round(time.Millisecond), strings.Join(parts, "; "))
	if n := len(r.Problems); n > 0 {
		s += fmt.Sprintf("; %d problem(s), the previous version keeps serving", n)
	}
	return s
}

// Reload reads the app directory again and swaps in a new version of the
// route table, schemas, settings and OpenAPI document at once. Only files
// whose bytes changed are loaded again: a new, changed or removed module,
// the routes configuration, the runtime declaration or endpoints.json. A file that fails to
// load keeps its previous version serving, and is listed in the report's
// Problems (and in Problems()). Requests in flight finish on the version
// they started with; modules that left are closed when they end.
//
// Of endpoints.json, limits.memoryBytes, limits.instances,
// limits.instanceIdleTimeout and storage apply at the next start (a warning says
// so); the rest applies now. After Close, Reload does nothing and reports
// a problem.
func (h *Host) Reload(ctx context.Context) ReloadReport {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	start := time.Now()
	if h.closing.Load() {
		return ReloadReport{Problems: []error{ErrClosed}}
	}
	prev := h.table.Load()
	t, report, err := h.load(ctx, prev)
	// What the load left to the compiler starts once it is done, swapped
	// in or not (a pool that is not served turns the compiled code down).
	defer h.engine.startCompiles()
	if err != nil {
		report.Problems = append(report.Problems, err)
		report.Took = time.Since(start)
		return report
	}
	if h.closing.Load() {
		// Close began while this version loaded: it is never served.
		t.state.leaving = t.exclusive(prev)
		t.state.next = prev.security
		t.state.retired.Store(true)
		t.drained()
		return ReloadReport{Problems: []error{ErrClosed}, Took: time.Since(start)}
	}
	if report.Unchanged() && len(t.problems) == len(prev.problems) {
		// Nothing to swap: close what the attempt opened (nothing, when
		// every file was reused).
		t.state.leaving = t.exclusive(prev)
		t.state.next = prev.security
		t.state.retired.Store(true)
		t.drained()
		report.Took = time.Since(start)
		return report
	}
	prev.state.leaving = prev.exclusive(t)
	prev.state.next = t.security
	h.table.Store(t)
	prev.state.retired.Store(true)
	if prev.state.refs.Load() == 0 {
		prev.drained()
	}
	report.Took = time.Since(start)
	for _, p := range report.Problems {
		h.logger.Error("not reloaded; the previous version keeps serving", "error", p)
	}
	return report
}

// exclusive lists the pools of t that other does not share.
func (t *table) exclusive(other *table) []*pool {
	shared := map[*pool]bool{}
	for _, f := range other.files {
		if f.route != nil {
			shared[f.route.mod.pool] = true
		}
	}
	if other.runtime != nil {
		shared[other.runtime.pool] = true
	}
	var out []*pool
	for _, f := range t.files {
		if f.route != nil && !shared[f.route.mod.pool] {
			out = append(out, f.route.mod.pool)
		}
	}
	if t.runtime != nil && !shared[t.runtime.pool] {
		out = append(out, t.runtime.pool)
	}
	for _, m := range other.middleware {
		shared[m.pool] = true
	}
	for _, m := range t.middleware {
		if !shared[m.pool] {
			out = append(out, m.pool)
		}
	}
	return out
}

// readHashed reads a file of the app and hashes it; a missing file gives
// nil data and no error.
func (h *Host) readHashed(rel string) ([]byte, [sha256.Size]byte, error) {
	data, err := os.ReadFile(filepath.Join(h.app, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, [sha256.Size]byte{}, nil
	}
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	return data, sha256.Sum256(data), nil
}

// load builds a table from the app directory. With prev, a file whose
// bytes did not change reuses prev's module, and one that fails keeps
// prev's version. Modules compile in parallel, at most GOMAXPROCS at once.
func (h *Host) load(ctx context.Context, prev *table) (*table, ReloadReport, error) {
	var report ReloadReport
	files, err := findModules(h.app)
	if err != nil {
		return nil, report, fmt.Errorf("reading app %s: %w", h.app, err)
	}
	start := time.Now()
	t := &table{files: map[string]*loadedFile{}, state: &tableState{}}

	// The routes configuration: a broken new version keeps the previous.
	rcData, rcHash, err := h.readHashed(RoutesConfigFile)
	configChanged := prev == nil || rcHash != prev.configHash
	t.configHash = rcHash
	switch {
	case err != nil:
		t.problems = append(t.problems, err)
	case configChanged:
		if rcData != nil {
			t.routesConfig, err = openapi.ParseRoutesConfig(RoutesConfigFile, rcData)
		}
		if err != nil {
			t.problems = append(t.problems, err)
			report.Problems = append(report.Problems, err)
			if prev != nil {
				t.routesConfig, t.configHash, configChanged = prev.routesConfig, prev.configHash, false
			}
		} else if prev != nil {
			report.note(RoutesConfigFile, rcData != nil, prev.routesConfig != nil)
		}
	default:
		t.routesConfig = prev.routesConfig
	}

	// The route modules load in the background while the runtime
	// declaration, endpoints.json and the middleware load below: they
	// need none of them.
	type result struct {
		file *loadedFile
		news bool // loaded from new bytes
	}
	results := make([]result, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var progressMu sync.Mutex
	done := 0
	progress := func(f string, took time.Duration, err error) {
		progressMu.Lock()
		defer progressMu.Unlock()
		done++
		if f != "" && h.opts.Progress != nil {
			h.opts.Progress(Progress{Stage: StageLoad, File: f, Done: done, Total: len(files), Took: took, Err: err})
		}
	}
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, hash, err := h.readHashed(f)
			var old *loadedFile
			if prev != nil {
				old = prev.files[f]
			}
			if err == nil && old != nil && old.hash == hash && (old.route != nil || old.err != nil) {
				results[i] = result{file: old}
				progress("", 0, nil)
				return
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			if prev != nil && err == nil {
				// A new Go module compiles for a second or more: say so
				// before the reload's own line.
				h.logger.Info("loading "+f, "module", f)
			}
			lf := &loadedFile{hash: hash}
			began := time.Now()
			if err == nil {
				lf.route, err = h.loadRoute(ctx, f, data)
			}
			lf.err = err
			results[i] = result{file: lf, news: true}
			progress(f, time.Since(began), err)
		}()
	}
	// The runtime declaration.
	rtData, rtHash, err := h.readHashed(abi.RuntimeModule)
	t.runtimeHash = rtHash
	switch {
	case err != nil:
		t.problems = append(t.problems, err)
	case prev == nil || rtHash != prev.runtimeHash:
		var rm *runtimeModule
		if rtData != nil {
			rm, err = h.engine.loadRuntime(ctx, rtData, h.opts.Limits.instances())
		}
		if err != nil {
			t.problems = append(t.problems, err)
			report.Problems = append(report.Problems, err)
			if prev != nil {
				rm, t.runtimeHash = prev.runtime, prev.runtimeHash
			}
		} else if prev != nil {
			report.note(abi.RuntimeModule, rtData != nil, prev.runtime != nil)
		}
		t.runtime = rm
	default:
		t.runtime = prev.runtime
	}

	// endpoints.json: settings for requests and the document.
	cfg := h.config
	if prev != nil {
		cfg = h.reloadConfig(ctx, prev, t, &report)
	} else {
		_, t.appConfigHash, _ = h.readHashed(AppConfigFile)
	}
	if t.set, err = h.newSettings(cfg, t.runtime); err != nil {
		if prev == nil {
			t.runtime.close(ctx)
			wg.Wait() // the route modules loading meanwhile are not served
			for _, res := range results {
				if res.file != nil && res.file.route != nil {
					res.file.route.mod.pool.retire(ctx)
				}
			}
			return nil, report, err
		}
		t.problems = append(t.problems, err)
		report.Problems = append(report.Problems, err)
		t.set, t.appConfigHash = prev.set, prev.appConfigHash
	}

	// The middleware modules.
	h.loadMiddlewareFiles(ctx, prev, t, &report)

	wg.Wait()
	configFailed := false
	for i, res := range results {
		f, lf := files[i], res.file
		var old *loadedFile
		if prev != nil {
			old = prev.files[f]
		}
		if lf.err != nil {
			t.problems = append(t.problems, lf.err)
			if res.news {
				report.Problems = append(report.Problems, lf.err)
			}
			if old != nil && old.route != nil {
				// The previous version keeps serving; the broken bytes
				// are remembered so they are not loaded again.
				lf = &loadedFile{hash: lf.hash, route: old.route, err: lf.err}
			}
		} else if res.news && prev != nil {
			report.note(f, true, old != nil)
		}
		// built: the route was made now from new bytes, and its module
		// belongs to no other table. A route reused from prev is shared
		// with it, and requests read it: it is never changed, only
		// rebuilt when the routes configuration changed.
		r, built := lf.route, res.news && lf.err == nil
		refuse := func(err error) {
			t.problems = append(t.problems, err)
			if res.news {
				report.Problems = append(report.Problems, err)
			}
			if built {
				r.mod.pool.retire(ctx)
			}
			t.files[f] = &loadedFile{hash: lf.hash, err: err}
		}
		if r != nil && (built || configChanged) {
			// Routes shared with prev are never changed: a new
			// configuration applies to a fresh route of the same module.
			next, err := r, error(nil)
			if !built {
				next, err = newRoute(r.rf, r.mod)
			}
			if err == nil {
				err = next.addConfigResponses(t.routesConfig)
			}
			if err != nil {
				// A problem of the configuration, not of the module: the
				// route keeps serving (as before, or without the
				// configuration's responses), and the configuration is
				// applied again at the next reload.
				err = fmt.Errorf("%s: %w; the route keeps serving without this configuration's responses until it is fixed", RoutesConfigFile, err)
				t.problems = append(t.problems, err)
				report.Problems = append(report.Problems, err)
				configFailed = true
				if built {
					if next, err = newRoute(r.rf, r.mod); err != nil {
						refuse(err)
						continue
					}
				}
			}
			r = next
		}
		if r != nil {
			if err := r.register(&t.router); err != nil {
				refuse(err)
				continue
			}
			t.routes = append(t.routes, r)
		}
		t.files[f] = &loadedFile{hash: lf.hash, route: r, err: lf.err}
	}
	if configFailed && prev != nil {
		t.configHash = prev.configHash // try the configuration again at the next reload
	}
	if prev != nil {
		for f := range prev.files {
			if _, ok := t.files[f]; !ok {
				report.Removed = append(report.Removed, f)
			}
		}
		slices.Sort(report.Removed)
	}
	if t.doc, err = h.buildDocument(ctx, t); err != nil {
		t.docErr = fmt.Errorf("OpenAPI document: %w", err)
		t.problems = append(t.problems, t.docErr)
		report.Problems = append(report.Problems, t.docErr)
	} else {
		var prevPlan *securityPlan
		if prev != nil {
			prevPlan = prev.security
		}
		plan, problems := h.planSecurity(t, prevPlan)
		for _, p := range problems {
			p = fmt.Errorf("security: %w", p)
			t.problems = append(t.problems, p)
			report.Problems = append(report.Problems, p)
		}
		t.security = plan
		if err := documentRateLimits(t.doc.doc, t.set.rateLimits); err != nil {
			t.problems = append(t.problems, err)
			report.Problems = append(report.Problems, err)
		}
		// The document now lists the 401 and 403 the host answers.
		if b, err := marshalDocument(t.doc.doc); err == nil {
			t.doc = newDocument(b, t.doc.doc)
		}
	}
	h.logger.Debug("app loaded", "app", h.app, "modules", len(files), "problems", len(t.problems), "took", time.Since(start).Round(time.Millisecond))
	return t, report, nil
}

// note records a file as added, changed or removed.
func (r *ReloadReport) note(file string, now, before bool) {
	switch {
	case now && before:
		r.Changed = append(r.Changed, file)
	case now:
		r.Added = append(r.Added, file)
	case before:
		r.Removed = append(r.Removed, file)
	}
}
