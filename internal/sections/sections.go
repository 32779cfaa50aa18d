// Package sections lets the endpoints command write into a route module the
// custom sections that declare it (abi.SectionContract and
// abi.SectionABIVersion), and check the app those modules make as a whole,
// without either step being public API of package host, which does the
// work: package host sets Embed and Check when it is linked.
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

// EmbedSalvaged is Embed for a Go bundle `endpoints dev` built without the
// route packages that do not compile (guestbuild.GoBundleSalvaging): the
// routes the bundle declares failed, which fail Embed, are kept in its
// section as declared, so that the host refuses them at its load from the
// section as it does from the module, and reads the bundle's other routes
// without running its code. Nil until package host is linked.
var EmbedSalvaged func(ctx context.Context, appDir, file string, wasm []byte, overrides ...config.Override) ([]byte, error)

// App is what Check found of an app it would start.
type App struct {
	// Routes counts the routes served; Operations those that are
	// endpoints (an operation of the document each).
	Routes, Operations int
	// DocumentBytes is the size of the OpenAPI document served.
	DocumentBytes int
	// Warnings are what serve would start despite (host.Host.Warnings),
	// and the settings of the app's security left to the deployment,
	// which serve refuses the app without (*auth.UnsetError, naming the
	// setting and its environment variable): a build runs where the
	// deployment's settings are not, on purpose.
	Warnings []error
}

// Check loads the app in appDir as `endpoints serve` starts it (production,
// with the overrides), routing each route module from the contract
// sections Embed wrote rather than compiling its code, and fails with the
// error serve would fail with: what depends on the app as a whole, such as
// two routes that claim the same method and path, two component schemas of
// one name that differ, a security scheme an operation names that
// endpoints.json does not configure, or an entry of the routes
// configuration that matches no route. The runtime declaration and the
// modules of server/middleware are loaded as serve loads them, as the
// document and the middleware chain need them. It neither migrates the
// app's databases, resolves its variables nor opens its store, and what
// of the app's security the deployment gives (a verifier from
// ENDPOINTS_SECURITY, a jwt secret's environment variable) it lists in
// App.Warnings rather than failing. Nil until package host is linked.
var Check func(ctx context.Context, appDir string, overrides ...config.Override) (App, error)
