package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/liblog"
	"github.com/wasmendpoints/endpoints/internal/logwriter"
	"github.com/wasmendpoints/endpoints/internal/routefile"
	"github.com/wasmendpoints/endpoints/internal/stale"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
	"github.com/wasmendpoints/endpoints/observe/accesslog"
	"github.com/wasmendpoints/endpoints/observe/otel"
	"github.com/wasmendpoints/endpoints/observe/prometheus"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Exit codes scripts can rely on (diff has its own: exitBreaking, exitTrouble).
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed: bad module, build error, port in use
	exitUsage = 2 // the command line is wrong
)

const usage = `endpoints — serve HTTP APIs whose routes are WebAssembly modules

Usage:
  endpoints <command> [flags] APP

Commands:
  dev APP      build the app's route sources, then serve it for development:
               answers are checked against their contracts, 500s explain
               themselves, and a route that fails to build or load is
               reported while the rest is served; while it runs, saved
               sources are rebuilt, added ones built, deleted ones' routes
               removed, and changed modules reloaded
  serve APP    serve the app's built modules for production: any module that
               fails to load, or a route source not built yet, stops the start
  build APP    compile the app's route sources into route modules (.wasm),
               then run the app's build command, if it has one, then check
               the app as serve loads it (routes that collide, a document
               that cannot be built: exit 1); with --cache-dir DIR, also
               compile the modules into that cache so that serve
               --cache-dir DIR starts warm
  routes APP   list the app's routes: method, path, kind, source file, summary
  openapi APP  print the app's OpenAPI document, 3.1 or 3.2 as
               openApi.specVersion says (-o FILE writes it)
  check APP    build the route sources, load every module, build the
               document, report every problem; serves nothing (exit 1 when
               anything is wrong; --no-build checks the modules as they are
               and warns about those older than their sources)
  client APP   generate a typed client: --lang ts (with --vue: useEndpoint)
               or --lang go (--package NAME); -o FILE writes it
  new [--lang go|c|as|rs] APP
               create an app: endpoints.json, the route GET /api/hello (in
               Go: a module, with its test; --sdk DIR: use a checkout) and a
               development signing key for endpoints token
  new route APP 'GET /api/things/:id'
               add a route with its contract to APP, in its language
  token APP --sub NAME [--scope S]... [--scheme NAME] [--ttl 1h]
               mint a JWT for development, signed with the private key in
               endpoints.json's security.<scheme>.jwt.devKey; --key FILE
               signs with that private key instead, --secret-file FILE
               HS256 with that raw secret (APP optional; --iss, --aud), to
               try a deployment
  keygen APP [--key FILE] [--jwks FILE] [--kid ID] [--alg ES256] [--force]
               write a development signing key (auth/dev-signing-key.jwk)
               and its public key set (auth/jwks.json) for a jwt scheme
  keygen --key FILE --jwks FILE [--alg ES256|EdDSA|RS256] [--kid ID] [--add]
               write a deployment's key pair anywhere: the private JWK
               (mode 0600, never replaced without --force) to sign with,
               kept out of the app, and the public key set to mount into
               it; --add adds the key to an existing set, whose old keys
               keep verifying (rotation)
  apikey APP --subject NAME [--scope S]... [--ttl 720h] [--sha256 HEX]
               store an API key in the app's Redis store for the apiKey
               schemes with "store": true (out of the guests' reach) and
               print it once; --delete HEX removes one
  migrate APP  apply the app's migrations (server/migrations/NNN-name.sql, or
               NNN-name.sqlite.sql and NNN-name.postgres.sql where the
               drivers differ; server/migrations/<database>/ for another
               database) to its databases, as serve and dev do at start;
               --dry-run lists them, --database NAME migrates one
  db backup APP --to FILE
               copy an SQLite database of the app (--database NAME; default
               main) into the new FILE while hosts serve it: a consistent
               snapshot, which copying the file is not (PostgreSQL: pg_dump)
  inspect FILE.wasm
               print a module's ABI version, contract (each route of a
               bundle), imports, exports and size, read from the file
               without running it
  conformance APP
               build APP, serve it in development and run the conformance
               suite of the users example against it: what every port of
               examples/users (in any language) must answer (--no-build:
               test the modules as they are; --set and ENDPOINTS_* apply, so
               ENDPOINTS_DATABASES_MAIN_DRIVER=postgres and _URL run it on
               PostgreSQL)
  diff OLD NEW report what changed in the API between two versions, breaking
               changes first (oasdiff's checks); OLD and NEW are app
               directories, OpenAPI documents or REF:PATH at a git ref, and
               --base REF NEW compares NEW with itself at REF; exit 1 when a
               change is breaking, 2 when no comparison could be made (see
               endpoints diff --help)
  health URL   GET URL and exit 0 when it answers 2xx, 1 otherwise: the
               probe of images without a shell or curl (--timeout 5s)
  version      print the version and the ABI it speaks
  help [COMMAND]
               print this help; with a command, its flags (help migrate);
               help settings lists every setting

APP is a directory with endpoints.json, server/api/**, server/routes/**,
server/bundles/*.wasm (modules of several routes) and
server/middleware/*.wasm (modules wrapping every route, in name order).
A route module's file name gives its route: server/api/users/[id].get.wasm
serves GET /api/users/:id. build compiles the route sources of APP:
  Go   a main package anywhere in APP with the line
         //endpoints:route GET /api/users/:id
       is linked with the app's other Go routes into one module,
       server/bundles/go.wasm, which serves each with its own contract
       ("build": {"goBundle": false} in endpoints.json: a module per
       route, here server/api/users/[id].get.wasm)
  C    server/api/users/[id].get.c   builds server/api/users/[id].get.wasm
  AssemblyScript
       server/api/users/index.post.ts builds server/api/users/index.post.wasm
       (with APP's node_modules/.bin/asc; npm install runs first when
       APP has a package.json and no compiler)
  Rust server/api/users/index.get.rs builds server/api/users/index.get.wasm
       (with rustc and its wasm32-wasi or wasm32-wasip1 std; the crate
       endpoints, guest-sdk/rust, is supplied)
  WAT  server/routes/hello.get.wat   builds server/routes/hello.get.wasm
Other sources are built by the app's own command, given in endpoints.json
and run through sh -c in APP:
  "build": {"command": "make wasm", "watch": ["src/**/*.zig"]}
dev reruns it when a file matching a watch pattern is saved ("*" stays in
one directory, "**" spans any number).

Flags of dev and serve:
  --addr HOST:PORT   address to listen on (default 127.0.0.1:3000)
  --cache-dir DIR    where compiled modules are cached between runs
                     (default: the user cache directory; "off" disables it)
  --quiet            log only warnings and errors (a request only when it
                     answers 5xx; no route table, no line per module built)
  --json             log JSON lines (dev prints its reloads as JSON too)
  --log-level LEVEL  debug, info (default), warn or error; debug also prints
                     the configuration in effect, secrets redacted
  --set SETTING=VALUE
                     replace a setting of endpoints.json (repeatable):
                     --set limits.timeout=5s --set storage.url=redis://cache
  --admin-addr HOST:PORT
                     also listen there, apart from --addr, for operators:
                     Prometheus metrics on /metrics, liveness on /livez,
                     readiness on /readyz (503 naming the failed check:
                     routes, store, databases); off by default

Every setting of endpoints.json can also come from the environment:
ENDPOINTS_ and its path in upper snake case (ENDPOINTS_LIMITS_TIMEOUT=5s);
--set wins over the environment, which wins over the file. 'endpoints help
settings' lists every setting with its variable.

Each request is logged as one line: method and path, route, status, bytes,
duration, request id and trace id (text, or JSON with --json).

Tracing (OpenTelemetry) is off unless the standard variables ask for it:
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318   OTLP to a collector
  OTEL_TRACES_EXPORTER=otlp|console|none              the exporter
  OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf|grpc      OTLP's transport
  OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_SDK_DISABLED=true ...
Each request gets a server span (continuing the client's W3C traceparent)
with spans for its validation, its guest call and its store calls.

Examples:
  endpoints dev examples/users
  curl http://127.0.0.1:3000/api/users/1
  curl 'http://127.0.0.1:3000/api/users/search?q=ada&limit=500'   # a 400 naming limit
`

