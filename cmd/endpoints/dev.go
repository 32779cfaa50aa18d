package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/dirwatch"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/stale"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// console prints what `endpoints dev` does: one line per reload and per
// rebuilt module, errors in red on a terminal, plain when piped; --quiet
// keeps only problems, --json prints one JSON object per event.
type console struct {
	mu    sync.Mutex
	out   io.Writer
	color bool
	quiet bool
	json  bool
}

func newConsole(out io.Writer, quiet, asJSON bool) *console {
	c := &console{out: out, quiet: quiet, json: asJSON}
	if f, ok := out.(*os.File); ok && os.Getenv("NO_COLOR") == "" && !asJSON {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			c.color = true
		}
	}
	return c
}

// startup prints a line of the start of serve or dev: text as it is, or
// fields as one JSON object with --json, even with --quiet (the lines
// saying where the server listens).
func (c *console) startup(fields map[string]any, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.json {
		c.printJSON(fields)
		return
	}
	fmt.Fprint(c.out, text)
}

// routes prints the route table: a table of text, or one "routes" event
// listing each route with --json. --quiet leaves the table of text out (a
// line per route, a hundred for a large app, is no problem to report):
// endpoints routes prints it.
func (c *console) routes(routes []host.RouteInfo) {
	if c.quiet && !c.json {
		return
	}
	if !c.json {
		c.mu.Lock()
		defer c.mu.Unlock()
		printRoutes(c.out, routes, nil)
		return
	}
	list := make([]map[string]string, len(routes))
	for i, r := range routes {
		list[i] = map[string]string{"method": r.Method, "path": r.Path, "kind": r.Kind, "summary": r.Summary}
	}
	c.startup(map[string]any{"event": "routes", "routes": list}, "")
}

// config prints the configuration in effect (--log-level debug), secrets
// redacted: indented text, or one "config" event with --json.
func (c *console) config(cfg config.App, overrides []config.Override) {
	if !c.json {
		c.mu.Lock()
		defer c.mu.Unlock()
		printConfig(c.out, cfg, overrides)
		return
	}
	fields := map[string]any{"event": "config", "file": config.File}
	v, err := effectiveConfig(cfg)
	if err != nil {
		fields["error"] = err.Error()
	} else {
		fields["config"] = v
	}
	var from []map[string]string
	for _, o := range overrides {
		from = append(from, map[string]string{"pointer": o.Pointer, "source": o.Source})
	}
	fields["overrides"] = from
	c.startup(fields, "")
}

// printJSON writes fields, stamped with the time, as one line; c.mu held.
func (c *console) printJSON(fields map[string]any) {
	fields["time"] = time.Now().Format(time.RFC3339Nano)
	b, err := json.Marshal(fields)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"event": fields["event"], "error": err.Error(), "time": fields["time"]})
	}
	fmt.Fprintf(c.out, "%s\n", b)
}

// event prints one event; problem says it reports a failure.
func (c *console) event(problem bool, fields map[string]any, line string) {
	c.print(problem, problem, fields, line, "\x1b[31m")
}

// warning prints a line that --quiet keeps, in yellow on a terminal: what
// serves despite a mistake the developer should fix.
func (c *console) warning(line string) {
	c.print(true, true, nil, line, "\x1b[33m")
}

// print prints one event: kept under --quiet when loud, colored when
// highlight and on a terminal.
func (c *console) print(loud, highlight bool, fields map[string]any, line, color string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.json:
		if fields == nil {
			return
		}
		c.printJSON(fields)
	case c.quiet && !loud:
	case highlight && c.color:
		fmt.Fprintf(c.out, "%s %s%s\x1b[0m\n", time.Now().Format("15:04:05"), color, line)
	default:
		fmt.Fprintf(c.out, "%s %s\n", time.Now().Format("15:04:05"), line)
	}
}

