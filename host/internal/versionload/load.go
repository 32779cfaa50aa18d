// Package versionload loads a version of an app (package appversion)
// from its directory, beside the version it replaces: the database
// migrations first, then the route modules (package routetable) while the
// runtime declaration, endpoints.json and the middleware load, then the
// bundles' middleware, then the OpenAPI document (salvaged in development
// when it cannot be built whole), the rate limits and the security plan
// it lists. A file whose bytes did not change reuses the previous
// version's value, and one that fails keeps it; what changed and what
// failed is the load's [Report].
//
// What the load asks of the host (the migrations, the settings merged
// with the embedder's, the runtime declaration's extend call, what the
// verifiers need) is the [Host] interface; swapping the version in and
// the public reload report stay with the host (host/reload.go).
package versionload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/appversion"
	"github.com/wasmendpoints/endpoints/host/internal/document"
	"github.com/wasmendpoints/endpoints/host/internal/edge"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/resolved"
	"github.com/wasmendpoints/endpoints/host/internal/restartonly"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/host/internal/routetable"
	"github.com/wasmendpoints/endpoints/host/internal/runtimedecl"
	"github.com/wasmendpoints/endpoints/internal/auth"
)

// Host is what a load asks of the host it loads a version for: the steps
// whose state the host keeps.
type Host interface {
	// Migrate applies the app's database migrations not yet applied; an
	// error fails the load.
	Migrate(ctx context.Context) error
	// Unapplied lists the app's migration files not applied yet (paths
	// relative to the app), those a reload that refuses endpoints.json
	// leaves waiting; an error says it could not tell.
	Unapplied(ctx context.Context) ([]string, error)
	// Settings resolves cfg with the embedder's settings over it; rm, the
	// runtime declaration (nil without one), may decide what neither
	// sets.
	Settings(cfg *config.App, rm *runtimedecl.Module) (*resolved.Settings, error)
	// Extend hands doc to rm's openApi.extend, to be done by deadline
	// (Unix nanoseconds), and returns the document it wrote.
	Extend(ctx context.Context, rm *runtimedecl.Module, doc []byte, deadline int64) ([]byte, error)
	// AuthEnv is what the verifiers of the security schemes need.
	AuthEnv() auth.Env
}

// Config is what a load reads beside the app's files.
type Config struct {
	// Dir is the app's directory.
	Dir appload.Dir
	// Engine compiles and runs the modules.
	Engine *engine.Engine
	// Logger receives what the load logs.
	Logger *slog.Logger
	// Development says the host runs in development: broken versions
	// serve what they can, and warnings do not fail the load.
	Development bool
	// PoolSize bounds the instances of each module (limits.instances).
	PoolSize int
	// Overrides apply to each endpoints.json a reload reads.
	Overrides []config.Override
	// First is the endpoints.json the first load serves with, read when
	// the host was made.
	First *config.App
	// RoutesConfig is the routes configuration's path in the app.
	RoutesConfig string
	// Progress hears of each route module loaded; it may be nil.
	Progress func(file string, done, total int, took time.Duration, err error)
}

// Report is what a load changed and found.
type Report struct {
	// Added, Changed and Removed list module and configuration files by
	// their path in the app.
	Added, Changed, Removed []string
	// Problems are the problems this load found that no earlier load
	// reported.
	Problems []error
	// Warnings are the version's warnings the previous version did not
	// have.
	Warnings []error
}

// VariablesChanged is what a Report lists in Changed when only the values
// of endpoints.json's "variables" changed (their environment variables or
// files), never the values themselves.
const VariablesChanged = config.File + " variables"

