// Package host loads an Endpoints app and serves it: route modules compiled
// with wazero, requests validated against each endpoint's contract before the
// guest runs, answers checked against the declared responses.
//
// [New] loads the app in a directory; the [Host] it returns is an
// [http.Handler]:
//
//	h, err := host.New(ctx, "examples/users", host.Options{Mode: host.Development})
//	if err != nil {
//		log.Fatal(err) // every bad module, one per line
//	}
//	defer h.Close(ctx)
//	http.ListenAndServe("127.0.0.1:3000", h) // or h.HTTPServer(), with the app's timeouts
//
// [Options] configure the host from Go. The app's endpoints.json holds
// the same settings as JSON; package config decodes and checks it
// ([config.App]) and names each setting's default ([config.Limits],
// [config.Server], [config.Storage], [config.Idempotency],
// [config.OpenAPI]), and Options' fields of the same types win over the
// file's, field by field. A Host keeps serving while it changes:
// [Host.Reload] and [Host.Watch] swap in a new version of the app,
// [Host.Shutdown] stops it gracefully, [Host.Ready] says whether it should
// get traffic, and an [Observer] receives its events (packages
// observe/prometheus and observe/accesslog are two).
//
// The rules the host enforces are in docs/spec.md: §2 for how file names
// become routes, §4 for the order of the request pipeline, which is part of
// the contract, and §8 for endpoints.json.
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/appversion"
	"github.com/wasmendpoints/endpoints/host/internal/dbgate"
	"github.com/wasmendpoints/endpoints/host/internal/dbstate"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
	"github.com/wasmendpoints/endpoints/host/internal/idempotency"
	"github.com/wasmendpoints/endpoints/host/internal/inflight"
	"github.com/wasmendpoints/endpoints/host/internal/janitor"
	"github.com/wasmendpoints/endpoints/host/internal/outbound"
	"github.com/wasmendpoints/endpoints/host/internal/pace"
	"github.com/wasmendpoints/endpoints/host/internal/pipelining"
	"github.com/wasmendpoints/endpoints/host/internal/routemod"
	"github.com/wasmendpoints/endpoints/host/internal/routes"
	"github.com/wasmendpoints/endpoints/host/internal/variables"
	"github.com/wasmendpoints/endpoints/internal/appdb"
	"github.com/wasmendpoints/endpoints/internal/ratelimit"
	"github.com/wasmendpoints/endpoints/storage"
)

// Host serves one app. It is safe for concurrent use.
type Host struct {
	app    string
	opts   Options
	config *config.App
	logger *slog.Logger
	engine *engine.Engine
	table  atomic.Pointer[table]
	calls  sync.Pool // *call
	// base are the options New was given; opts the same merged with the
	// endpoints.json read at New, for what only a restart changes (the
	// engine, the store, pool sizes). What requests use lives in each
	// table's settings.
	base Options
	// store keeps Idempotency-Key records and the guests' key-value data,
	// under namespace; ownStore says the host opened it and closes it.
	store     storage.Store
	ownStore  bool
	namespace string
	// dbs are the app's databases (package appdb), opened on first use
	// and closed with the host.
	dbs *appdb.Set
	// dbRetry applies in the background the migrations of a database
	// that could not be reached at a load.
	dbRetry dbgate.Retry
	// dbState logs a database the guests' statements find unavailable,
	// and available again, once each way.
	dbState dbstate.State
	// idem is the Idempotency-Key step, over store (package
	// idempotency); set with the store, before the host serves.
	idem     idempotency.Step
	reloadMu sync.Mutex       // one Reload at a time; Shutdown holds it too
	janitor  *janitor.Janitor // closes idle instances beyond one per module
	// halt is closed, and halted set, when Close stops the calls still
	// running: guests stop at their next interrupt check or host call.
	halt   chan struct{}
	halted atomic.Bool
	// statements ends (endStatements) with halt: the database
	// statements the stopped calls wait on are cancelled. Nil (never)
	// in a host that serves no call.
	statements    context.Context
	endStatements context.CancelFunc
	// The lifecycle: requests counts the requests in ServeHTTP, and
	// refuses new ones once closed, when watchers stop too (done is
	// closed). closeOnce makes Shutdown and Close safe to call
	// concurrently and repeatedly.
	requests          inflight.Gate
	done              chan struct{}
	closeOnce         sync.Once
	stopErr, closeErr error
	closed            chan struct{} // closed when the host has finished closing

	// refused are the problems of the last reload when its version was
	// not swapped in (its document could not be built, or no version
	// loaded: a migration failed; see reload); nil once a reload serves
	// what is on disk. Written under reloadMu.
	refused atomic.Pointer[[]error]
	// outbound sends the guests' outbound HTTP requests; a reload that
	// leaves endpoints.json's outbound settings alone keeps its client,
	// with its connections and per-host counts.
	outbound outbound.Clients
}

