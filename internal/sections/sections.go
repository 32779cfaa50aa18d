// Package sections lets the endpoints command write into a route module the
// custom sections that declare it (abi.SectionContract and
// abi.SectionABIVersion) without that step being public API of package
// host, which does the work: package host sets Embed when it is linked.
package sections

import (
	"context"

	"github.com/wasmendpoints/endpoints/config"
)

// Embed returns wasm, the route module at file (its path in the app, such
// as "server/api/hello.get.wasm") of the app in appDir, with its contract
// (endpoints only) and its ABI version copied into custom sections. It
// loads the module as the app's host would, with the limits of the app's
// endpoints.json (and the overrides), in wazero's interpreter when the
// compilation cache lacks it, compiles its contract as the host does, and
// fails with the error that load would give: a contract the host would
// refuse (an invalid pattern, a timeout over limits.maxTimeout) fails the
// build. Nil until package host is linked.
var Embed func(ctx context.Context, appDir, file string, wasm []byte, overrides ...config.Override) ([]byte, error)