// Load builds a version from the app directory. With prev, a file whose
// bytes did not change reuses prev's module, and one that fails keeps
// prev's version. Modules compile in parallel, at most GOMAXPROCS at once.
// An error (the app cannot be read, a migration fails, a first
// endpoints.json is invalid) means no version.
func Load(ctx context.Context, h Host, cfg Config, prev *appversion.Version) (*appversion.Version, Report, error) {
	files, err := cfg.Dir.Modules()
	if err != nil {
		return nil, Report{}, fmt.Errorf("reading app %s: %w", cfg.Dir, err)
	}
	start := time.Now()
	l := &loading{h: h, cfg: cfg, ctx: ctx, prev: prev, t: &appversion.Version{Table: routetable.Table{Files: map[string]*routetable.File{}}, State: &appversion.State{}}}
	l.routes = routetable.Load{Dir: cfg.Dir, ConfigFile: cfg.RoutesConfig, Engine: cfg.Engine,
		PoolSize: cfg.PoolSize, Logger: cfg.Logger, Progress: cfg.Progress, Report: l, T: &l.t.Table}
	if prev != nil {
		l.routes.Prev = &prev.Table
	}
	l.routes.ReadConfig()
	// The route modules load in the background while the runtime
	// declaration, endpoints.json and the middleware load: they need none
	// of them.
	routes := l.routes.Start(ctx, files)
	l.runtimeDeclaration()
	if err := l.settings(); err != nil {
		l.routes.Discard(ctx, routes())
		return nil, l.report, err
	}
	if err := l.migrate(routes); err != nil {
		return nil, l.report, err
	}
	l.middlewareFiles()
	l.routes.Assemble(ctx, files, routes(), l.checkRoute)
	l.t.State.StoppedCompiles = l.routes.StoppedCompiles()
	l.bundledMiddleware()
	l.report.Removed = append(l.report.Removed, l.routes.Removed()...)
	slices.Sort(l.report.Removed)
	l.document()
	cfg.Logger.Debug("app loaded", "app", string(cfg.Dir), "modules", len(files), "problems", len(l.t.Problems), "took", time.Since(start).Round(time.Millisecond))
	return l.t, l.report, nil
}

// migrate applies the app's migrations once endpoints.json's settings
// are resolved, at a start as at a reload: a start its settings refuse
// (a variable without a value, a missing CA file) has returned already,
// and a reload that refuses the new endpoints.json (it does not parse, or
// its settings do not resolve: the previous settings stay, a problem
// says why) applies none, so that a deploy missing a secret changes no
// schema under the version that keeps serving; its new migrations wait
// for the reload that fixes endpoints.json (until then a route of the
// same reload that needs them fails its statements, as it would on a
// database that is behind). A migration that fails means no version: a
// start fails, a reload keeps the previous version serving whole.
//
// Resolving first at a reload has one cost, which a version refused for
// its document (reload.go) already has: a changed outbound setting made
// its new client (outbound.Clients) before a migration can fail, and the
// client the previous version keeps serving with had its idle
// connections closed; it still serves, opening new ones.
func (l *loading) migrate(routes func() []routetable.Result) error {
	if l.configRefused {
		// The refusal is the reload's problem already: a warning only
		// when a migration waits for the fix.
		waiting, err := l.h.Unapplied(l.ctx)
		switch {
		case err != nil:
			l.cfg.Logger.Warn(config.File+" refused: this reload applies no migration, and whether one waits for the reload that fixes "+config.File+" is unknown", "error", err)
		case len(waiting) > 0:
			l.cfg.Logger.Warn(config.File+" refused: this reload applies no migration; "+strings.Join(waiting, ", ")+" wait(s) for the reload that fixes "+config.File, "migrations", waiting)
		}
		return nil
	}
	if err := l.h.Migrate(l.ctx); err != nil {
		l.routes.Discard(l.ctx, routes())
		if l.prev == nil || l.t.Runtime != l.prev.Runtime {
			l.t.Runtime.Close(l.ctx)
		}
		return err
	}
	return nil
}

// loading is one run of Load: the version it builds from the app's files,
// the previous version (nil at the first load), and the report of what
// changed and what failed.
type loading struct {
	h      Host
	cfg    Config
	ctx    context.Context
	prev   *appversion.Version
	t      *appversion.Version
	report Report
	// configRefused says a reload refused the new endpoints.json (it
	// does not parse or its settings do not resolve), keeping the
	// previous settings.
	configRefused bool
	// routes makes t's route modules, routes and router (package
	// routetable), told of problems and files through the loading's
	// Problem and Note (an appload.Reporter).
	routes routetable.Load
}

// Note records a file as added (now and not before), changed (both) or
// removed (before and not now) in the report.
func (l *loading) Note(file string, now, before bool) {
	r := &l.report
	switch {
	case now && before:
		r.Changed = append(r.Changed, file)
	case now:
		r.Added = append(r.Added, file)
	case before:
		r.Removed = append(r.Removed, file)
	}
}

