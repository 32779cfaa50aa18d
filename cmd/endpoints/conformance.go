package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/conformance"
	"github.com/wasmendpoints/endpoints/internal/syncbuf"
)

// cmdConformance builds an app, serves it in development on a loopback
// port of its own, and runs the users conformance suite against it: the
// behaviour every port of examples/users shows, whatever its language.
func cmdConformance(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	noBuild := fs.Bool("no-build", false, "test the modules as they are, without building the sources first")
	cacheDir := fs.String("cache-dir", "", cacheDirUsage)
	overrides := addConfigFlags(fs, stderr)
	app, code := parseApp(fs, args, stderr)
	if code != exitOK {
		return code
	}
	// The settings of the environment and --set apply, as to serve: the
	// suite runs on PostgreSQL with ENDPOINTS_DATABASES_MAIN_DRIVER and
	// ENDPOINTS_DATABASES_MAIN_URL.
	ovs := overrides()
	if !*noBuild && !build(ctx, "conformance", app, ovs, stdout, stderr) {
		return exitError
	}
	var logs syncBuffer
	h, err := host.New(ctx, app, host.Options{Mode: host.Development, CacheDir: *cacheDir, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})), ConfigOverrides: ovs})
	if err != nil {
		fmt.Fprintf(stderr, "endpoints conformance: %v\n", err)
		return exitError
	}
	defer h.Close(context.Background())
	if !reportProblems(h, stderr) {
		return exitError
	}
	var served []conformance.Route
	for _, r := range h.Routes() {
		served = append(served, conformance.Route{Method: r.Method, Path: r.Path, Endpoint: r.Kind == "endpoint"})
	}
	if missing := conformance.MissingUsersRoutes(served); len(missing) > 0 {
		fmt.Fprintf(stderr, "endpoints conformance: %s is not a port of the users example (examples/users): it does not serve %s.\n"+
			"The suite checks ports of that API only (their GET /api/users/:id, its errors and GET /health); "+
			"test your own API with its own requests, and see its routes with endpoints routes %s\n", app, strings.Join(missing, " nor "), app)
		return exitError
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(stderr, "endpoints conformance: %v\n", err)
		return exitError
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	fmt.Fprintf(stdout, "running the users conformance suite against %s (development: answers are checked against their contracts)\n", app)
	failed := 0
	results := conformance.Run(ctx, &http.Client{}, "http://"+ln.Addr().String(), conformance.Users)
	for _, r := range results {
		if r.Err != nil {
			failed++
			fmt.Fprintf(stdout, "  FAIL %s\n       %v\n", r.Case.Name, r.Err)
			continue
		}
		fmt.Fprintf(stdout, "  ok   %s\n", r.Case.Name)
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "%d of %d cases failed\n", failed, len(results))
		if logs.Len() > 0 {
			fmt.Fprintf(stdout, "\nwhat the host logged (warnings and errors):\n%s", logs.String())
		}
		return exitError
	}
	fmt.Fprintf(stdout, "all %d cases passed\n", len(results))
	return exitOK
}

// syncBuffer is the log destination the command and its tests read while
// a host or a process writes it.
type syncBuffer = syncbuf.Buffer
