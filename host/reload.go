package host

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/retire"
	"github.com/wasmendpoints/endpoints/host/internal/versionload"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/unserved"
	"github.com/wasmendpoints/endpoints/openapi"
)

// acquire takes a reference to the current table for one request.
func (h *Host) acquire() *table {
	for {
		t := h.table.Load()
		t.State.Refs.Hold()
		if !t.State.Refs.Retired() {
			return t
		}
		h.releaseTable(t)
	}
}

// releaseTable drops a request's reference; the last one out of a retired table
// closes what it alone held.
func (h *Host) releaseTable(t *table) {
	if t.State.Refs.Release() {
		t.Drained()
	}
}

// ReloadReport says what a reload changed.
type ReloadReport struct {
	// Added, Changed and Removed list module and configuration files by
	// their path in the app.
	Added, Changed, Removed []string
	// Problems are the files that failed to load: a file that served
	// before keeps serving its previous version. When the new version's
	// OpenAPI document cannot be built (two routes' $defs collide, two
	// operations share an operationId, openApi.extend fails...), no file
	// can be trusted to serve with it: Refused is set and the previous
	// version keeps serving whole; unless no whole version served before
	// (in Development), when what the document cannot be built with is
	// left out and listed here, and the rest serves.
	Problems []error
	// Refused says the new version was not swapped in: its document could
	// not be built (a problem says why), so the previous version, routes,
	// settings and document, keeps serving until a reload fixes it.
	Refused bool
	// Recovered says the reload before this one was refused or loaded
	// no version (a migration failed), or the
	// version before this one had problems this one has not (a file that
	// failed saved back to the bytes that serve), and this one serves
	// what is on disk again.
	Recovered bool
	// Warnings are what the new version serves despite, in development:
	// new entries of server/routes.config.json that apply to no route,
	// such as a pattern left behind by a deleted route; and in either mode
	// an Idempotency-Key operation whose timeout is over half
	// idempotency.lease (see [Host.Warnings]).
	Warnings []error
	// Took is how long the reload took.
	Took time.Duration
}

// Unchanged reports whether the reload found nothing new.
func (r ReloadReport) Unchanged() bool {
	return len(r.Added)+len(r.Changed)+len(r.Removed) == 0 && len(r.Problems) == 0 && len(r.Warnings) == 0 && !r.Recovered
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
	verb := "reloaded"
	if r.Refused {
		verb = "not reloaded"
	}
	s := fmt.Sprintf("%s in %s: %s", verb, r.Took.Round(time.Millisecond), strings.Join(parts, "; "))
	left := 0
	for _, p := range r.Problems {
		if lo := (*document.LeftOutError)(nil); errors.As(p, &lo) {
			left++
		}
	}
	if n := len(r.Problems) - left; n > 0 {
		s += fmt.Sprintf("; %d problem(s), the previous version keeps serving", n)
	}
	if left > 0 {
		s += fmt.Sprintf("; %d left out, the OpenAPI document cannot be built with them; the rest serves", left)
	} else if len(r.Problems) == 0 && r.Recovered {
		s += "; fixed, the app on disk serves"
	}
	if n := len(r.Warnings); n > 0 {
		s += fmt.Sprintf("; %d warning(s)", n)
	}
	return s
}

// Reload reads the app directory again and swaps in a new version of the
// route table, schemas, settings and OpenAPI document at once. Only files
// whose bytes changed are loaded again: a new, changed or removed module,
// the routes configuration, the runtime declaration or endpoints.json. A file that fails to
// load keeps its previous version serving, and is listed in the report's
// Problems (and in Problems()). A version whose OpenAPI document cannot be
// built is not swapped in at all: the previous one keeps serving whole and
// the report says Refused. Requests in flight finish on the version
// they started with; modules that left are closed when they end.
//
// Of endpoints.json, limits.memoryBytes, limits.recycleMemoryBytes,
// limits.instances, limits.instanceIdleTimeout and storage apply at the
// next start (a warning says so); the rest applies now. After Close,
// Reload does nothing and reports a problem. [Observer.Reload] receives every report.
func (h *Host) Reload(ctx context.Context) ReloadReport {
	return h.reloadLogged(ctx, true)
}