// checkRoute refuses what the version's settings refuse of a route: a
// timeout over limits.maxTimeout, a path the host answers before routing.
func (l *loading) checkRoute(r *routemod.Route) error {
	if err := r.CheckTimeouts(time.Duration(l.t.Set.Limits.MaxTimeout)); err != nil {
		return err
	}
	return l.t.Set.ShadowedBy(r.FileRoute)
}

// Problem records a problem of the version; fresh ones (not already
// reported for the same bytes by an earlier load) go into the report too.
func (l *loading) Problem(err error, fresh bool) {
	l.t.Problems = append(l.t.Problems, err)
	if fresh {
		l.report.Problems = append(l.report.Problems, err)
	}
}

// runtimeDeclaration loads server/endpoints/runtime.wasm: a broken new
// version keeps the previous one (appload.Next).
func (l *loading) runtimeDeclaration() {
	var prev *appload.Version[runtimedecl.Module]
	if l.prev != nil {
		prev = &appload.Version[runtimedecl.Module]{Hash: l.prev.RuntimeHash, Value: l.prev.Runtime}
	}
	v, _ := appload.Next(l.cfg.Dir, abi.RuntimeModule, prev, func(data []byte) (*runtimedecl.Module, error) {
		return runtimedecl.Load(l.ctx, l.cfg.Engine, data, l.cfg.PoolSize, l.cfg.Development)
	}, l)
	l.t.Runtime, l.t.RuntimeHash = v.Value, v.Hash
}

// settings reads endpoints.json and makes the settings of requests and
// the document. At the first load a bad one fails the load; later the
// previous settings stay.
func (l *loading) settings() error {
	t, prev := l.t, l.prev
	cfg := l.cfg.First
	if prev != nil {
		cfg = l.appConfig()
	} else {
		_, t.AppConfigHash, _ = l.cfg.Dir.Read(config.File)
	}
	var err error
	if t.Set, err = l.h.Settings(cfg, t.Runtime); err != nil {
		if prev == nil {
			t.Runtime.Close(l.ctx)
			return err
		}
		l.Problem(err, true)
		l.configRefused = true
		t.Set, t.AppConfigHash = prev.Set, prev.AppConfigHash
		return nil
	}
	if prev != nil && t.AppConfigHash == prev.AppConfigHash && !t.Set.Variables.Equal(prev.Set.Variables) {
		// The variables' sources changed (an environment variable of an
		// embedder's LookupEnv, a secret's file): the new values are
		// served, and the report says so, as for a changed file.
		l.report.Changed = append(l.report.Changed, VariablesChanged)
	}
	return nil
}

// appConfig reads endpoints.json for a reload: the new configuration when
// it changed and is valid, the previous one otherwise.
func (l *loading) appConfig() *config.App {
	t, prev := l.t, l.prev
	data, hash, err := l.cfg.Dir.Read(config.File)
	if err != nil {
		l.Problem(err, true)
		l.configRefused = true
		t.AppConfigHash = prev.AppConfigHash
		return prev.Set.Config
	}
	t.AppConfigHash = hash
	if hash == prev.AppConfigHash {
		return prev.Set.Config
	}
	cfg, err := config.Parse(config.File, data, l.cfg.Overrides...)
	if err != nil {
		l.Problem(err, true)
		l.configRefused = true
		t.AppConfigHash = prev.AppConfigHash
		return prev.Set.Config
	}
	l.Note(config.File, data != nil, prev.Set.Config != nil)
	if keys := restartonly.Keep(prev.Set.Config, cfg); len(keys) > 0 {
		l.cfg.Logger.Warn(fmt.Sprintf("%s changed %v: restart to apply those (their previous values stay in effect until then); the rest applies now", config.File, keys))
	}
	return cfg
}

