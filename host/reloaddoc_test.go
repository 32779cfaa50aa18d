package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/openapi"
)

// defsModule is GET answering {"version":1}, whose contract's 200 is the
// $defs entry "Thing", of type typ: two of them with different types
// collide in the document's components/schemas.
func defsModule(typ string) watModule {
	data, write := watWrite(3000, `{"version":1}`)
	return watModule{
		contract: fmt.Sprintf(`{"summary":"things","responses":{"200":{"schema":{"$ref":"#/$defs/Thing"}}},"$defs":{"Thing":{"type":%q}}}`, typ),
		handle:   write + ` (i32.const 0)`,
		extra:    data,
	}
}

// watBytes assembles a WAT source and returns the module's bytes.
func watBytes(t testing.TB, src string) []byte {
	t.Helper()
	a := newApp(t).watSource("m.wasm", src)
	data, err := os.ReadFile(filepath.Join(a.dir, "m.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// put writes a file of the app as an editor or a build saves it: whole,
// renamed into place, so that a watcher never reads it half written.
func (a *app) put(rel string, data []byte) {
	a.t.Helper()
	p := filepath.Join(a.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		a.t.Fatal(err)
	}
	if err := os.WriteFile(p+".part", data, 0o644); err != nil {
		a.t.Fatal(err)
	}
	if err := os.Rename(p+".part", p); err != nil {
		a.t.Fatal(err)
	}
}

// remove deletes a file of the app.
func (a *app) remove(rel string) {
	a.t.Helper()
	if err := os.Remove(filepath.Join(a.dir, filepath.FromSlash(rel))); err != nil {
		a.t.Fatal(err)
	}
}

// errorsText joins errors, one per line.
func errorsText(errs []error) string {
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

// logged is s as a text log line quotes it inside a value.
func logged(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }

// loggedAtWarn reports whether a line of log at level WARN or ERROR holds
// s.
func loggedAtWarn(log, s string) bool { return linesAtWarn(log, s) > 0 }

// TestReloadNeverTakesTheAppDown: a reload under Watch that makes the
// app's document fail to build (a $defs collision between two routes, a
// duplicate operationId, a failing openApi.extend) keeps the previous
// version serving whole, its routes and its document, and reports the
// problem (the reload's report, which the log does not repeat under
// WatchOptions.Unlogged, and Problems); once fixed, what is on disk serves and the problem is gone. A route deleted while
// routes.config.json still describes it leaves a warning, and the rest of
// the app serves.
func TestReloadNeverTakesTheAppDown(t *testing.T) {
	const fine = "server/api/v.get.wasm"
	fineModule := assemble(t, defsModule("object"))
	tests := []struct {
		name  string
		setup func(a *app)
		// change is the reload's edit; fix, when set, repairs it.
		change, fix func(a *app)
		// problem is in the reload's Problems, and the previous version
		// keeps serving; warning is in its Warnings, and the new version
		// serves.
		problem, warning string
		is               error
		// gone must answer 404 once the change is served; added is a
		// route the refused change adds, which answers 404 saying why.
		gone, added string
	}{
		{
			name: "a $defs collision between two routes",
			change: func(a *app) {
				a.put("server/api/other.get.wasm", assemble(t, defsModule("string")))
			},
			fix: func(a *app) {
				a.put("server/api/other.get.wasm", assemble(t, defsModule("object")))
			},
			problem: "server/api/other.get.wasm",
			is:      openapi.ErrSchemaConflict,
			added:   "/api/other",
		},
		{
			name: "a duplicate operationId",
			setup: func(a *app) {
				a.file("server/api/user-groups.get.wasm", assemble(t, versionModule(2, false)))
			},
			change: func(a *app) {
				a.put("server/api/user_groups.get.wasm", assemble(t, versionModule(3, false)))
			},
			fix:     func(a *app) { a.remove("server/api/user_groups.get.wasm") },
			problem: `operationId "getApiUserGroups"`,
			is:      openapi.ErrDuplicateOperationID,
			added:   "/api/user_groups",
		},
		{
			name: "a failing openApi.extend",
			change: func(a *app) {
				a.put("server/endpoints/runtime.wasm", watBytes(t, runtimeWAT(`{"openApi":{"extend":true}}`, `(i32.const 3)`)))
			},
			fix:     func(a *app) { a.remove("server/endpoints/runtime.wasm") },
			problem: "openApi.extend returned error code 3",
		},
		{
			name: "a deleted endpoint routes.config.json describes",
			setup: func(a *app) {
				a.file("server/api/gone.get.wasm", assemble(t, versionModule(4, false)))
				a.file(host.RoutesConfigFile, []byte(`{"routes":{"/api/gone":{"responses":{"503":{"description":"Busy"}}}}}`))
			},
			change:  func(a *app) { a.remove("server/api/gone.get.wasm") },
			warning: `/routes/~1api~1gone: pattern "/api/gone"`,
			is:      openapi.ErrUnmatchedPattern,
			gone:    "/api/gone",
		},
		{
			name: "a deleted plain route plainRoutes describes",
			setup: func(a *app) {
				a.file("server/routes/feed.get.wasm", assemble(t, versionModule(5, true)))
				a.file(host.RoutesConfigFile, []byte(`{"plainRoutes":{"/feed":{"summary":"The feed"}}}`))
			},
			change:  func(a *app) { a.remove("server/routes/feed.get.wasm") },
			warning: `/plainRoutes/~1feed: "/feed" is not a plain route`,
			is:      openapi.ErrUnmatchedPattern,
			gone:    "/feed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newApp(t).file(fine, fineModule)
			if tt.setup != nil {
				tt.setup(a)
			}
			h, logs := a.host(host.Options{Mode: host.Development})
			reports := make(chan host.ReloadReport, 16)
			ctx, cancel := context.WithCancel(context.Background())
			// As `endpoints dev` watches: the reports tell the problems,
			// which the host does not log.
			done := startWatchWith(t, ctx, h, host.WatchOptions{OnReload: func(r host.ReloadReport) { reports <- r }, Unlogged: true})
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Watch: %v", err)
				}
			}()
			// next waits for the report of a reload that did what want says.
			next := func(what string, want func(host.ReloadReport) bool) host.ReloadReport {
				t.Helper()
				var seen []string
				for {
					select {
					case r := <-reports:
						if want(r) {
							return r
						}
						seen = append(seen, r.String())
					case <-time.After(10 * time.Second):
						t.Fatalf("no reload %s within 10 s; reports: %q\nLOGS:\n%s\nPROBLEMS: %v", what, seen, logs.String(), h.Problems())
					}
				}
			}
			before := serveOnce(h, "GET", "/_endpoints/schema")
			if !strings.HasPrefix(before, "200 ") {
				t.Fatalf("the schema before the change: %s", before)
			}
			fineServes := func(when string) {
				t.Helper()
				if got := serveOnce(h, "GET", "/api/v"); got != `200 {"version":1}` {
					t.Errorf("%s: GET /api/v = %s, want 200: a fine route keeps serving", when, got)
				}
			}

			tt.change(a)
			if tt.problem != "" {
				r := next("reporting the problem", func(r host.ReloadReport) bool { return len(r.Problems) > 0 })
				if got := errorsText(r.Problems); !strings.Contains(got, tt.problem) {
					t.Errorf("the report's problems:\n%s\nwant %q", got, tt.problem)
				}
				if tt.is != nil && !slices.ContainsFunc(r.Problems, func(err error) bool { return errors.Is(err, tt.is) }) {
					t.Errorf("no problem of the report is %v: %v", tt.is, r.Problems)
				}
				if !strings.Contains(r.String(), "the previous version keeps serving") {
					t.Errorf("the report's line %q does not say that the previous version keeps serving", r.String())
				}
				fineServes("after the change")
				if got := serveOnce(h, "GET", "/_endpoints/schema"); got != before {
					t.Errorf("the schema after the change:\n%s\nwant the previous document:\n%s", got, before)
				}
				if tt.added != "" {
					// The development 404 says why the route is not there.
					got := serveOnce(h, "GET", tt.added)
					if !strings.HasPrefix(got, "404 ") || !strings.Contains(got, "the last reload was refused") || !strings.Contains(got, logged(tt.problem)) {
						t.Errorf("GET %s while the reload that adds it is refused = %s, want 404 naming %q", tt.added, got, tt.problem)
					}
				}
				if got := errorsText(h.Problems()); !strings.Contains(got, tt.problem) {
					t.Errorf("Problems() = %q, want the refused reload's %q", got, tt.problem)
				}
				// Watch's OnReload has the problem (Unlogged): the log does not repeat
				// it (endpoints dev would print it twice).
				if log := logs.String(); loggedAtWarn(log, logged(tt.problem)) {
					t.Errorf("the log repeats %q, which the report to OnReload says:\n%s", tt.problem, log)
				}

				tt.fix(a)
				r = next("without problems after the fix", func(r host.ReloadReport) bool { return len(r.Problems) == 0 })
				if strings.Contains(r.String(), "problem") {
					t.Errorf("the fix's report %q still speaks of problems", r)
				}
				fineServes("after the fix")
				if p := h.Problems(); len(p) != 0 {
					t.Errorf("Problems() after the fix = %v, want none", p)
				}
				if got := serveOnce(h, "GET", "/api/nothing"); strings.Contains(got, "refused") {
					t.Errorf("a 404 after the fix still speaks of the refused reload: %s", got)
				}
				if got := serveOnce(h, "GET", "/_endpoints/schema"); !strings.HasPrefix(got, "200 ") {
					t.Errorf("the schema after the fix: %s", got)
				}
				return
			}

			r := next("reporting the warning", func(r host.ReloadReport) bool { return len(r.Warnings) > 0 })
			if len(r.Problems) != 0 {
				t.Errorf("the report's problems: %v, want none: a pattern left behind is a warning in development", r.Problems)
			}
			if got := errorsText(r.Warnings); !strings.Contains(got, tt.warning) {
				t.Errorf("the report's warnings:\n%s\nwant %q", got, tt.warning)
			}
			if !slices.ContainsFunc(r.Warnings, func(err error) bool { return errors.Is(err, tt.is) }) {
				t.Errorf("no warning of the report is %v: %v", tt.is, r.Warnings)
			}
			fineServes("after the delete")
			if got := serveOnce(h, "GET", tt.gone); !strings.HasPrefix(got, "404 ") {
				t.Errorf("GET %s after its module was deleted = %s, want 404", tt.gone, got)
			}
			schema := serveOnce(h, "GET", "/_endpoints/schema")
			if !strings.HasPrefix(schema, "200 ") || strings.Contains(schema, `"`+tt.gone+`"`) {
				t.Errorf("the schema after the delete still lists %s, or fails:\n%s", tt.gone, schema)
			}
			if got := errorsText(h.Warnings()); !strings.Contains(got, tt.warning) {
				t.Errorf("Warnings() = %q, want %q", got, tt.warning)
			}
			if p := h.Problems(); len(p) != 0 {
				t.Errorf("Problems() = %v, want none", p)
			}
			if log := logs.String(); loggedAtWarn(log, logged(tt.warning)) {
				t.Errorf("the log repeats the warning %q, which the report to OnReload says:\n%s", tt.warning, log)
			}
		})
	}
}

// TestUnmatchedPatternByMode: an entry of routes.config.json that matches
// no route is a warning in development, where the app serves without it,
// and fails a production start, naming the file and the entry.
func TestUnmatchedPatternByMode(t *testing.T) {
	a := newApp(t).
		file("server/api/v.get.wasm", assemble(t, versionModule(1, false))).
		file(host.RoutesConfigFile, []byte(`{"routes":{"/api/gone":{}},"plainRoutes":{"/feed":{"summary":"The feed"}}}`))
	want := []string{`/routes/~1api~1gone: pattern "/api/gone"`, `/plainRoutes/~1feed: "/feed" is not a plain route`}

	_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, CacheDir: testCacheDir(t), Logger: discardLogger()})
	if !errors.Is(err, openapi.ErrUnmatchedPattern) {
		t.Errorf("New in Production = %v, want an error wrapping ErrUnmatchedPattern", err)
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("New in Production = %v, want it to name %q", err, w)
		}
	}

	h, logs := a.host(host.Options{Mode: host.Development})
	if got := serveOnce(h, "GET", "/api/v"); got != `200 {"version":1}` {
		t.Errorf("GET /api/v in Development = %s, want 200", got)
	}
	if got := serveOnce(h, "GET", "/_endpoints/schema"); !strings.HasPrefix(got, "200 ") {
		t.Errorf("the schema in Development: %s", got)
	}
	if p := h.Problems(); len(p) != 0 {
		t.Errorf("Problems() = %v, want none", p)
	}
	warnings := errorsText(h.Warnings())
	for _, w := range want {
		if !strings.Contains(warnings, w) {
			t.Errorf("Warnings() = %q, want %q", warnings, w)
		}
		if !strings.Contains(logs.String(), logged(w)) {
			t.Errorf("the log does not warn %q:\n%s", w, logs)
		}
	}
	// A reload that changes nothing reports nothing: the warnings were
	// given at the start.
	if r := h.Reload(context.Background()); !r.Unchanged() {
		t.Errorf("a reload without changes: %s (%v)", r, r.Warnings)
	}
}