// helpCommands are the commands whose flags `endpoints help COMMAND`
// prints.
var helpCommands = []string{"dev", "serve", "build", "routes", "openapi", "check", "client", "new", "token", "keygen", "apikey", "migrate", "db", "inspect", "conformance", "diff", "health"}

// run is the whole command, testable: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "-h", "--help", "-help":
		if len(rest) == 1 && rest[0] == "settings" {
			printSettings(stdout)
			return exitOK
		}
		if len(rest) == 1 && slices.Contains(helpCommands, rest[0]) {
			// endpoints help migrate: what endpoints migrate -h prints,
			// on stdout, as help's own output.
			run(ctx, []string{rest[0], "-h"}, stdout, stdout)
			return exitOK
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	case "version", "--version":
		fmt.Fprintf(stdout, "endpoints %s (ABI v%d, %s)\n", version(), abi.Version, runtime.Version())
		return exitOK
	case "build":
		return cmdBuild(ctx, rest, stdout, stderr)
	case "routes":
		return cmdRoutes(ctx, rest, stdout, stderr)
	case "openapi":
		return cmdOpenAPI(ctx, rest, stdout, stderr)
	case "check":
		return cmdCheck(ctx, rest, stdout, stderr)
	case "new":
		return cmdNew(ctx, rest, stdout, stderr)
	case "client":
		return cmdClient(ctx, rest, stdout, stderr)
	case "token":
		return cmdToken(ctx, rest, stdout, stderr)
	case "keygen":
		return cmdKeygen(ctx, rest, stdout, stderr)
	case "apikey":
		return cmdAPIKey(ctx, rest, stdout, stderr)
	case "inspect":
		return cmdInspect(ctx, rest, stdout, stderr)
	case "migrate":
		return cmdMigrate(ctx, rest, stdout, stderr)
	case "db":
		return cmdDB(ctx, rest, stdout, stderr)
	case "conformance":
		return cmdConformance(ctx, rest, stdout, stderr)
	case "diff":
		return cmdDiff(ctx, rest, stdout, stderr)
	case "health":
		return cmdHealth(ctx, rest, stdout, stderr)
	case "dev":
		return cmdServe(ctx, rest, stdout, stderr, host.Development)
	case "serve":
		return cmdServe(ctx, rest, stdout, stderr, host.Production)
	}
	fmt.Fprintf(stderr, "endpoints: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// parse parses flags and the one operand ("APP", "FILE.wasm"), which
// what describes for errors ("APP directory"). Flags may come after it.
func parse(fs *flag.FlagSet, operand, what string, args []string, stderr io.Writer) (string, bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() { commandUsage(fs, operand) }
	positional, ok := parseArgs(fs, args)
	if !ok {
		return "", false
	}
	if len(positional) != 1 {
		fmt.Fprintf(stderr, "endpoints %s: want exactly one %s, got %d arguments\n", fs.Name(), what, len(positional))
		fs.Usage()
		return "", false
	}
	return positional[0], true
}

// cacheDirUsage is the usage of --cache-dir where it only reads and fills
// the cache.
const cacheDirUsage = "`DIR` where compiled modules are cached between runs, yours alone and writable by no one else (default: the user cache directory; \"off\" disables it)"

// commandUsage prints a command's usage line and its flags (what -h asks
// for) to the flag set's output.
func commandUsage(fs *flag.FlagSet, operands string) {
	w := fs.Output()
	fmt.Fprintf(w, "usage: endpoints %s [flags] %s\n\nFlags:\n", fs.Name(), operands)
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nRun 'endpoints help' for more.\n")
}

// parseArgs parses flags that may come before, between or after the
// positional arguments, and returns those; false when a flag is wrong (fs
// has said why).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, bool) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false
		}
		if fs.NArg() == 0 {
			return positional, true
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseApp parses flags and the APP argument, which must be an app
// directory. The code is exitOK, exitUsage or exitError.
func parseApp(fs *flag.FlagSet, args []string, stderr io.Writer) (string, int) {
	app, ok := parse(fs, "APP", "APP directory", args, stderr)
	if !ok {
		return "", exitUsage
	}
	if err := checkAppDir(app); err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", fs.Name(), err)
		return "", exitError
	}
	return app, exitOK
}