// reloadLogged is Reload; logged says the host logs the report's
// problems and warnings, which Watch leaves to its OnReload when told
// (WatchOptions.Unlogged).
func (h *Host) reloadLogged(ctx context.Context, logged bool) ReloadReport {
	report := h.reload(ctx, logged)
	if o := h.opts.Observer; o != nil && o.Reload != nil {
		o.Reload(report)
	}
	return report
}

func (h *Host) reload(ctx context.Context, logged bool) ReloadReport {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	start := time.Now()
	if h.requests.Closed() {
		return ReloadReport{Problems: []error{ErrClosed}}
	}
	prev := h.table.Load()
	t, report, err := h.load(ctx, prev)
	// What the load left to the compiler starts once it is done, swapped
	// in or not (a pool that is not served turns the compiled code down).
	defer h.engine.StartCompiles()
	if t != nil {
		// Before StartCompiles (deferred calls run last first): the
		// previous version's pools that still serve, their file's new
		// bytes having failed or been refused, compile again.
		defer func() {
			for _, p := range t.State.StoppedCompiles {
				h.engine.ResumeCompiling(p)
			}
			// Not held any longer: the pools of the previous version
			// that retired keep their code and wazero's decoded module
			// (some 13 MB for a saved Go bundle) while t serves.
			t.State.StoppedCompiles = nil
		}()
	}
	if err != nil {
		// No version (a migration failed, endpoints.json cannot be read):
		// the previous one keeps serving whole, as when its document is
		// refused, and the reload that loads one says it recovered; a
		// migration fixed or removed changes no file of the version, so
		// without it endpoints dev said nothing after the failure.
		report.Problems = append(report.Problems, err)
		failed := slices.Clone(report.Problems)
		h.refused.Store(&failed)
		report.Took = time.Since(start)
		return report
	}
	if h.requests.Closed() {
		// Close began while this version loaded: it is never served.
		t.Discard(prev)
		return ReloadReport{Problems: []error{ErrClosed}, Took: time.Since(start)}
	}
	if t.DocErr != nil && prev.Doc != nil {
		// Without its document the new version's security, and so every
		// endpoint of it, is unknown: rather than answer 500 everywhere,
		// the previous version keeps serving whole, as the log says, until
		// a reload builds a document again.
		t.Discard(prev)
		report.Refused = true
		refused := slices.Clone(report.Problems)
		h.refused.Store(&refused)
		report.Took = time.Since(start)
		if logged {
			loadSide{h}.logProblems(report)
		}
		return report
	}
	// A file that failed, saved back to the bytes that serve, changes no
	// file of the version but clears its problem: the report says so, or
	// it would read as Unchanged and the failure stay the last word.
	report.Recovered = h.refused.Swap(nil) != nil || len(prev.Problems) > 0 && len(t.Problems) == 0
	if report.Unchanged() && len(t.Problems) == len(prev.Problems) {
		// Nothing to swap: close what the attempt opened (nothing, when
		// every file was reused).
		t.Discard(prev)
		report.Took = time.Since(start)
		return report
	}
	prev.State.Leaving = retire.Exclusive(prev.Pools(), t.Pools())
	prev.State.Next = t.Security
	h.table.Store(t)
	if prev.State.Refs.Retire() {
		prev.Drained()
	}
	report.Took = time.Since(start)
	if logged {
		loadSide{h}.logProblems(report)
	}
	return report
}