// reloaded prints a reload's report: its line, then each problem and
// warning on a line of its own.
func (c *console) reloaded(r host.ReloadReport) {
	problems, warnings := errorLines(r.Problems), errorLines(r.Warnings)
	fields := map[string]any{"event": "reload", "added": r.Added, "changed": r.Changed, "removed": r.Removed,
		"problems": problems, "warnings": warnings, "refused": r.Refused, "recovered": r.Recovered, "tookMs": r.Took.Milliseconds()}
	c.print(len(problems)+len(warnings) > 0, len(problems) > 0, fields, r.String(), "\x1b[31m")
	if c.json {
		return
	}
	for _, p := range problems {
		c.event(true, nil, "  "+p)
	}
	for _, w := range warnings {
		c.warning("  warning: " + w)
	}
}

// errorLines is the text of each error.
func errorLines(errs []error) []string {
	var lines []string
	for _, err := range errs {
		lines = append(lines, err.Error())
	}
	return lines
}

// building prints that a save's rebuild of sources began: an
// AssemblyScript or Rust build, or a Go bundle's, takes seconds to tens of
// seconds, and its "built" line comes only at the end.
func (c *console) building(sources []guestbuild.Source) {
	modules := modulesOf(sources)
	line := "building " + strings.Join(modules, ", ")
	if len(sources) == 1 && len(sources[0].Routes) == 0 {
		line += " from " + sources[0].Path
	}
	c.event(false, map[string]any{"event": "building", "modules": modules}, line)
}

// built prints one rebuilt module of app; fixed says that the module's
// previous build failed, which a build that makes the module that serves
// again (nothing to reload) would otherwise leave unsaid.
func (c *console) built(app string, b guestbuild.Built, fixed bool) {
	fields := map[string]any{"event": "build", "module": b.Module, "source": b.Path, "tookMs": b.Took.Milliseconds()}
	if b.Err != nil {
		fields["error"] = b.Err.Error()
		c.event(true, fields, fmt.Sprintf("build of %s failed; %s:\n%v", b.Module, unserved(app, b.Source), b.Err))
		return
	}
	if fixed {
		fields["fixed"] = true
	}
	if b.Cached {
		fields["cached"] = true
		line := fmt.Sprintf("%s is unchanged: copied from the module cache", b.Module)
		if fixed {
			line += "; fixed: its previous build failed"
		}
		c.event(false, fields, line)
		return
	}
	from := "from " + b.Path
	if contents := b.Contents(); contents != "" {
		from = "(" + contents + ")" // a bundle: its common directory says little
	}
	if len(b.Uncompiled) > 0 {
		var left []map[string]string
		for _, u := range b.Uncompiled {
			left = append(left, map[string]string{"source": u.Route.Path, "error": u.Errors})
		}
		fields["uncompiled"] = left
		what := "1 route that does not compile"
		if n := len(b.Uncompiled); n > 1 {
			what = fmt.Sprintf("%d routes that do not compile", n)
		}
		from += " without " + what
	}
	line := fmt.Sprintf("built %s %s in %s", b.Module, from, b.Took.Round(time.Millisecond))
	if fixed {
		line += "; fixed: its previous build failed"
	}
	c.event(false, fields, line)
	for _, u := range b.Uncompiled {
		c.event(true, nil, uncompiledError(b.Module, u).Error())
	}
}

// ran prints one run of the app's build command; a failed one with what
// the command printed.
func (c *console) ran(r commandRun) {
	fields := map[string]any{"event": "command", "command": r.Command, "changed": r.Changed, "tookMs": r.Took.Milliseconds()}
	trigger := ""
	if len(r.Changed) > 0 {
		trigger = " (" + strings.Join(r.Changed, ", ") + " changed)"
	}
	if r.Err != nil {
		fields["error"] = r.Err.Error()
		fields["output"] = string(r.Output)
		out := strings.TrimRight(string(r.Output), "\n")
		if out != "" {
			out = "\n" + out
		}
		c.event(true, fields, fmt.Sprintf("%v%s; the last good modules keep serving:%s", r.Err, trigger, out))
		return
	}
	c.event(false, fields, fmt.Sprintf("ran `%s` in %s%s", r.Command, r.Took.Round(time.Millisecond), trigger))
}