// checkAppDir returns an error unless dir is an Endpoints app: a
// directory with endpoints.json or a server directory.
func checkAppDir(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("app %s does not exist (create it with `endpoints new %s`)", dir, dir)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is a file; APP is an app's directory", dir)
	}
	for _, marker := range []string{config.File, "server"} {
		if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s is not an Endpoints app: it has neither %s nor a server directory (create an app with `endpoints new %s`)", dir, config.File, dir)
}

// requireBuilt checks that every route source of the app has its module
// built (false, with the list, when some are missing), as a build with the
// overrides ovs makes them (appSources), and warns of modules
// older than what they were built from (see stale).
func requireBuilt(name, app string, ovs []config.Override, stderr io.Writer) bool {
	return checkBuilt(context.Background(), name, app, ovs, stderr, false)
}

// checkBuilt is requireBuilt; refuseStale makes a module older than any
// file it was built from fail the check too, as `diff` must: a document
// read from stale modules is not the app's.
func checkBuilt(ctx context.Context, name, app string, ovs []config.Override, stderr io.Writer, refuseStale bool) bool {
	sources, err := appSources(app, ovs)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		return false
	}
	newest, err := stale.Newest(ctx, app, routeSources(sources))
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: warning: only the Go routes' own directories are checked for changes: %v\n", name, err)
	}
	var missing, old []string
	for i := 0; i < len(sources); i++ {
		s := sources[i]
		module := filepath.Join(app, filepath.FromSlash(s.Module))
		mi, err := os.Stat(module)
		if err != nil && len(s.Routes) > 0 {
			if slices.ContainsFunc(s.Routes, func(r guestbuild.Source) bool {
				_, err := os.Stat(filepath.Join(app, filepath.FromSlash(r.Module)))
				return err == nil
			}) {
				// Built with --go-bundle=false: each route's own module.
				sources = append(sources, s.Routes...)
				continue
			}
			// Never built: the bundle is what a build makes, not a
			// module per route.
			missing = append(missing, fmt.Sprintf("%s (%s from %s)", s.Module, s.Contents(), s.Path))
			continue
		}
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (from %s)", s.Module, s.Path))
			continue
		}
		if len(s.Routes) > 0 {
			if lacks := unbundled(module, s.Module, s.Routes); len(lacks) > 0 {
				missing = append(missing, lacks...)
				continue
			}
		}
		in, ok := newestInput(newest, s)
		if !ok || !in.ModTime.After(mi.ModTime()) {
			continue
		}
		from := ""
		if in.Path != s.Path {
			from = fmt.Sprintf(" (%s changed)", in.Path)
		}
		what := "its source " + s.Path
		if len(s.Routes) > 0 {
			// A bundle: its sources' common directory says little.
			s.Path = "Go sources (" + s.Contents() + ")"
			what = "its " + s.Path
		}
		if refuseStale {
			old = append(old, fmt.Sprintf("%s (from %s%s)", s.Module, s.Path, from))
			continue
		}
		fmt.Fprintf(stderr, "endpoints %s: warning: %s is older than %s%s: run `endpoints build %s` to use the source\n", name, s.Module, what, from, app)
	}
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "endpoints %s: %d route module(s) of %s are not built yet: %s\nrun `endpoints build %s` first\n", name, len(missing), app, strings.Join(missing, ", "), app)
		return false
	}
	if len(old) > 0 {
		fmt.Fprintf(stderr, "endpoints %s: %d route module(s) of %s are older than what they are built from: %s\nrun `endpoints build %s` first, or pass --build\n", name, len(old), app, strings.Join(old, ", "), app)
		return false
	}
	return true
}

// unbundled lists, as "NAME lacks ROUTE (from DIR)", the routes and
// middleware of a bundle source that the built bundle at module (name,
// relative to the app) does not declare: Go routes added since it was
// built. A bundle whose declaration cannot be read is the load's to report.
func unbundled(module, name string, routes []guestbuild.Source) []string {
	has, ok := bundleDeclares(module)
	if !ok {
		return nil
	}
	var out []string
	for _, r := range routes {
		entry, err := guestbuild.BundleEntry(r)
		if err == nil && !has[entry] {
			out = append(out, fmt.Sprintf("%s lacks %s (from %s)", name, entry, r.Path))
		}
	}
	return out
}

// routeSources is sources with each bundle replaced by its routes: what
// the modules are built from.
func routeSources(sources []guestbuild.Source) []guestbuild.Source {
	var out []guestbuild.Source
	for _, s := range sources {
		if len(s.Routes) > 0 {
			out = append(out, s.Routes...)
			continue
		}
		out = append(out, s)
	}
	return out
}

