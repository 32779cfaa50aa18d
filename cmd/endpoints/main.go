// Command endpoints builds and serves Endpoints apps: HTTP APIs whose routes
// are WebAssembly modules with contracts.
//
//	endpoints dev examples/users      # build the Go sources, serve with checks on
//	endpoints build examples/users    # compile route sources into .wasm modules
//	endpoints serve examples/users    # serve the built modules in production
//	endpoints routes examples/users   # list the routes
//
// Run `endpoints help` for every command and flag.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	// The store drivers endpoints.json may name ("storage": {"driver":
	// "redis"}); embedders of package host import the ones they use.
	_ "github.com/wasmendpoints/endpoints/database/postgres"
	_ "github.com/wasmendpoints/endpoints/storage/redis"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