// devLoop runs beside the server under `endpoints dev`: the host reloads
// modules that change (Host.Watch), a save of a route source rebuilds the
// modules it affects, whose new bytes the host then loads, and a save of a
// file the app's build command watches (endpoints.json "build") reruns it.
//
// since is when the start's build began: a source saved after it is built
// even when it changed before the watches were set up. unbuilt hears each
// build's result, for a 404 at a route that did not build.
func devLoop(ctx context.Context, app string, h *host.Host, c *console, since time.Time, ovs []config.Override, unbuilt *failedBuilds) {
	go func() {
		// What the build left out it printed: a reload does not again.
		onReload := func(r host.ReloadReport) {
			r.Problems = unbuilt.unreported(r.Problems)
			if !r.Unchanged() {
				c.reloaded(r)
			}
		}
		// c.reloaded prints each report's problems and warnings: the
		// host, told so, does not log them too.
		if err := h.Watch(ctx, host.WatchOptions{OnReload: onReload, Unlogged: true}); err != nil {
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the app failed: "+err.Error())
		}
	}()
	go func() {
		if err := watchSources(ctx, app, ovs, h.Rebuilding, c, since, unbuilt); err != nil {
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the sources failed: "+err.Error())
		}
	}()
	cfg := h.AppConfig() // with the overrides
	if cfg.Build.Command == "" || len(cfg.Build.Watch) == 0 {
		return
	}
	c.event(false, map[string]any{"event": "watch", "command": cfg.Build.Command, "watch": cfg.Build.Watch},
		fmt.Sprintf("saves of %s rerun `%s`", strings.Join(cfg.Build.Watch, ", "), cfg.Build.Command))
	go func() {
		if err := watchBuildCommand(ctx, app, cfg.Build, ovs, c, since); err != nil {
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the build command's sources failed: "+err.Error())
		}
	}()
}

// sourceQuiet is how long a rerun of the app's build command waits for a
// burst of saves to end (watchBuildCommand).
const sourceQuiet = 50 * time.Millisecond

// routeSourceQuiet is how long watchSources waits for a burst of saves of
// route sources to end: an editor writes a saved file in one go (or
// writes a copy and renames it), within a few milliseconds, and every
// millisecond here is one more the developer waits for the saved route
// to serve. Host.Watch waits 10 ms for the same reason.
const routeSourceQuiet = 15 * time.Millisecond