// newestInput is the newest input of source s in newest: for a bundle,
// the newest of its routes'.
func newestInput(newest map[string]stale.Input, s guestbuild.Source) (stale.Input, bool) {
	if len(s.Routes) == 0 {
		in, ok := newest[s.Path]
		return in, ok
	}
	var out stale.Input
	found := false
	for _, r := range s.Routes {
		if in, ok := newest[r.Path]; ok && (!found || in.ModTime.After(out.ModTime)) {
			out, found = in, true
		}
	}
	return out, found
}

func cmdBuild(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	cacheDir := fs.String("cache-dir", "", "also compile every module into the compilation cache in `DIR`, so that serve --cache-dir DIR starts warm")
	var goBundle *bool
	fs.Func("go-bundle", "`true` links the app's Go routes into one module, server/bundles/go.wasm; false builds one module per route (replaces endpoints.json's build.goBundle, default true)", func(v string) error {
		b, err := strconv.ParseBool(v)
		goBundle = &b
		return err
	})
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	ovs := overrides()
	if goBundle != nil {
		ovs = append(ovs, config.Override{Pointer: "/build/goBundle", Value: strconv.FormatBool(*goBundle), Source: "--go-bundle"})
	}
	if !build(ctx, "build", app, ovs, stdout, stderr) {
		return exitError
	}
	// precompile loads the app as serve does, which checks it whole; without
	// it, checkBuiltApp does, from the contract sections alone.
	if *cacheDir == "" && !checkBuiltApp(ctx, app, ovs, stdout, stderr) {
		return exitError
	}
	if *cacheDir != "" && !precompile(ctx, app, *cacheDir, ovs, stdout, stderr) {
		return exitError
	}
	return exitOK
}

// precompile loads the app once with wazero's compiler and the cache in
// dir, which keeps the compiled code: a container image or a deploy step
// pays the compilation once, and `serve --cache-dir dir` starts warm.
// A directory it cannot write, or one the host refuses to run code from
// (see host.Options.CacheDir), fails the build: a deploy step that
// believed it warmed the cache would start cold.
func precompile(ctx context.Context, app, dir string, ovs []config.Override, stdout, stderr io.Writer) bool {
	if err := checkWritableDir(dir); err != nil {
		fmt.Fprintf(stderr, "endpoints build: --cache-dir %s: %v; give a directory this user can write\n", dir, err)
		return false
	}
	fmt.Fprintf(stdout, "compiling the modules into %s\n", dir)
	start := time.Now()
	con := newConsole(stdout, false, false)
	// Warnings (such as a cache the host refuses) go to stderr.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := host.New(ctx, app, host.Options{Mode: host.Production, CacheDir: dir, Logger: logger, Progress: con.progress, SkipVariables: true, SkipMigrations: true, ConfigOverrides: ovs})
	if err != nil {
		fmt.Fprintf(stderr, "endpoints build: %v\n", err)
		return false
	}
	n := len(h.Routes())
	if err := h.Close(ctx); err != nil {
		fmt.Fprintf(stderr, "endpoints build: %v\n", err)
		return false
	}
	if n > 0 && !holdsFiles(dir) {
		fmt.Fprintf(stderr, "endpoints build: --cache-dir %s: nothing was compiled into it (see the warnings above); serve would start cold\n", dir)
		return false
	}
	fmt.Fprintf(stdout, "compiled %s (%d routes) into %s in %s: `endpoints serve --cache-dir %s %s` starts warm\n", app, n, dir, time.Since(start).Round(time.Millisecond), dir, app)
	return true
}

// checkWritableDir makes dir (0700) when missing and checks that this
// process can create a file in it.
func checkWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".endpoints-write-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	err = f.Close()
	return errors.Join(err, os.Remove(name))
}

// holdsFiles reports whether a regular file is anywhere under dir.
func holdsFiles(dir string) bool {
	found := errors.New("found")
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			return found
		}
		return err
	})
	return errors.Is(err, found)
}

// build compiles the app's sources, printing a line per module, then runs
// the app's build command (endpoints.json "build", with the overrides)
// when it has one. Its errors name the command the user ran, name
// ("build", or "check" that builds first).
func build(ctx context.Context, name, app string, ovs []config.Override, stdout, stderr io.Writer) bool {
	ok, _ := buildApp(ctx, name, app, ovs, nil, stdout, stderr)
	return ok
}

// buildApp is build that also answers the route sources that failed to
// compile (a Go bundle's source as one), for dev to say what does not
// serve. salvage, for dev (nil otherwise), builds a Go bundle without the
// route packages that do not compile (guestbuild.Options), reports them as
// failures of the build, and records them (failedBuilds.leftOut).
func buildApp(ctx context.Context, name, app string, ovs []config.Override, salvage *failedBuilds, stdout, stderr io.Writer) (bool, []guestbuild.Source) {
	cfg, err := config.Load(app, ovs...)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		return false, nil
	}
	sources, err := guestbuild.Find(app)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		return false, nil
	}
	if sources, err = bundled(app, cfg.Build, sources, stdout); err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		return false, nil
	}
	command := cfg.Build.Command
	if command == "" {
		foreign, err := guestbuild.Unbuilt(app)
		if err != nil {
			fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
			return false, nil
		}
		for _, f := range foreign {
			fmt.Fprintf(stderr, "note: %s is not built: endpoints build compiles Go, C, WAT, AssemblyScript and Rust, not %s; "+
				"give %s a build command that writes %s ({\"build\": {\"command\": \"...\"}})\n", filepath.Join(app, filepath.FromSlash(f.Path)), f.Lang, config.File, f.Module)
		}
	}
	if slices.ContainsFunc(sources, func(s guestbuild.Source) bool { return s.Lang == guestbuild.LangAS }) {
		if note := guestbuild.InstalledSDKNote(app); note != "" {
			fmt.Fprintf(stderr, "note: %s\n", note)
		}
	}
	if len(sources) == 0 && command == "" {
		fmt.Fprintf(stdout, "no route sources under %s/server and no build command in %s; nothing to build\n", app, config.File)
		return true, nil
	}
	if len(sources) > 0 {
		if ok, failed := buildSources(ctx, name, app, ovs, sources, salvage, stdout, stderr); !ok {
			return false, failed
		}
	}
	if command != "" {
		return buildStep(ctx, name, app, command, ovs, stdout, stderr), nil
	}
	return true, nil
}

