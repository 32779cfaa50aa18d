package routetable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi/contract"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/openapi"
)

const configFile = "server/routes.config.json"

// report is an appload.Reporter that keeps what it hears as lines.
type report struct{ problems, notes []string }

func (r *report) Problem(err error, fresh bool) {
	r.problems = append(r.problems, fmt.Sprintf("%v fresh=%v", err, fresh))
}

func (r *report) Note(file string, now, before bool) {
	switch {
	case now && before:
		r.notes = append(r.notes, "changed "+file)
	case now:
		r.notes = append(r.notes, "added "+file)
	default:
		r.notes = append(r.notes, "removed "+file)
	}
}

// app writes the routes configuration (absent when config is "") into a
// new app directory.
func app(t *testing.T, config string) appload.Dir {
	t.Helper()
	dir := t.TempDir()
	if config != "" {
		path := filepath.Join(dir, filepath.FromSlash(configFile))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return appload.Dir(dir)
}

// readConfig is a load's ReadConfig of config beside prev.
func readConfig(t *testing.T, config string, prev *Table) (*Table, *report, bool) {
	t.Helper()
	rep := &report{}
	l := &Load{Dir: app(t, config), ConfigFile: configFile, Report: rep, Prev: prev, T: &Table{Files: map[string]*File{}}}
	l.ReadConfig()
	return l.T, rep, l.configChanged
}

const (
	validConfig  = `{"plainRoutes": {"/health": {"summary": "Health"}}}`
	otherConfig  = `{"plainRoutes": {"/health": {"summary": "Liveness"}}}`
	brokenConfig = `{"plainRoutes": 3}`
)

func TestReadConfig(t *testing.T) {
	first, _, _ := readConfig(t, validConfig, nil)
	if first.RoutesConfig == nil {
		t.Fatal("first load of a valid configuration: RoutesConfig nil")
	}
	for _, tc := range []struct {
		name     string
		config   string
		prev     *Table
		summary  string // of /health; "" when RoutesConfig is nil
		same     bool   // RoutesConfig is prev's own
		changed  bool
		problems []string // substrings, one per problem
		notes    []string
	}{
		{name: "first load, none", changed: true},
		{name: "first load, valid", config: validConfig, summary: "Health", changed: true},
		{name: "first load, broken", config: brokenConfig, changed: true, problems: []string{"/plainRoutes"}},
		{name: "unchanged: the previous one, not read again", config: validConfig, prev: first, summary: "Health", same: true},
		{name: "changed", config: otherConfig, prev: first, summary: "Liveness", changed: true, notes: []string{"changed " + configFile}},
		{name: "removed", prev: first, changed: true, notes: []string{"removed " + configFile}},
		{name: "added", config: validConfig, prev: &Table{}, summary: "Health", changed: true, notes: []string{"added " + configFile}},
		{name: "broken: the previous one keeps serving", config: brokenConfig, prev: first, summary: "Health", same: true,
			problems: []string{"/plainRoutes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, rep, changed := readConfig(t, tc.config, tc.prev)
			summary := ""
			if got.RoutesConfig != nil {
				summary = got.RoutesConfig.PlainRoutes["/health"].Summary
			}
			if summary != tc.summary {
				t.Errorf("summary = %q, want %q", summary, tc.summary)
			}
			if tc.same && (got.RoutesConfig != tc.prev.RoutesConfig || got.ConfigHash != tc.prev.ConfigHash) {
				t.Errorf("RoutesConfig, ConfigHash are not the previous table's")
			}
			if changed != tc.changed {
				t.Errorf("configChanged = %v, want %v", changed, tc.changed)
			}
			if len(rep.problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %d naming %q", rep.problems, len(tc.problems), tc.problems)
			}
			for i, want := range tc.problems {
				if !strings.Contains(rep.problems[i], want) || !strings.HasSuffix(rep.problems[i], "fresh=true") {
					t.Errorf("problem %q, want a fresh one naming %q", rep.problems[i], want)
				}
			}
			if !slices.Equal(rep.notes, tc.notes) {
				t.Errorf("notes = %q, want %q", rep.notes, tc.notes)
			}
		})
	}
}

// plain makes a plain route of file at path, its module holding no pool.
func plain(t *testing.T, file, path string) *routemod.Route {
	t.Helper()
	rf, err := routefile.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := routemod.NewRoute(rf, &routemod.Module{File: file, Index: -1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestAssemble(t *testing.T) {
	health := plain(t, "server/routes/health.wasm", "server/routes/health.wasm")
	oldPing := plain(t, "server/routes/ping.wasm", "server/routes/ping.wasm")
	prev := &Table{Files: map[string]*File{
		"server/routes/ping.wasm": {Hash: [32]byte{1}, Routes: []*routemod.Route{oldPing}},
		"server/routes/gone.wasm": {Hash: [32]byte{2}},
	}}
	a := plain(t, "server/bundles/app.wasm", "server/routes/a.wasm")
	b := plain(t, "server/bundles/app.wasm", "server/routes/b.wasm")
	broken := errors.New("server/routes/ping.wasm: a trap at load")
	files := []string{"server/routes/health.wasm", "server/routes/ping.wasm", "server/bundles/app.wasm"}
	results := []Result{
		{file: &File{Hash: [32]byte{3}, Routes: []*routemod.Route{health}}, news: true},
		{file: &File{Hash: [32]byte{4}, Err: broken}, news: true},
		{file: &File{Hash: [32]byte{5}, Routes: []*routemod.Route{a, b}}, news: true},
	}
	refused := errors.New("server/bundles/app.wasm: /b is refused")
	rep := &report{}
	l := &Load{ConfigFile: configFile, Report: rep, Prev: prev, T: &Table{Files: map[string]*File{}}}
	l.Assemble(context.Background(), files, results, func(r *routemod.Route) error {
		if r == b {
			return refused
		}
		return nil
	})
	got := l.T
	tests := []struct {
		name      string
		file      string
		routes    []*routemod.Route
		err       error
		hash      byte
		matchPath string
	}{
		{"a new module serves", "server/routes/health.wasm", []*routemod.Route{health}, nil, 3, "/health"},
		{"a failed new version keeps the previous one, its bytes remembered", "server/routes/ping.wasm", []*routemod.Route{oldPing}, broken, 4, "/ping"},
		{"a bundle's route check refuses is left out alone", "server/bundles/app.wasm", []*routemod.Route{a}, refused, 5, "/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := got.Files[tt.file]
			if f == nil {
				t.Fatalf("no file %s in the table", tt.file)
			}
			if !slices.Equal(f.Routes, tt.routes) || f.Err != tt.err || f.Hash[0] != tt.hash {
				t.Errorf("file = %d routes, err %v, hash %d; want %d routes, err %v, hash %d", len(f.Routes), f.Err, f.Hash[0], len(tt.routes), tt.err, tt.hash)
			}
			if res := got.Router.Match("GET", tt.matchPath); !res.Found || res.Value != tt.routes[0] {
				t.Errorf("GET %s: found %v, want the file's route", tt.matchPath, res.Found)
			}
		})
	}
	if res := got.Router.Match("GET", "/b"); res.Found {
		t.Errorf("GET /b: found the route check refused")
	}
	wantProblems := []string{broken.Error() + " fresh=true", refused.Error() + " fresh=true"}
	if !slices.Equal(rep.problems, wantProblems) {
		t.Errorf("problems = %q, want %q", rep.problems, wantProblems)
	}
	wantNotes := []string{"added server/routes/health.wasm", "added server/bundles/app.wasm"}
	if !slices.Equal(rep.notes, wantNotes) {
		t.Errorf("notes = %q, want %q", rep.notes, wantNotes)
	}
	if removed := l.Removed(); !slices.Equal(removed, []string{"server/routes/gone.wasm"}) {
		t.Errorf("Removed = %q, want the file prev had alone", removed)
	}
}

// endpoint makes an endpoint route of file from its contract, its module
// holding no pool.
func endpoint(t *testing.T, file, contractJSON string) *routemod.Route {
	t.Helper()
	rf, err := routefile.Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.Parse(file, []byte(contractJSON), contract.Options{Method: rf.Method})
	if err != nil {
		t.Fatal(err)
	}
	r, err := routemod.NewRoute(rf, &routemod.Module{File: file, Contract: c, ContractJSON: []byte(contractJSON), Index: -1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestInfos(t *testing.T) {
	cfg, err := openapi.ParseRoutesConfig(configFile, []byte(`{"plainRoutes": {
		"/health": {"summary": "Health"},
		"/files": {"summary": "Files", "methods": {"put": {"summary": "Upload a file"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tbl := &Table{RoutesConfig: cfg, Routes: []*routemod.Route{
		plain(t, "server/routes/health.wasm", "server/routes/health.wasm"),
		plain(t, "server/routes/files.put.wasm", "server/routes/files.put.wasm"),
		plain(t, "server/routes/files.get.wasm", "server/routes/files.get.wasm"),
		endpoint(t, "server/api/users.wasm", `{"methods": {"post": {"summary": "create"}, "get": {"summary": "list"}}}`),
	}}
	want := []Info{
		{Method: "GET", Path: "/api/users", Kind: "endpoint", Summary: "list", File: "server/api/users.wasm"},
		{Method: "POST", Path: "/api/users", Kind: "endpoint", Summary: "create", File: "server/api/users.wasm"},
		{Method: "GET", Path: "/files", Kind: "plain", Summary: "Files", File: "server/routes/files.get.wasm"},
		{Method: "PUT", Path: "/files", Kind: "plain", Summary: "Upload a file", File: "server/routes/files.put.wasm"},
		{Method: "*", Path: "/health", Kind: "plain", Summary: "Health", File: "server/routes/health.wasm"},
	}
	if got := tbl.Infos(); !slices.Equal(got, want) {
		t.Errorf("Infos =\n%v\nwant\n%v", got, want)
	}
	docs := tbl.DocRoutes(config.DefaultBodyBytes)
	if len(docs) != 4 || !docs[0].Plain || docs[3].Plain {
		t.Fatalf("DocRoutes = %+v, want the four routes in table order", docs)
	}
	var methods []string
	for _, op := range docs[3].Operations {
		methods = append(methods, op.Method)
	}
	if !slices.Equal(methods, []string{"GET", "POST"}) {
		t.Errorf("DocRoutes' endpoint operations = %q, want GET, POST in method order", methods)
	}
}

// TestSalvageAndHold: of two files whose routes the document cannot hold
// together, the later in file order is left out, with its error, and held
// for the next load; the rest serves.
func TestSalvageAndHold(t *testing.T) {
	a := plain(t, "server/routes/a.wasm", "server/routes/a.wasm")
	b := plain(t, "server/routes/b.wasm", "server/routes/b.wasm")
	c := plain(t, "server/routes/c.wasm", "server/routes/c.wasm")
	tbl := &Table{Files: map[string]*File{
		"server/routes/a.wasm": {Hash: [32]byte{1}, Routes: []*routemod.Route{a}},
		"server/routes/b.wasm": {Hash: [32]byte{2}, Routes: []*routemod.Route{b}},
		"server/routes/c.wasm": {Hash: [32]byte{3}, Routes: []*routemod.Route{c}},
		"server/routes/x.wasm": {Hash: [32]byte{4}, Err: errors.New("failed to load")},
	}, Routes: []*routemod.Route{a, b, c}}
	kept, leftOut, collision := salvageCollision(t, tbl, a, b, c)
	if len(leftOut) != 1 || !strings.Contains(leftOut[0].Error(), "server/routes/c.wasm") || !errors.Is(leftOut[0], collision) {
		t.Fatalf("leftOut = %v, want c's, wrapping the collision", leftOut)
	}
	if len(tbl.Routes) != 3 || tbl.Files["server/routes/c.wasm"].Held != nil {
		t.Fatal("Salvage changed the table")
	}
	if err := tbl.Hold(kept, leftOut); err != nil {
		t.Fatal(err)
	}
	c2 := tbl.Files["server/routes/c.wasm"]
	if len(c2.Routes) != 0 || !slices.Equal(c2.Held, []*routemod.Route{c}) || c2.Err != leftOut[0] || c2.Hash[0] != 3 {
		t.Errorf("c's file = %+v, want its route held with its error and hash", c2)
	}
	if res := tbl.Router.Match("GET", "/c"); res.Found {
		t.Error("GET /c: the route left out still serves")
	}
	if res := tbl.Router.Match("GET", "/b"); !res.Found || res.Value != b {
		t.Error("GET /b: the route kept does not serve")
	}
	if !slices.Equal(tbl.Routes, kept) {
		t.Error("Routes are not the ones kept")
	}
}

// salvageCollision runs tbl.Salvage with a document that cannot hold a
// and c together, and checks that a and b are kept, c alone left out.
func salvageCollision(t *testing.T, tbl *Table, a, b, c *routemod.Route) (kept []*routemod.Route, leftOut []error, collision error) {
	t.Helper()
	collision = errors.New(`/components/schemas/User: two routes define "User" differently`)
	kept, leftOut = tbl.Salvage(func(routes []*routemod.Route) error {
		if slices.Contains(routes, a) && slices.Contains(routes, c) {
			return collision
		}
		return nil
	})
	if !slices.Equal(kept, []*routemod.Route{a, b}) {
		t.Fatalf("kept %d routes, want a and b", len(kept))
	}
	return kept, leftOut, collision
}

// TestSalvageAndHoldBundle: a bundle whose routes the document cannot
// hold together is taken route by route: the route that collides is left
// out alone, its error naming the route, and held while the bundle's other
// routes serve; the next load tries them all again in the bundle's order.
func TestSalvageAndHoldBundle(t *testing.T) {
	const bundle = "server/bundles/go.wasm"
	route := func(path string, index int) *routemod.Route {
		t.Helper()
		rf, err := routefile.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := routemod.NewRoute(rf, &routemod.Module{File: bundle, Index: index})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b, c := route("server/routes/a.get.wasm", 0), route("server/routes/b.get.wasm", 1), route("server/routes/c.get.wasm", 2)
	tbl := &Table{Files: map[string]*File{bundle: {Hash: [32]byte{7}, Routes: []*routemod.Route{a, b, c}}}, Routes: []*routemod.Route{a, b, c}}
	kept, leftOut, collision := salvageCollision(t, tbl, a, b, c)
	lo := (*document.LeftOutError)(nil)
	if len(leftOut) != 1 || !errors.As(leftOut[0], &lo) || lo.File != bundle || lo.Route != "GET /c" || !errors.Is(leftOut[0], collision) ||
		!strings.HasPrefix(leftOut[0].Error(), bundle+" (GET /c): contract: ") {
		t.Fatalf("leftOut = %v, want c's alone, naming the bundle and its route, wrapping the collision", leftOut)
	}
	if err := tbl.Hold(kept, leftOut); err != nil {
		t.Fatal(err)
	}
	f := tbl.Files[bundle]
	if !slices.Equal(f.Routes, []*routemod.Route{a, b}) || !slices.Equal(f.Held, []*routemod.Route{c}) || f.Err != leftOut[0] || f.Hash[0] != 7 {
		t.Errorf("the bundle's file = %+v, want a and b served, c held with its error and the hash", f)
	}
	for path, want := range map[string]bool{"/a": true, "/b": true, "/c": false} {
		if res := tbl.Router.Match("GET", path); res.Found != want {
			t.Errorf("GET %s: found %v, want %v", path, res.Found, want)
		}
	}
	f.Routes, f.Held = []*routemod.Route{b}, []*routemod.Route{c, a}
	if got := f.served(); !slices.Equal(got, []*routemod.Route{a, b, c}) {
		t.Errorf("served() = %v, want a, b, c in the bundle's order", got)
	}
}

// TestKeptRoutes: of a bundle's previous routes, those its new version
// declares but refused keep serving; one it serves anew, one it no longer
// declares (its source deleted) and one refused for another reason than a
// route's (no *routemod.RefusedError) do not.
func TestKeptRoutes(t *testing.T) {
	route := func(s string) *routemod.Route {
		rf, err := routefile.FromRoute(s)
		if err != nil {
			t.Fatal(err)
		}
		return &routemod.Route{FileRoute: rf}
	}
	prev := []*routemod.Route{route("GET /api/a"), route("GET /api/b"), route("GET /api/gone"), route("POST /api/c")}
	loaded := []*routemod.Route{route("GET /api/a")}
	refused := &routemod.RefusedError{Routes: []string{"GET /api/b", "POST /api/c", "GET /api/a"}, Errs: []error{errors.New("b"), errors.New("c"), errors.New("a")}}
	var got []string
	for _, r := range keptRoutes(prev, loaded, fmt.Errorf("wrapped: %w", refused)) {
		got = append(got, r.FileRoute.String())
	}
	if want := []string{"GET /api/b", "POST /api/c"}; !slices.Equal(got, want) {
		t.Errorf("keptRoutes = %q, want %q", got, want)
	}
	if kept := keptRoutes(prev, loaded, errors.New("the declaration does not parse")); kept != nil {
		t.Errorf("keptRoutes of another error = %v, want none", kept)
	}
}

// keptBundle is a previous table whose bundle file serves a route of its
// newest module and, kept from the module before (keptRoutes), one of an
// older one: each module with its pool of e.
func keptBundle(t *testing.T, e *engine.Engine, file string) (prev *Table, newest, older *engine.Pool) {
	t.Helper()
	route := func(s string, p *engine.Pool) *routemod.Route {
		rf, err := routefile.FromRoute(s)
		if err != nil {
			t.Fatal(err)
		}
		return &routemod.Route{FileRoute: rf, Module: &routemod.Module{File: file, Pool: p}}
	}
	newest, older = e.NewPool(nil, file, 1, false), e.NewPool(nil, file, 1, false)
	prev = &Table{Files: map[string]*File{file: {Hash: [32]byte{1}, Routes: []*routemod.Route{
		route("GET /api/a", newest), route("GET /api/b", newest), route("GET /api/c", older),
	}}}}
	return prev, newest, older
}

// testEngine is an engine for pools, closed with the test.
func testEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background(), engine.Config{MemoryBytes: 16 << 20, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// TestStartStopsEveryPreviousCompile: the load of a file's new bytes
// stops the background compilation of every module of its previous
// version, that of a bundle's routes its newer version refused included,
// and lists them for the reload to resume; a load given up (Discard)
// retires none of them. Only the file's first route's pool was stopped.
func TestStartStopsEveryPreviousCompile(t *testing.T) {
	const file = "server/bundles/app.wasm"
	e := testEngine(t)
	prev, newest, older := keptBundle(t, e, file)
	dir := app(t, "")
	path := filepath.Join(string(dir), filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a module"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Load{Dir: dir, ConfigFile: configFile, Engine: e, PoolSize: 1, Logger: slog.New(slog.DiscardHandler), Report: &report{}, Prev: prev, T: &Table{Files: map[string]*File{}}}
	results := l.Start(context.Background(), []string{file})()
	if got := l.StoppedCompiles(); len(got) != 2 || !slices.Contains(got, newest) || !slices.Contains(got, older) {
		t.Errorf("StoppedCompiles = %d pools, want both of the file's previous version", len(got))
	}
	l.Discard(context.Background(), results)
	if newest.Retired() || older.Retired() {
		t.Errorf("Discard retired a pool of the previous version (newest %v, older %v), which keeps serving", newest.Retired(), older.Retired())
	}
}

// TestFilePools: a file's pools are those of its served and held routes,
// each once, in the order of their first route; the table's, those of
// every file, each once.
func TestFilePools(t *testing.T) {
	e := testEngine(t)
	const file = "server/bundles/app.wasm"
	prev, newest, older := keptBundle(t, e, file)
	kept := prev.Files[file]
	single := e.NewPool(nil, "server/routes/ping.wasm", 1, false)
	ping := &routemod.Route{Module: &routemod.Module{File: "server/routes/ping.wasm", Pool: single}}
	noPool := &routemod.Route{Module: &routemod.Module{File: "server/routes/none.wasm"}}
	tests := []struct {
		name string
		file *File
		want []*engine.Pool
	}{
		{"one module", &File{Routes: []*routemod.Route{ping}}, []*engine.Pool{single}},
		{"a bundle keeping its previous version's route", kept, []*engine.Pool{newest, older}},
		{"held routes", &File{Held: kept.Routes}, []*engine.Pool{newest, older}},
		{"served and held", &File{Routes: kept.Routes[2:], Held: kept.Routes[:2]}, []*engine.Pool{older, newest}},
		{"failed: none", &File{Err: errors.New("a trap at load")}, nil},
		{"a module without a pool", &File{Routes: []*routemod.Route{noPool}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.file.Pools(); !slices.Equal(got, tt.want) {
				t.Errorf("Pools() = %d pools %v, want %d %v", len(got), got, len(tt.want), tt.want)
			}
		})
	}
	prev.Files["server/routes/ping.wasm"] = &File{Routes: []*routemod.Route{ping}}
	prev.Files["server/routes/held.wasm"] = &File{Held: []*routemod.Route{kept.Routes[2]}}
	got := prev.Pools() // files in map order
	if len(got) != 3 || !slices.Contains(got, newest) || !slices.Contains(got, older) || !slices.Contains(got, single) {
		t.Errorf("Table.Pools() = %v, want %v once each", got, []*engine.Pool{newest, older, single})
	}
}

// TestDiscardRetiresWhatTheLoadMade: a load given up retires the modules
// it loaded from new bytes, and only those: a file reused from the
// previous table (a bundle's two versions) serves on.
func TestDiscardRetiresWhatTheLoadMade(t *testing.T) {
	e := testEngine(t)
	const file = "server/bundles/app.wasm"
	prev, newest, older := keptBundle(t, e, file)
	made := e.NewPool(nil, "server/routes/ping.wasm", 1, false)
	ping := &routemod.Route{Module: &routemod.Module{File: "server/routes/ping.wasm", Pool: made}}
	l := &Load{Prev: prev, T: &Table{Files: map[string]*File{}}}
	l.Discard(context.Background(), []Result{
		{file: prev.Files[file]},
		{file: &File{Routes: []*routemod.Route{ping}}, news: true},
		{file: &File{Err: errors.New("a trap at load")}, news: true},
	})
	for _, tc := range []struct {
		name    string
		p       *engine.Pool
		retired bool
	}{{"the new module", made, true}, {"the reused bundle's newest module", newest, false}, {"its older module", older, false}} {
		if got := tc.p.Retired(); got != tc.retired {
			t.Errorf("%s: retired %v, want %v", tc.name, got, tc.retired)
		}
	}
}