// table is one loaded version of the app (package appversion), and
// securityPlan what it enforces of its document's security.
type (
	table        = appversion.Version
	securityPlan = appversion.Security
)

// route is one route of a table (package routemod), and operation one
// method of an endpoint, compiled from its contract (package routes).
type (
	route     = routemod.Route
	operation = routes.Operation
)

// LoadError lists every problem of a load, one per line: what [New]
// returns in [Production], and [Host.WaitCompiled] for code that failed to
// load after New returned.
type LoadError struct {
	// Problems are the failures, each naming its file (and a bundle's
	// route, "server/bundles/go.wasm (GET /api/x)").
	Problems []error
}

// Error returns the count of problems and each one, indented, one per
// line. A problem that joins several (a bundle's refused routes) counts as
// as many: the count is of problems, not of modules, since one module (a
// bundle of a hundred routes) may have many and one problem (two modules
// claiming a route) may name two.
func (e *LoadError) Error() string {
	var lines []string
	for _, p := range e.Problems {
		lines = appendProblem(lines, p)
	}
	return fmt.Sprintf("%d problem(s) loading the app:\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// appendProblem appends err's lines to lines: those of each error it
// joins (errors.Join, a bundle's refused routes) when it spans lines,
// its text otherwise.
func appendProblem(lines []string, err error) []string {
	if j, ok := err.(interface{ Unwrap() []error }); ok && strings.Contains(err.Error(), "\n") {
		for _, e := range j.Unwrap() {
			lines = appendProblem(lines, e)
		}
		return lines
	}
	return append(lines, strings.ReplaceAll(err.Error(), "\n", "\n  "))
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (e *LoadError) Unwrap() []error { return e.Problems }

// New loads the app in appDir: endpoints.json, then every module under
// server/api and server/routes. In Production any bad module fails New with
// a *LoadError listing all of them; in Development bad modules are logged,
// left out, and listed by Problems, and the rest is served.
func New(ctx context.Context, appDir string, opts Options) (*Host, error) {
	if fi, err := os.Stat(appDir); err != nil {
		return nil, fmt.Errorf("app directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("app directory %s: not a directory", appDir)
	}
	cfg, err := config.Load(appDir, opts.ConfigOverrides...)
	if err != nil {
		return nil, err
	}
	// Checked by config's rules for endpoints.json's "openApi", so that
	// a bad value reads the same whichever way it arrives.
	if err := config.CheckOpenAPI("host.Options.OpenAPI", opts.OpenAPI); err != nil {
		return nil, err
	}
	base := opts
	opts = opts.merge(cfg)
	if !opts.SkipVariables {
		// Looked up again with the settings, after the modules began to
		// load; checked first so that a start missing a value fails
		// before it opens a database or says a module loaded.
		if _, err := variables.Resolve(cfg.Variables, variables.Source{LookupEnv: opts.LookupEnv, Dir: appDir}); err != nil {
			return nil, err
		}
	}
	logger := opts.logger()
	e, err := newEngine(ctx, &opts, logger)
	if err != nil {
		return nil, err
	}
	h := &Host{app: appDir, base: base, opts: opts, config: cfg, logger: logger, engine: e,
		halt: make(chan struct{}), done: make(chan struct{}), closed: make(chan struct{})}
	h.statements, h.endStatements = context.WithCancel(context.Background())
	h.calls.New = func() any { return new(call) }
	life := lifecycle{h}
	if err := life.openStore(ctx); err != nil {
		_ = e.Close(ctx)
		return nil, err
	}
	h.idem = idempotency.Step{Store: h.store, Namespace: h.namespace, Logger: logger, WriteError: writeIdempotencyError,
		ClientBytes: h.opts.Storage.IdempotencyClientBytes}
	if err := life.openDatabases(); err != nil {
		life.closeStore()
		_ = e.Close(ctx)
		return nil, err
	}
	// Before the load, which says each module loaded and migrates.
	if err := (loadSide{h}).checkStart(); err != nil {
		life.closeOutbound()
		life.closeDatabases()
		life.closeStore()
		_ = e.Close(ctx)
		return nil, err
	}
	t, _, err := h.load(ctx, nil)
	if err != nil {
		life.closeOutbound()
		life.closeDatabases()
		life.closeStore()
		_ = e.Close(ctx)
		return nil, err
	}
	if len(t.Problems) > 0 {
		if opts.Mode != Development {
			t.Close(ctx)
			life.closeDatabases()
			life.closeStore()
			_ = e.Close(ctx)
			return nil, &LoadError{Problems: t.Problems}
		}
		for _, p := range t.Problems {
			logger.Error("route module not served", "error", p)
		}
	}
	for _, w := range t.Warnings {
		logger.Warn(warningMessage(w), "warning", w)
	}
	life.logDatabases(ctx)
	h.table.Store(t)
	h.engine.StartCompiles()
	h.janitor = janitor.Start(limitInstanceIdleTimeout(h.opts.Limits), idleSweep{h})
	return h, nil
}

// HTTPServer returns an http.Server that serves h with the app's "server"
// settings ([config.Server], endpoints.json merged with Options.Server):
// ReadHeaderTimeout, IdleTimeout and MaxHeaderBytes, and server.pipelining
// (by default, a client that pipelines has its connection closed after
// the answer to the request it pipelined: [config.Server.Pipelining]),
// and server.refusalPause (by default, an HTTP/1 connection whose
// request the host refused for abuse, 429, has its next request read
// 100 ms later: [config.Server.RefusalPause]; the server's Shutdown ends
// such pauses).
// The host applies readTimeout and writeTimeout itself, per request. Set
// Addr, or pass a listener to Serve:
//
//	srv := h.HTTPServer()
//	srv.Addr = "127.0.0.1:3000"
//	log.Fatal(srv.ListenAndServe())
func (h *Host) HTTPServer() *http.Server {
	sc := h.opts.Server.WithDefaults()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: time.Duration(sc.ReadHeaderTimeout),
		IdleTimeout:       time.Duration(sc.IdleTimeout),
		MaxHeaderBytes:    sc.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(h.logger.Handler(), slog.LevelWarn),
	}
	if sc.Pipelining == config.PipeliningClose {
		srv.Handler, srv.ConnContext = pipelining.Handler(h, h.trustedProxy), pipelining.ConnContext
	}
	if pause := sc.RefusalPauseDuration(); pause > 0 {
		// Outermost: pipelining's check of what waits after an answer
		// runs before the pause, in which the next request arrives.
		p := pace.New(pause, h.trustedProxy)
		srv.RegisterOnShutdown(p.Stop)
		srv.Handler = p.Handler(srv.Handler)
		if inner := srv.ConnContext; inner != nil {
			srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context { return pace.ConnContext(inner(ctx, c), c) }
		} else {
			srv.ConnContext = pace.ConnContext
		}
	}
	return srv
}

// trustedProxy reports whether a is the address of one of the current
// version's trustedProxies, whose connections server.refusalPause and
// server.pipelining leave alone.
func (h *Host) trustedProxy(a netip.Addr) bool {
	return ratelimit.Trusted(a, h.table.Load().Set.TrustedProxies)
}

// ShutdownTimeout is how long a server of h should wait for requests in
// flight when it stops (server.shutdownTimeout).
func (h *Host) ShutdownTimeout() time.Duration {
	return time.Duration(h.opts.Server.WithDefaults().ShutdownTimeout)
}

// Problems lists the modules left out of the current version because they
// failed to load (Development only; in Production New fails instead), and,
// after a [Host.Reload] that kept the previous version serving whole
// because the new version's OpenAPI document could not be built, or no new
// version loaded (a migration failed), that reload's problems, until a
// reload serves what is on disk. In
// Development, what a version whose document could not be built whole is
// served without (a route module, the runtime declaration's openApi part)
// is listed too, each naming its file and field (docs/spec.md §11).
func (h *Host) Problems() []error {
	problems := slices.Clone(h.table.Load().Problems)
	if refused := h.refused.Load(); refused != nil {
		problems = append(problems, *refused...)
	}
	return problems
}

// Warnings lists what the current version serves despite, in
// [Development]: each entry of server/routes.config.json that applies to
// no route (a pattern, a method under one, a "plainRoutes" entry), and
// each pattern of endpoints.json's rateLimits or of a middleware's
// declaration that matches no route, or none serving any of its methods,
// as an error wrapping
// [github.com/wasmendpoints/endpoints/openapi.ErrUnmatchedPattern]. Such an entry, typically
// left behind by a deleted route, is ignored in development and fails New
// in [Production] (docs/spec.md §7). In either mode, each operation that
// takes an Idempotency-Key with a timeout over half idempotency.lease: a
// request may wait its timeout for its code and then run for it, past its
// lease (docs/spec.md §6). With [Options.SkipVariables], each setting of
// the app's security left to the deployment (see there).
func (h *Host) Warnings() []error { return slices.Clone(h.table.Load().Warnings) }

// WaitCompiled waits until every module runs compiled code, or ctx ends.
// With [Options.ServeWhileCompiling], a module the compilation cache did
// not hold serves with the interpreter while the compiler works in the
// background, and route modules that carry their contract sections load
// their code after New returns; without it, New and Reload compile before
// they return and WaitCompiled returns at once. It returns a *LoadError
// listing the route modules whose code failed to load after New returned
// (their routes answer 500).
func (h *Host) WaitCompiled(ctx context.Context) error {
	if err := h.engine.WaitCompiled(ctx); err != nil {
		return err
	}
	if failed := h.engine.DeferredFailed(); len(failed) > 0 {
		return &LoadError{Problems: failed}
	}
	return nil
}

// ErrClosed is what Reload reports once the host is shutting down.
var ErrClosed = errors.New("the host is closed")

// Shutdown stops the host gracefully, like net/http's Server.Shutdown: it
// stops its watchers ([Host.Watch] returns), waits for a reload in
// progress, answers new requests with 503, and waits for the requests in
// flight to finish. If ctx ends first, it stops their guests (each stops at
// its next interrupt check or host call, within about a millisecond, and
// answers 503; an outbound request or a database statement one waits on is
// cancelled, so what that statement would have written is not committed)
// and returns ctx's error. Then, once the stopped requests have answered
// and released their Idempotency-Keys (2 s at most), it closes every
// instance, the store and the runtime. The runtime waits for the instances still running
// (2 s at most); a call blocked in a host function longer than that (a slow
// client) keeps it until the call returns, and Shutdown says so in its
// error.
//
// Shutdown and Close may be called concurrently and more than once; every
// call returns when the host is closed.
//
// # Notes
//
//   - Stop the http.Server first (its Shutdown), so that no new
//     connection arrives; the host's 503s are for requests that still do.
//   - Requests handed to Options.Fallback count as in flight too.
func (h *Host) Shutdown(ctx context.Context) error {
	h.closeOnce.Do(func() { h.stopErr, h.closeErr = lifecycle{h}.shutdown(ctx) })
	<-h.closed
	return errors.Join(h.stopErr, lifecycle{h}.closingError())
}

// closingError is what closing failed on: the engine's error, which says
// calls were still running when the host closed, until the last of them
// returned and the runtime closed.
func (h lifecycle) closingError() error {
	if h.closeErr != nil && h.engine.DrainedNow() {
		return h.engine.Shutdown(context.Background())
	}
	return h.closeErr
}

// Close stops the host at once: the guests of requests in flight are
// stopped (their clients get a 503, or a cut-off stream), then every
// instance, the store and the runtime are closed. It is Shutdown with a
// context that has already ended, and returns only what closing failed on.
func (h *Host) Close(ctx context.Context) error {
	stopNow, cancel := context.WithCancel(ctx)
	cancel()
	_ = h.Shutdown(stopNow)
	return lifecycle{h}.closingError()
}

// lifecycle is the host as it opens and closes what outlives a reload:
// the store, the databases, the outbound clients, and the shutdown that
// closes them with the engine. Its methods are the host's lifecycle side.
type lifecycle struct{ *Host }

// shutdown does Shutdown's work once: stopErr is ctx's error when guests
// had to be stopped, closeErr what closing failed on.
func (h lifecycle) shutdown(ctx context.Context) (stopErr, closeErr error) {
	defer close(h.closed)
	h.requests.Close()
	close(h.done) // watchers stop
	// A reload in progress finishes (and sees closing); none starts after.
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	h.janitor.Close()
	if !h.requests.Wait(ctx) {
		// Guests stop at their next interrupt check or host call, and
		// their outbound requests and database statements are cancelled;
		// the engine waits for their instances before it closes the
		// runtime (a call blocked in another host function, writing to a
		// slow client, ends at its deadline).
		stopErr = ctx.Err()
		h.halted.Store(true)
		close(h.halt)
		if h.endStatements != nil {
			h.endStatements()
		}
		// The stopped requests finish (their 503, their Idempotency-Key
		// released) before the store and databases close under them; a
		// call blocked in another host function is left after as long as
		// the engine waits for it.
		wait, cancel := context.WithTimeout(context.Background(), stoppedRequestsWait)
		h.requests.Wait(wait)
		cancel()
	}
	closed := &table{State: &appversion.State{}, Set: h.table.Load().Set}
	if t := h.table.Swap(closed); t != nil {
		t.Close(context.Background())
	}
	closeErr = h.engine.Close(context.Background())
	h.closeOutbound()
	h.closeDatabases()
	h.closeStore()
	return stopErr, closeErr
}

// stoppedRequestsWait bounds the wait of a Shutdown whose context ended
// for the requests whose guests it stopped: they stop within about a
// millisecond, then answer.
const stoppedRequestsWait = 2 * time.Second

// stopping reports whether the host stopped its guests to shut down.
func (h lifecycle) stopping() bool { return h.halted.Load() || h.engine.Stopping() }

// RouteInfo describes one served route, for route tables.
type RouteInfo struct {
	// Method is the upper-case method, "*" for a plain route serving all.
	Method string
	// Path is the route in client form: /api/users/:id.
	Path string
	// Kind is "endpoint" or "plain".
	Kind string
	// Summary is the contract's summary, if any.
	Summary string
	// File is the module, relative to the app.
	File string
}

// Routes lists the served routes sorted by path, then method.
func (h *Host) Routes() []RouteInfo {
	infos := h.table.Load().Infos()
	out := make([]RouteInfo, len(infos))
	for i, info := range infos {
		out[i] = RouteInfo(info)
	}
	return out
}

// AppConfig returns the configuration in effect: endpoints.json as last
// loaded, with Options.ConfigOverrides applied (not the other fields of
// Options, which apply on top of it).
func (h *Host) AppConfig() config.App { return *h.table.Load().Set.Config }