// buildSources compiles the route sources and writes their contract
// sections (embedContract), printing a line per module once both are done:
// a module whose contract serve would refuse is a FAIL, never an "ok".
// Contracts are written while other modules still compile. salvage: see
// buildApp; a bundle built without some routes is "ok", each route left
// out a FAIL, and the build fails.
func buildSources(ctx context.Context, name, app string, ovs []config.Override, sources []guestbuild.Source, salvage *failedBuilds, stdout, stderr io.Writer) (bool, []guestbuild.Source) {
	fmt.Fprintf(stdout, "building %d route module(s) in %s\n", len(sources), app)
	start := time.Now()
	var (
		printing  sync.Mutex
		embedding sync.WaitGroup
		embedErrs []error
		failed    []guestbuild.Source
		leftOut   []error // the routes of bundles that do not compile
	)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	prev := sealedModules(app, sources)
	_, err := guestbuild.BuildWith(ctx, app, app, sources, guestbuild.Options{Salvage: salvage != nil}, func(b guestbuild.Built) {
		if b.Err != nil {
			printing.Lock()
			fmt.Fprintf(stderr, "  FAIL %s (%s)\n", b.Module, b.Lang)
			failed = append(failed, b.Source)
			printing.Unlock()
			return
		}
		salvage.leftOut(b.Module, b.Uncompiled)
		printing.Lock()
		for _, u := range b.Uncompiled {
			fmt.Fprintf(stderr, "  FAIL %s (%s): does not compile; %s is built without it\n", u.Route.Path, u.Route.Lang, b.Module)
			leftOut = append(leftOut, uncompiledError(b.Module, u))
		}
		printing.Unlock()
		embedding.Add(1)
		go func() {
			defer embedding.Done()
			sem <- struct{}{}
			kept := false
			if p, ok := prev[b.Module]; ok {
				kept, _ = reseal(app, b.Module, p) // on an error, embedded anew
			}
			var err error
			switch {
			case kept:
			case len(b.Uncompiled) > 0:
				// A bundle built without routes that do not compile
				// (dev) declares them failed in its section too: its
				// load reads its other routes without running it.
				err = embedContract(ctx, app, b.Module, ovs, true)
			default:
				err = embedContracts(ctx, app, ovs, []guestbuild.Source{b.Source})
			}
			<-sem
			printing.Lock()
			defer printing.Unlock()
			if err != nil {
				embedErrs = append(embedErrs, err)
				fmt.Fprintf(stderr, "  FAIL %s (%s): its contract\n", b.Module, b.Lang)
				return
			}
			cached := ""
			if c := b.Contents(); c != "" {
				cached = " (" + c + ")" // a bundle: what it serves
			}
			switch n := len(b.Uncompiled); {
			case n == 1:
				cached += " (1 left out: it does not compile)"
			case n > 1:
				cached += fmt.Sprintf(" (%d left out: they do not compile)", n)
			}
			if b.Cached {
				cached += " (unchanged: from the module cache)"
			} else if kept {
				cached += " (unchanged: its contract kept)"
			}
			fmt.Fprintf(stdout, "  ok   %-44s %-3s %s%s\n", b.Module, b.Lang, b.Took.Round(time.Millisecond), cached)
		}()
	})
	embedding.Wait()
	slices.SortFunc(embedErrs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	slices.SortFunc(leftOut, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	if err = errors.Join(slices.Concat([]error{err}, leftOut, embedErrs)...); err != nil {
		fmt.Fprintf(stderr, "\nendpoints %s: %v\n", name, err)
		slices.SortFunc(failed, func(a, b guestbuild.Source) int { return strings.Compare(a.Module, b.Module) })
		return false, failed
	}
	fmt.Fprintf(stdout, "built in %s\n", time.Since(start).Round(time.Millisecond))
	return true, nil
}

func cmdRoutes(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("routes", flag.ContinueOnError)
	cacheDir := fs.String("cache-dir", "", cacheDirUsage)
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	if !requireBuilt("routes", app, overrides(), stderr) {
		return exitError
	}
	h, ok := load(ctx, "routes", app, *cacheDir, host.Development, overrides(), stderr)
	if !ok {
		return exitError
	}
	defer h.Close(context.Background())
	sources := sourcesOfRoutes(app, overrides())
	if sources == nil {
		sources = map[string]string{} // each route shows its module
	}
	printRoutes(stdout, h.Routes(), sources)
	if !reportProblems(h, stderr) {
		return exitError
	}
	return exitOK
}

func cmdOpenAPI(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	out := fs.String("o", "", "write the document to this file instead of standard output")
	cacheDir := fs.String("cache-dir", "", cacheDirUsage)
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	if !requireBuilt("openapi", app, overrides(), stderr) {
		return exitError
	}
	h, ok := load(ctx, "openapi", app, *cacheDir, host.Production, overrides(), stderr)
	if !ok {
		return exitError
	}
	defer h.Close(context.Background())
	if *out == "" {
		_, _ = stdout.Write(h.Document())
		return exitOK
	}
	if err := writeOutput(*out, h.Document()); err != nil {
		fmt.Fprintf(stderr, "endpoints openapi: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", *out, len(h.Document()))
	return exitOK
}

// writeOutput writes what a command's -o FILE names, making the
// directories it is in, as a generator's output directory (gen/,
// src/api/) often is not there yet.
func writeOutput(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	cacheDir := fs.String("cache-dir", "", cacheDirUsage)
	noBuild := fs.Bool("no-build", false, "check the modules as they are, without building the sources first")
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	ovs := overrides()
	if *noBuild {
		if !requireBuilt("check", app, ovs, stderr) {
			return exitError
		}
	} else if !build(ctx, "check", app, ovs, stdout, stderr) {
		return exitError
	}
	h, ok := load(ctx, "check", app, *cacheDir, host.Development, ovs, stderr)
	if !ok {
		return exitError
	}
	defer h.Close(context.Background())
	// A routes configuration entry that matches no route is a warning
	// under dev, but serve refuses to start with it: so does check.
	if problemsOK, warningsOK := reportProblems(h, stderr), reportWarnings(h, stderr); !problemsOK || !warningsOK {
		return exitError
	}
	routes, endpoints := h.Routes(), 0
	for _, r := range routes {
		if r.Kind == "endpoint" {
			endpoints++
		}
	}
	fmt.Fprintf(stdout, "%s: ok: %d routes (%d endpoint operations), OpenAPI document of %d bytes\n", app, len(routes), endpoints, len(h.Document()))
	return exitOK
}

// load loads an app for a command that serves nothing: quietly, with the
// command's name on its error, and the overrides (--set, ENDPOINTS_*) that
// serve would apply.
func load(ctx context.Context, name, app, cacheDir string, mode host.Mode, ovs []config.Override, stderr io.Writer) (*host.Host, bool) {
	// Variables are for serving: these commands run where the app's
	// secrets are not (CI), and its guests read none. Nor do they change
	// the app's databases: reading an app migrates nothing.
	h, err := host.New(ctx, app, host.Options{Mode: mode, CacheDir: cacheDir, Logger: slog.New(slog.DiscardHandler), SkipVariables: true, SkipMigrations: true, ConfigOverrides: ovs})
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		return nil, false
	}
	return h, true
}

// reportProblems prints what a development load left out; false when
// anything was.
func reportProblems(h *host.Host, stderr io.Writer) bool {
	problems := h.Problems()
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "%v\n", &host.LoadError{Problems: problems})
	}
	return len(problems) == 0
}