// middlewareFiles loads the modules of server/middleware into the version
// (edge.LoadMiddlewareFiles), reusing prev's for files whose bytes did not
// change. A module that fails keeps its previous version, as route modules
// do.
func (l *loading) middlewareFiles() {
	var prev map[string]*edge.MiddlewareFile
	if l.prev != nil {
		prev = l.prev.MWFiles
	}
	files, served, err := edge.LoadMiddlewareFiles(l.ctx, l.cfg.Engine, l.cfg.Dir, l.cfg.PoolSize, prev, l)
	if err != nil {
		l.Problem(err, true)
		l.t.MWFiles = map[string]*edge.MiddlewareFile{}
		if l.prev != nil {
			l.t.MWFiles, l.t.Middleware = l.prev.MWFiles, l.prev.Middleware
		}
		return
	}
	l.t.MWFiles, l.t.Middleware = files, served
}

// document builds the OpenAPI document, then the security plan and the
// rate limits, which add the 401, 403 and 429 the host answers to it.
func (l *loading) document() {
	t := l.t
	for _, p := range l.plainProblems() {
		l.Problem(p, true)
	}
	var err error
	t.Doc, err = l.buildDocument(t)
	if err != nil && l.cfg.Development && (l.prev == nil || l.prev.Doc == nil || len(l.prev.LeftOut) > 0) {
		// No whole version serves yet: rather than answer 500 everywhere
		// (or refuse every edit until the document builds), serve what a
		// document can be built for, and say what is left out.
		if l.salvageDocument(err) {
			err = nil
		}
	}
	t.Warnings = append(t.Warnings, leaseWarnings(t.Routes, time.Duration(t.Set.Limits.Timeout), t.Set.Idempotency.Lease)...)
	// Noted once the security plan's are in too.
	defer l.noteWarnings()
	t.Runtime.Release(l.ctx) // the document is built: see runtimedecl.Module
	if err != nil {
		t.DocErr = fmt.Errorf("OpenAPI document: %w", err)
		l.Problem(t.DocErr, true)
		return
	}
	// Rate limits first: the limiter runs after the security check, so
	// its headers go on the answers the contracts declare, not on the
	// 401 and 403 the security plan adds next.
	if err := edge.DocumentRateLimits(t.Doc.Doc, t.Set.RateLimits); err != nil {
		l.Problem(err, true)
	}
	served := make([]edge.Served, len(t.Routes))
	for i, r := range t.Routes {
		served[i] = edge.Served{Pattern: r.Pattern}
		switch {
		case r.FileRoute.Method != "":
			served[i].Methods = []string{r.FileRoute.Method}
		case !r.Plain:
			served[i].Methods = r.Ops.Methods()
		}
	}
	for _, err := range slices.Concat(edge.UnmatchedRateLimits(t.Set.RateLimits, served), edge.UnmatchedMiddleware(t.Middleware, served)) {
		if l.cfg.Development {
			// As for the routes configuration: deleting a route must
			// not take the app down while it is being edited.
			t.Warnings = append(t.Warnings, fmt.Errorf("%w; ignored in development, a production start (endpoints serve) refuses it", err))
			continue
		}
		l.Problem(err, true)
	}
	var prevPlan *appversion.Security
	if l.prev != nil {
		prevPlan = l.prev.Security
	}
	env := l.h.AuthEnv()
	plan, problems := appversion.PlanSecurity(t, prevPlan, env)
	for _, p := range problems {
		err := fmt.Errorf("security: %w", p)
		if _, unset := errors.AsType[*auth.UnsetError](p); unset && env.Offline {
			// A build or a check, in CI: the deployment gives it, and
			// a host that serves refuses the app without it.
			t.Warnings = append(t.Warnings, err)
			continue
		}
		l.Problem(err, true)
	}
	t.Security = plan
	if plan != nil {
		t.CORS = t.Set.CORS.WithHeaders(plan.KeyHeaders)
	}
	t.NoteLeftOut()
	// The document now lists the 401 and 403 the host answers.
	if d, err := document.Encode(t.Doc.Doc); err == nil {
		t.Doc = d
	}
}

// noteWarnings reports the version's warnings that prev did not have.
func (l *loading) noteWarnings() {
	if l.prev == nil {
		return // the host logs them all at its start
	}
	for _, w := range l.t.Warnings {
		if !slices.ContainsFunc(l.prev.Warnings, func(old error) bool { return old.Error() == w.Error() }) {
			l.report.Warnings = append(l.report.Warnings, w)
		}
	}
}
