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

	"github.com/fsnotify/fsnotify"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
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

// event prints one event; problem says it reports a failure.
func (c *console) event(problem bool, fields map[string]any, line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.json:
		fields["time"] = time.Now().Format(time.RFC3339Nano)
		b, _ := json.Marshal(fields)
		fmt.Fprintf(c.out, "%s\n", b)
	case c.quiet && !problem:
	case problem && c.color:
		fmt.Fprintf(c.out, "%s \x1b[31m%s\x1b[0m\n", time.Now().Format("15:04:05"), line)
	default:
		fmt.Fprintf(c.out, "%s %s\n", time.Now().Format("15:04:05"), line)
	}
}

// reloaded prints a reload's report.
func (c *console) reloaded(r host.ReloadReport) {
	var problems []string
	for _, p := range r.Problems {
		problems = append(problems, p.Error())
	}
	fields := map[string]any{"event": "reload", "added": r.Added, "changed": r.Changed, "removed": r.Removed, "problems": problems, "tookMs": r.Took.Milliseconds()}
	c.event(len(problems) > 0, fields, r.String())
	for _, p := range problems {
		if !c.json {
			c.event(true, nil, "  "+p)
		}
	}
}

// built prints one rebuilt module.
func (c *console) built(b guestbuild.Built) {
	fields := map[string]any{"event": "build", "module": b.Module, "source": b.Path, "tookMs": b.Took.Milliseconds()}
	if b.Err != nil {
		fields["error"] = b.Err.Error()
		c.event(true, fields, fmt.Sprintf("build of %s failed; the previous version keeps serving:\n%v", b.Module, b.Err))
		return
	}
	c.event(false, fields, fmt.Sprintf("built %s from %s in %s", b.Module, b.Path, b.Took.Round(time.Millisecond)))
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
func devLoop(ctx context.Context, app string, h *host.Host, c *console) {
	go func() {
		if err := h.Watch(ctx, c.reloaded); err != nil {
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the app failed: "+err.Error())
		}
	}()
	go func() {
		if err := watchSources(ctx, app, c); err != nil {
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the sources failed: "+err.Error())
		}
	}()
	cfg, err := host.LoadAppConfig(app)
	if err != nil || cfg.Build.Command == "" || len(cfg.Build.Watch) == 0 {
		return // Host.New read the same file; a bad one stopped the start
	}
	c.event(false, map[string]any{"event": "watch", "command": cfg.Build.Command, "watch": cfg.Build.Watch},
		fmt.Sprintf("saves of %s rerun `%s`", strings.Join(cfg.Build.Watch, ", "), cfg.Build.Command))
	go func() {
		if err := watchBuildCommand(ctx, app, cfg.Build, c); err != nil {
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the build command's sources failed: "+err.Error())
		}
	}()
}

// sourceQuiet is how long watchSources waits for a burst of saves to end.
const sourceQuiet = 50 * time.Millisecond

// watchSources rebuilds the route modules a changed source affects.
func watchSources(ctx context.Context, app string, c *console) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	addSourceDirs(w, app)
	testhook.Watching(ctx, "sources") // tests wait for this, not for a time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	changed := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the sources: "+err.Error())
		case ev := <-w.Events:
			if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && ev.Has(fsnotify.Create) {
				addSourceDirs(w, ev.Name)
				continue
			}
			rel, err := filepath.Rel(app, ev.Name)
			if err != nil || !isSource(rel) {
				continue
			}
			changed[filepath.ToSlash(rel)] = true
			timer.Reset(sourceQuiet)
		case <-timer.C:
			files := slices.Sorted(maps.Keys(changed))
			clear(changed)
			sources, err := guestbuild.Find(app)
			if err != nil {
				c.event(true, map[string]any{"event": "error", "error": err.Error()}, err.Error())
				continue
			}
			if affected := guestbuild.Affected(sources, files); len(affected) > 0 {
				_, _ = guestbuild.Build(ctx, app, app, affected, c.built)
			}
		}
	}
}

// isSource reports whether a file is a route source or something a Go
// build reads.
func isSource(rel string) bool {
	base := filepath.Base(rel)
	if strings.HasPrefix(base, ".") {
		return false
	}
	switch filepath.Ext(rel) {
	case ".go", ".c", ".h", ".wat", ".ts", ".rs":
		return true
	}
	return base == "go.mod" || base == "go.sum"
}

// addSourceDirs watches dir and the directories under it that may hold
// sources: not hidden ones, node_modules or testdata.
func addSourceDirs(w *fsnotify.Watcher, dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		_ = w.Add(path)
		return nil
	})
}