// reportWarnings prints the entries of the routes configuration, the
// rate-limit patterns and the middleware's patterns a development load
// ignored (they match no route),
// which serve refuses, and then the
// load's other warnings (printDeployWarnings), which fail nothing: false
// when there are such entries.
func reportWarnings(h *host.Host, stderr io.Writer) bool {
	var lines []string
	var others []error
	for _, w := range h.Warnings() {
		if errors.Is(w, openapi.ErrUnmatchedPattern) {
			lines = append(lines, w.Error())
		} else {
			others = append(others, w)
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(stderr, "%d entry(ies) match no route, which serve refuses:\n  %s\n", len(lines), strings.Join(lines, "\n  "))
	}
	printDeployWarnings("check", others, stderr)
	return len(lines) == 0
}

func printRoutes(w io.Writer, routes []host.RouteInfo, sources map[string]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if sources == nil {
		fmt.Fprintln(tw, "METHOD\tPATH\tKIND\tSUMMARY")
	} else {
		fmt.Fprintln(tw, "METHOD\tPATH\tKIND\tSOURCE\tSUMMARY")
	}
	for _, r := range routes {
		if sources == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Method, r.Path, r.Kind, r.Summary)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Method, r.Path, r.Kind, sourceOf(r, sources), r.Summary)
		}
	}
	tw.Flush()
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer, mode host.Mode) int {
	name := "serve"
	if mode == host.Development {
		name = "dev"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:3000", "`HOST:PORT` to listen on")
	cacheDir := fs.String("cache-dir", "", cacheDirUsage)
	quiet := fs.Bool("quiet", false, "log only warnings and errors: no route table, no line per module built, request (but those answering 5xx) or reload (--log-level warn)")
	asJSON := fs.Bool("json", false, "log JSON lines instead of text")
	logLevel := fs.String("log-level", "info", "`LEVEL` of the log: debug, info, warn or error; debug also prints the configuration in effect")
	adminAddr := fs.String("admin-addr", "", "serve /metrics, /livez and /readyz on `HOST:PORT`, apart from --addr (off when empty)")
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	level, err := parseLogLevel(*logLevel)
	if err == nil && *quiet {
		level = max(level, slog.LevelWarn)
	}
	sets := overrides()
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		return exitUsage
	}
	// Log lines are written by a goroutine of their own, several to a
	// system call: requests do not take turns writing their access log
	// lines to stderr.
	logOut := logwriter.New(stderr)
	defer logOut.Close()
	// What the command writes to stderr itself (a failure, a build's
	// errors) goes through logOut too: after the lines logged before it,
	// and never at the same time as logOut's goroutine writes them.
	stderr = logOut
	var logger *slog.Logger
	if *asJSON {
		logger = slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: level}))
	} else {
		logger = slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	}
	var unbuilt *failedBuilds // in development, the routes a 404 says did not build
	if mode == host.Development {
		// The compiler's errors of a route the build left out are
		// printed by the build, not again by the load's records.
		unbuilt = &failedBuilds{}
		logger = slog.New(unbuilt.withoutReported(logger.Handler()))
	}
	// go-redis, the OpenTelemetry SDK and the log package log through
	// this logger too: with --json, stderr has nothing but JSON lines.
	defer liblog.Redirect(logger)()
	// fail reports an error that stops the command: a line of text, or
	// of JSON with --json.
	fail := func(err error) int {
		if *asJSON {
			logger.Error(fmt.Sprintf("endpoints %s: %v", name, err))
		} else {
			fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		}
		return exitError
	}
	// The addresses first: a wrong or busy one fails before any build.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fail(fmt.Errorf("--addr %s: %w", *addr, err))
	}
	defer ln.Close()
	var adminLn net.Listener
	if *adminAddr != "" {
		if adminLn, err = net.Listen("tcp", *adminAddr); err != nil {
			return fail(fmt.Errorf("--admin-addr %s: %w", *adminAddr, err))
		}
		defer adminLn.Close()
	}
	// Reports written as text (the build's, a stale module's) become log
	// records under --json.
	textOut, textErr := stdout, stderr
	if *asJSON {
		outLines, errLines := liblog.LineWriter(logger, slog.LevelInfo), liblog.LineWriter(logger, slog.LevelError)
		defer outLines.Flush()
		defer errLines.Flush()
		textOut, textErr = outLines, errLines
	}
	buildStart := time.Now()
	if mode == host.Development {
		// --quiet keeps the build's failures (textErr) and drops its
		// progress: a line per module built.
		buildOut := textOut
		if *quiet {
			buildOut = io.Discard
		}
		if ok, failed := buildApp(ctx, name, app, sets, unbuilt, buildOut, textErr); !ok {
			// What built serves; what failed is reported again by the
			// load below and rebuilt when its source is saved. Which
			// routes that leaves out is said per module: a Go bundle
			// that does not compile holds every route it links.
			fmt.Fprintf(textOut, "some route sources did not build (above); save a fix to rebuild\n")
			for _, s := range failed {
				fmt.Fprintf(textOut, "  %s\n", unserved(app, s))
				unbuilt.note(s, true)
			}
		}
	} else if !requireBuilt(name, app, sets, textErr) {
		return exitError
	}
	start := time.Now()
	con := newConsole(stdout, *quiet, *asJSON)
	// A line per request (only 5xx ones with --quiet), and the metrics
	// when the admin listener serves them. The access log is closed
	// before logOut (deferred last), which it writes to.
	access := accesslog.New(logger)
	defer access.Close()
	observer := access.Observer()
	var metrics *prometheus.Metrics
	if adminLn != nil {
		metrics = prometheus.New()
		observer = host.JoinObservers(observer, metrics.Observer())
	}
	// Traces when the OTEL_* variables ask for them; flushed after the
	// host closed (deferred before it), so its last spans are exported.
	tp, err := otel.NewTracerProvider(ctx)
	if err != nil {
		return fail(err)
	}
	var tracer *otel.Tracer
	if tp != nil {
		defer flushTraces(tp, logger)
		propagator, err := otel.PropagatorFromEnv(os.Getenv)
		if err != nil {
			return fail(err)
		}
		tracer = otel.New(tp, otel.WithPropagator(propagator))
		observer = host.JoinObservers(observer, tracer.Observer())
	}
	h, err := host.New(ctx, app, host.Options{Mode: mode, CacheDir: *cacheDir, Logger: logger, ServeWhileCompiling: true, Progress: con.progress, Observer: observer, ConfigOverrides: sets, Unserved: unbuilt.Note})
	if err != nil {
		return fail(err)
	}
	defer h.Close(context.Background())
	if level <= slog.LevelDebug {
		con.config(h.AppConfig().WithDefaults(), sets)
	}
	took := time.Since(start).Round(time.Millisecond)
	con.startup(map[string]any{"event": "loaded", "app": app, "mode": mode.String(), "tookMs": took.Milliseconds()},
		fmt.Sprintf("loaded %s in %s (%s)\n\n", app, took, mode))
	con.routes(h.Routes())
	if mode == host.Development {
		// Those of routes the build left out it printed above.
		if problems := unbuilt.unreported(h.Problems()); len(problems) > 0 {
			if *asJSON {
				logger.Error("some route modules failed to load; the other routes serve", "problems", errorLines(problems))
			} else {
				fmt.Fprintf(stderr, "%v\n", &host.LoadError{Problems: problems})
			}
		}
	}

	srv := h.HTTPServer()
	if tracer != nil {
		srv.Handler = tracer.Handler(srv.Handler)
		con.startup(map[string]any{"event": "tracing", "target": tracingTarget(os.Getenv)},
			fmt.Sprintf("\ntracing: a span per request, exported as %s\n", tracingTarget(os.Getenv)))
	}
	errc := make(chan error, 2)
	var stopping atomic.Bool // set when the server begins to stop: /readyz 503
	var admin *http.Server
	if adminLn != nil {
		admin = &http.Server{Handler: adminHandler(h, metrics, logger, &stopping), ReadHeaderTimeout: srv.ReadHeaderTimeout,
			IdleTimeout: srv.IdleTimeout, ErrorLog: srv.ErrorLog}
		go func() { errc <- admin.Serve(adminLn) }()
		con.startup(map[string]any{"event": "admin", "url": "http://" + adminLn.Addr().String(), "paths": []string{"/metrics", "/livez", "/readyz"}},
			fmt.Sprintf("\nadmin on http://%s: /metrics, /livez, /readyz", adminLn.Addr()))
	}
	con.startup(map[string]any{"event": "listening", "url": "http://" + ln.Addr().String()},
		fmt.Sprintf("\nlistening on http://%s\n", ln.Addr()))
	if mode == host.Development {
		con.startup(map[string]any{"event": "watching", "app": app},
			fmt.Sprintf("watching %s: saved sources are rebuilt, changed modules reloaded\n", app))
		devLoop(ctx, app, h, con, buildStart, sets, unbuilt)
	}
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fail(err)
	case <-ctx.Done():
	}
	stopServing(&stopping, srv, h, admin, logger)
	return exitOK
}