// notFoundData is the data of a 404's body for r: the path and, in
// development, why the route that would answer it failed to load (a Go
// route of a bundle that does not compile, say), the route of a module
// that failed to load or build at the path (unserved), what t left out of
// its document (see versionload's salvage) and why a reload is refused,
// since the route asked for may be one of those.
func (h *Host) notFoundData(t *table, r *http.Request) map[string]string {
	data := map[string]string{"path": r.URL.Path}
	if h.opts.Mode == Development {
		note := t.Unserved().Note(r.URL.EscapedPath())
		// The table's note names each failed route of the path with its
		// error, as Failed does: a module's error (a compiler's, many
		// lines) is said once.
		if err := t.Failed(r.Method, r.URL.EscapedPath()); err != nil && !strings.Contains(note, err.Error()) {
			data["failed"] = "the route failed to load, and does not serve until it is fixed: " + err.Error()
		}
		notes := []string{note}
		if h.opts.Unserved != nil {
			notes = append(notes, h.opts.Unserved(r.URL.EscapedPath()))
		}
		if note := unserved.Join(notes...); note != "" {
			data["unserved"] = note
		}
	}
	if note := t.Set.DocumentOff(r.URL.Path); note != "" {
		data["document"] = note
	}
	if len(t.LeftOut) > 0 {
		data["leftOut"] = "the OpenAPI document could not be built whole, and this is left out until it is fixed: " + errorsLine(t.LeftOut)
	}
	if refused := h.refused.Load(); refused != nil && h.opts.Mode == Development {
		data["reload"] = "the last reload was refused and the previous version keeps serving: " + errorsLine(*refused)
	}
	return data
}

// errorsLine joins errors' texts with "; ".
func errorsLine(errs []error) string {
	lines := make([]string, len(errs))
	for i, p := range errs {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "; ")
}

// logProblems logs the problems and warnings a reload found.
func (h loadSide) logProblems(report ReloadReport) {
	for _, p := range report.Problems {
		if lo := (*document.LeftOutError)(nil); errors.As(p, &lo) {
			h.logger.Error("left out: the OpenAPI document cannot be built with it; the rest serves", "error", p)
			continue
		}
		h.logger.Error("not reloaded; the previous version keeps serving", "error", p)
	}
	for _, w := range report.Warnings {
		h.logger.Warn(warningMessage(w), "warning", w)
	}
}

// warningMessage is the log message of a load's warning w.
func warningMessage(w error) string {
	if errors.Is(w, openapi.ErrUnmatchedPattern) {
		return "entry that matches no route ignored"
	}
	if u, ok := errors.AsType[*auth.UnsetError](w); ok {
		return fmt.Sprintf("serve refuses the app unless the deployment sets %s (%s)", u.Setting, u.Source())
	}
	return "load warning"
}

// load builds a table from the app directory (versionload.Load). With
// prev, a file whose bytes did not change reuses prev's module, and one
// that fails keeps prev's version.
func (h *Host) load(ctx context.Context, prev *table) (*table, ReloadReport, error) {
	t, r, err := versionload.Load(ctx, loadSide{h}, versionload.Config{Dir: appload.Dir(h.app), Engine: h.engine,
		Logger: h.logger, Development: h.opts.Mode == Development, PoolSize: limitInstances(h.opts.Limits),
		Overrides: h.opts.ConfigOverrides, First: h.config, RoutesConfig: RoutesConfigFile, Progress: h.loadProgress()}, prev)
	return t, ReloadReport{Added: r.Added, Changed: r.Changed, Removed: r.Removed, Problems: r.Problems, Warnings: r.Warnings}, err
}

// loadProgress is what Options.Progress hears of a load of route modules;
// nil without one.
func (h *Host) loadProgress() func(file string, done, total int, took time.Duration, err error) {
	p := h.opts.Progress
	if p == nil {
		return nil
	}
	return func(f string, done, total int, took time.Duration, err error) {
		p(Progress{Stage: StageLoad, File: f, Done: done, Total: total, Took: took, Err: err})
	}
}
