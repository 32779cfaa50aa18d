package host

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/burst"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/dirwatch"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// Watch coalesces a burst of changes (an editor's save, a build writing
// several modules) into one reload: it reloads once no change came for
// watchQuiet, and at the latest watchDebounce after the burst's first
// change.
const (
	// watchQuiet is how long a burst must stay quiet before the reload.
	watchQuiet = 10 * time.Millisecond
	// watchDebounce is the longest a change waits for its reload.
	watchDebounce = 100 * time.Millisecond
)

// WatchOptions configure [Host.Watch]. The zero value watches and logs
// each reload's problems and warnings.
type WatchOptions struct {
	// OnReload, when not nil, receives the report of each reload that
	// changed something or found a problem, after the host logged its
	// problems and warnings (unless Unlogged). Nil by default.
	OnReload func(ReloadReport)
	// Unlogged says OnReload tells each reload's problems and warnings
	// itself, so the host does not log them: `endpoints dev` prints every
	// report, and a logged problem would show twice. Defaults to false:
	// the host logs them once, whatever OnReload does. Watch refuses
	// Unlogged without OnReload, which would hide every problem.
	Unlogged bool
}

// Watch reloads the app (see [Host.Reload]) whenever one of its modules,
// its routes configuration, its runtime declaration or endpoints.json
// changes on disk,
// until ctx ends; `endpoints dev` runs it. A burst of changes (an editor's
// save, a build writing several modules) is one reload, made once no
// change came for 10 ms, and at the latest 100 ms after the burst's
// first change. The host logs each reload's problems and warnings, as
// Reload does, and passes its report to opts.OnReload (see
// [WatchOptions]). Watch also returns when the host shuts down.
//
//	go h.Watch(ctx, host.WatchOptions{OnReload: func(r host.ReloadReport) { reloads.Add(1) }})
func (h *Host) Watch(ctx context.Context, opts WatchOptions) error {
	if opts.Unlogged && opts.OnReload == nil {
		return errors.New("WatchOptions.Unlogged without OnReload would hide every reload's problems; set OnReload to tell them, or leave Unlogged false")
	}
	// Every module, routes.config.json and the runtime declaration live
	// under server/; endpoints.json at the root.
	w, err := dirwatch.New(h.app, dirwatch.Options{Roots: []string{"server"}})
	if err != nil {
		return err
	}
	defer w.Close()
	// Tests wait for this instead of sleeping before they write files.
	testhook.Watching(ctx, "app")
	changes := burst.New(watchQuiet, watchDebounce)
	defer changes.Stop()
	// What changed between the last load and the watches being set up
	// sent no event: one reload now finds it (and reports nothing when
	// nothing did).
	changes.Touch(time.Now())
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.done:
			return nil
		case err := <-w.Errors:
			h.logger.Warn("watching the app failed; reload by saving again", "error", err)
		case ev := <-w.Events:
			if slices.ContainsFunc(w.Changed(ev), watched) {
				changes.Touch(time.Now())
			}
		case <-changes.C():
			changes.Fired()
			report := h.reloadLogged(ctx, !opts.Unlogged)
			if opts.OnReload != nil && !report.Unchanged() {
				opts.OnReload(report)
			}
		}
	}
}

// watched reports whether a change of the file at rel (relative to the
// app, forward slashes) may change what the app serves. A directory
// created under server/ (rel ends in a slash) does: a module written and
// removed in it before it was watched sent no event, though a reload may
// have loaded it meanwhile.
func watched(rel string) bool {
	return rel == config.File || rel == RoutesConfigFile ||
		strings.HasPrefix(rel, "server/") && (strings.HasSuffix(rel, routefile.Extension) || strings.HasSuffix(rel, "/")) ||
		strings.HasPrefix(rel, appdb.MigrationsDir+"/") && strings.HasSuffix(rel, ".sql")
}