// traceFlushTimeout bounds the export of the spans still queued when the
// command stops: a collector that does not answer must not hold the exit.
const traceFlushTimeout = 5 * time.Second

// flushTraces exports the spans still queued and stops the tracer
// provider.
func flushTraces(tp interface{ Shutdown(context.Context) error }, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
	defer cancel()
	if err := tp.Shutdown(ctx); err != nil {
		logger.Warn("exporting the last traces failed", "error", err)
	}
}

// tracingTarget says where the spans go, from the OTEL_* variables.
func tracingTarget(getenv func(string) string) string {
	exporter := getenv("OTEL_TRACES_EXPORTER")
	if exporter == "" {
		exporter = "otlp"
	}
	if exporter != "otlp" {
		return "OTEL_TRACES_EXPORTER=" + exporter
	}
	protocol := cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf")
	endpoint := cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "the default endpoint")
	return "OTLP (" + protocol + ") to " + endpoint
}

// appSources lists the app's sources as `endpoints build` builds them
// with the overrides ovs (--set, ENDPOINTS_*): its Go routes as one bundle
// unless endpoints.json, or an override, says otherwise. Every command that
// lists what a build makes (dev's watcher, the checks that modules are
// built) lists it here, so that it groups them as the build did.
func appSources(app string, ovs []config.Override) ([]guestbuild.Source, error) {
	sources, err := guestbuild.Find(app)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(app, ovs...)
	if err != nil {
		return nil, configError{err}
	}
	return grouped(cfg.Build, sources), nil
}