// watchSources rebuilds the route modules a changed source affects, builds
// those of sources added while it runs (in new directories too), and
// removes the module of a source that is gone, so that its route stops
// serving. The sources are grouped into modules by the build settings with
// the overrides ovs, as the start's build grouped them (appSources). Modules that no source builds (copied in, built by the app's
// own command) are never removed. rebuilding, when not nil, is told of
// the modules a build is about to replace (Host.Rebuilding), and its done
// is called once the build is over. unbuilt, when not nil, notes each
// build's result.
func watchSources(ctx context.Context, app string, ovs []config.Override, rebuilding func(modules []string) (done func()), c *console, since time.Time, unbuilt *failedBuilds) error {
	// Watch first, then list: a source added between the two would
	// otherwise be in neither (no event, not known) and never be built.
	w, err := watchApp(app)
	if err != nil {
		return err
	}
	defer w.Close()
	known, err := appSources(app, ovs)
	if err != nil {
		return err
	}
	testhook.Watching(ctx, "sources") // tests wait for this, not for a time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	// orphans are modules no source builds any more whose routes a module
	// being built takes (a bundle's directory renamed): they serve until
	// it is written, and while its build fails.
	var orphans []orphan
	// A source saved since the start's build began may have sent no
	// event (the watches were not set up yet): build those whose module is
	// missing or older.
	changed := map[string]bool{}
	newest, _ := stale.Newest(ctx, app, known) // on error, the Go routes' own files
	for _, s := range known {
		saved := newest[s.Path].ModTime
		if !saved.After(since) {
			continue
		}
		if mi, err := os.Stat(filepath.Join(app, filepath.FromSlash(s.Module))); err != nil || saved.After(mi.ModTime()) {
			changed[s.Path] = true
		}
	}
	if len(changed) > 0 {
		timer.Reset(routeSourceQuiet)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the sources: "+err.Error())
		case ev := <-w.Events:
			for _, rel := range w.Changed(ev) {
				// endpoints.json's build settings say which Go routes
				// build into which bundle ("goBundle", "goBundles").
				if isSource(rel) || rel == config.File {
					changed[rel] = true
					timer.Reset(routeSourceQuiet)
				}
			}
		case <-timer.C:
			files := slices.Sorted(maps.Keys(changed))
			clear(changed)
			sources, err := appSources(app, ovs)
			if err != nil {
				// A mistake of endpoints.json is the host's reload's
				// problem, printed with its report; nothing builds until
				// a save fixes it.
				if !errors.As(err, new(configError)) {
					c.event(true, map[string]any{"event": "error", "error": err.Error()}, err.Error())
				}
				continue
			}
			affected := guestbuild.AffectedSince(app, known, sources, files)
			if slices.Contains(files, config.File) {
				affected = appendNew(affected, regrouped(known, sources))
			}
			orphans = append(orphans, orphansOf(known, sources)...)
			known = sources
			unbuilt.keep(sources)
			// An orphan whose routes no module being built takes goes
			// now; the others when the module taking them is written.
			building := modulesOf(affected)
			orphans = removeOrphans(app, orphans, func(o orphan) bool {
				return !slices.ContainsFunc(o.heirs, func(h string) bool { return slices.Contains(building, h) })
			}, c)
			if len(affected) > 0 {
				// The compiler of the versions being replaced would share
				// the cores with the build and the load of the new ones.
				done := func() {}
				if rebuilding != nil {
					done = rebuilding(modulesOf(affected))
				}
				c.building(affected)
				// A Go bundle is built without a route package that
				// does not compile: the others serve their saves.
				_, _ = guestbuild.BuildWith(ctx, app, app, affected, guestbuild.Options{Salvage: true}, func(b guestbuild.Built) {
					if b.Err == nil {
						// Within the host's quiet time of the module's
						// write: one reload sees the routes move.
						orphans = removeOrphans(app, orphans, func(o orphan) bool { return slices.Contains(o.heirs, b.Module) }, c)
					}
					if b.Err == nil {
						unbuilt.leftOut(b.Module, b.Uncompiled)
					}
					c.built(app, b, b.Err == nil && unbuilt.failing(b.Module))
					unbuilt.note(b.Source, b.Err != nil)
				})
				done()
			}
		}
	}
}

// regrouped lists the sources of now that build differently from every
// source of before: a module of other routes, or of other packages, as
// when endpoints.json's "goBundle" or "goBundles" changed. A bundle whose
// routes stayed the same is not rebuilt.
func regrouped(before, now []guestbuild.Source) []guestbuild.Source {
	var out []guestbuild.Source
	for _, s := range now {
		if !slices.ContainsFunc(before, func(b guestbuild.Source) bool { return sameBuild(b, s) }) {
			out = append(out, s)
		}
	}
	return out
}

// sameBuild reports whether a and b build one module from the same
// sources.
func sameBuild(a, b guestbuild.Source) bool {
	return a.Lang == b.Lang && a.Path == b.Path && a.Module == b.Module &&
		slices.EqualFunc(a.Routes, b.Routes, sameBuild)
}

// appendNew appends to sources those of more whose module it lacks.
func appendNew(sources, more []guestbuild.Source) []guestbuild.Source {
	for _, m := range more {
		if !slices.ContainsFunc(sources, func(s guestbuild.Source) bool { return s.Module == m.Module }) {
			sources = append(sources, m)
		}
	}
	return sources
}

// modulesOf lists the modules the sources build.
func modulesOf(sources []guestbuild.Source) []string {
	modules := make([]string, len(sources))
	for i, s := range sources {
		modules[i] = s.Module
	}
	return modules
}

// orphan is a module that a source built and none builds now (the source
// was deleted, a Go route's directive names another route, a bundle's
// routes moved to another bundle, its directory renamed), with the modules
// that build its routes now: its heirs, none when its routes are gone.
type orphan struct {
	source guestbuild.Source
	heirs  []string
}