// configError is an error of endpoints.json that appSources met. Under
// dev the host's reload of the same file reports it, so the source
// watcher does not print it again.
type configError struct{ error }

// Unwrap is the error of config.Load.
func (e configError) Unwrap() error { return e.error }

// grouped is sources grouped by the build settings b: the Go routes into
// their bundles when b bundles them ("goBundle", "goBundles").
func grouped(b config.Build, sources []guestbuild.Source) []guestbuild.Source {
	if b.BundlesGo() {
		return guestbuild.BundleGoBy(sources, goBundleOf(b))
	}
	return sources
}

// goBundleOf is the bundle module each Go package builds into by the
// app's build settings (config.Build.GoBundles).
func goBundleOf(b config.Build) func(dir string) string {
	return func(dir string) string { return b.GoBundleOf(dir, guestbuild.BundleModule) }
}

// bundled applies the "goBundle" and "goBundles" settings to the sources
// build builds: bundled, the Go routes become one source per bundle. A Go
// bundle an earlier build wrote that the settings no longer make (all of
// them with "goBundle": false) is removed, saying so on stdout, since it
// would claim the routes that now build elsewhere.
func bundled(app string, b config.Build, sources []guestbuild.Source, stdout io.Writer) ([]guestbuild.Source, error) {
	out := grouped(b, sources)
	if !slices.ContainsFunc(sources, func(s guestbuild.Source) bool { return s.Lang == guestbuild.LangGo }) {
		return out, nil
	}
	made := map[string]bool{}
	for _, s := range out {
		if len(s.Routes) > 0 {
			made[s.Module] = true
		}
	}
	ours := map[string]bool{} // what the app's Go sources put in a bundle
	for _, s := range sources {
		if entry, err := guestbuild.BundleEntry(s); err == nil && s.Lang == guestbuild.LangGo {
			ours[entry] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(app, abi.BundleDir, "*"+routefile.Extension))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		rel := abi.BundleDir + "/" + filepath.Base(f)
		if made[rel] || rel != guestbuild.BundleModule && !declaresOnly(f, ours) {
			continue
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if b.BundlesGo() {
			fmt.Fprintf(stdout, "removed %s, a Go bundle of an earlier build: %s's build.goBundles no longer makes it\n", rel, config.File)
		} else {
			fmt.Fprintf(stdout, "removed %s: %s says \"goBundle\": false, so each Go route builds its own module\n", rel, config.File)
		}
	}
	return out, nil
}

// declaresOnly reports whether the bundle module declares nothing but
// entries of set (guestbuild.BundleEntry): a Go bundle of the app's own.
func declaresOnly(module string, set map[string]bool) bool {
	declared, ok := bundleDeclares(module)
	if !ok || len(declared) == 0 {
		return false
	}
	for e := range declared {
		if !set[e] {
			return false
		}
	}
	return true
}

// bundleDeclares reads what the bundle module declares, as
// guestbuild.BundleEntry says it: its routes, and "middleware NAME" for
// its middleware; false when its declaration cannot be read.
func bundleDeclares(module string) (map[string]bool, bool) {
	wasm, err := os.ReadFile(module)
	if err != nil {
		return nil, false
	}
	section, ok, err := wasmbin.Custom(wasm, abi.SectionContract)
	var decl abi.Bundle
	if err != nil || !ok || json.Unmarshal(section, &decl) != nil {
		return nil, false
	}
	has := map[string]bool{}
	for _, r := range decl.Routes {
		has[r.Route] = true
	}
	for _, m := range decl.Middleware {
		has["middleware "+m.Name] = true
	}
	return has, true
}