// orphansOf lists the modules that a source in before built and no source
// in now builds, each with its heirs in now: the modules that build one of
// its routes (a route is known by the module it would build alone, which
// its route gives, wherever its package moved).
func orphansOf(before, now []guestbuild.Source) []orphan {
	var out []orphan
	for _, s := range before {
		if slices.ContainsFunc(now, func(n guestbuild.Source) bool { return n.Module == s.Module }) {
			continue
		}
		o := orphan{source: s}
		routes := s.Routes
		if len(routes) == 0 {
			routes = []guestbuild.Source{s}
		}
		for _, r := range routes {
			for _, n := range now {
				builds := n.Module == r.Module || slices.ContainsFunc(n.Routes, func(nr guestbuild.Source) bool { return nr.Module == r.Module })
				if builds && !slices.Contains(o.heirs, n.Module) {
					o.heirs = append(o.heirs, n.Module)
				}
			}
		}
		out = append(out, o)
	}
	return out
}

// removeOrphans removes the module of each orphan that may go (ready)
// and returns the others.
func removeOrphans(app string, orphans []orphan, ready func(orphan) bool, c *console) []orphan {
	var left []orphan
	for _, o := range orphans {
		if !ready(o) {
			left = append(left, o)
			continue
		}
		s := o.source
		err := os.Remove(filepath.Join(app, filepath.FromSlash(s.Module)))
		why := "its source " + s.Path + " is gone"
		if len(o.heirs) > 0 {
			why = "its routes are built into " + strings.Join(o.heirs, ", ") + " now"
		}
		switch {
		case err == nil:
			c.event(false, map[string]any{"event": "orphan", "module": s.Module, "source": s.Path},
				fmt.Sprintf("removed %s: %s", s.Module, why))
		case !errors.Is(err, fs.ErrNotExist):
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, err.Error())
		}
	}
	return left
}

// isSource reports whether a file is a route source or something a Go
// build reads. A Go test file is neither (go build ignores it): saving one
// rebuilds and reloads nothing. Nor is a file under testdata, whose
// directories watchApp does not watch.
func isSource(rel string) bool {
	base := filepath.Base(rel)
	if strings.HasPrefix(base, ".") || strings.HasSuffix(base, "_test.go") {
		return false
	}
	switch filepath.Ext(rel) {
	case ".go", ".c", ".h", ".wat", ".ts", ".rs":
		return true
	}
	return base == "go.mod" || base == "go.sum"
}

// watchApp watches the app's tree for saved sources: every directory but
// hidden ones and those no source lives in (node_modules, testdata,
// vendor, and _-prefixed ones, which Go ignores too).
func watchApp(app string) (*dirwatch.Watcher, error) {
	return dirwatch.New(app, dirwatch.Options{Skip: func(name string) bool {
		return strings.HasPrefix(name, "_") || name == "node_modules" || name == "testdata" || name == "vendor"
	}})
}

// progress shows modules loading and compiling (host.Options.Progress): on
// a terminal one line rewritten in place, ending with a line of its own
// when a stage is done; otherwise a line per module.
func (c *console) progress(p host.Progress) {
	verb := map[string]string{host.StageLoad: "loaded", host.StageCompile: "compiled", host.StageCode: "ready"}[p.Stage]
	if p.Err != nil {
		verb = map[string]string{host.StageLoad: "failed to load", host.StageCompile: "failed to compile", host.StageCode: "failed to load the code of"}[p.Stage]
	}
	line := fmt.Sprintf("%s %d/%d %s in %s", verb, p.Done, p.Total, p.File, p.Took.Round(time.Millisecond))
	if p.Stage != host.StageLoad && p.Done == p.Total {
		line += ": every route runs compiled code"
	}
	if !c.color || c.json || c.quiet {
		c.event(p.Err != nil, map[string]any{"event": p.Stage, "module": p.File, "done": p.Done, "total": p.Total, "ms": p.Took.Milliseconds()}, line)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	end := ""
	if p.Done == p.Total {
		end = "\n"
	}
	fmt.Fprintf(c.out, "\r\x1b[K%s %s%s", time.Now().Format("15:04:05"), line, end)
}
