package endpoints

import (
	"bytes"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/jsonenc"
)

// A bundle is one module that serves several routes (abi/README.md §9):
// endpoints build links an app's Go routes into one by default, each
// route's package imported by a generated main package. Each route package
// gets one more file from the build, which calls [BundleRoute] in a
// package variable's initialiser: Go initialises a package's variables
// before it runs its init functions, and each package whole before the
// next, so the handlers a route's init functions register land in that
// route's own registry. The bundle's declaration lists the routes in the
// order BundleRoute was called, which is the index the host passes to
// endpoints_handle_route.

// bundleRoute is one route of a bundle and what its package registered.
type bundleRoute struct {
	route string
	reg   *registry
	// err says why the route failed to register (BundleInit, or ready),
	// "" when it did not: the declaration gives it in place of a
	// contract.
	err string
	// source is the route package's directory in the app, pkgDir the
	// directory its init functions were built from (BundleInit): the
	// error of a registration that fails names the line of source.
	source, pkgDir string
}

// bundle holds the routes of a bundle module, by index; empty in a module
// of one route. bundleJSON is its declaration, built on first use (the
// bytes stay valid for the host).
var (
	bundle     []bundleRoute
	bundleJSON []byte
)

// BundleRoute begins the registrations of one route of a bundle: the
// handlers, hook and operations registered after it, until the next call,
// serve route, in the form of a //endpoints:route directive ("GET
// /api/users/:id"). It returns nothing useful; its result lets it be
// called from a variable's initialiser, before the package's init
// functions:
//
//	var _ = endpoints.BundleRoute("GET /api/users/:id")
//
// # Notes
//
// Route code never calls it: endpoints build writes that line into each
// route package of a bundle. A module that calls it is a bundle, which the
// host loads only from server/bundles.
func BundleRoute(route string) struct{} {
	reg = newRegistry()
	reg.lazy = true
	bundle = append(bundle, bundleRoute{route: route, reg: reg})
	bundleJSON = nil
	return struct{}{}
}

// BundleInit runs the init functions of the route package of a bundle
// whose registrations [BundleRoute] began, in their order, each renamed
// by endpoints build so that only this call runs them. A panic in one (a
// malformed tag, a nil handler, a second Handle) ends that route's
// registration alone: the bundle declares the route failed, with the
// panic and the line of source that made it, its registrations dropped,
// and the host refuses that route and serves the bundle's others. So is a
// route whose init functions registered no handler, and one whose types
// cannot be described (a malformed tag): the types a route registers are
// described when the bundle is declared (at load and at build, the error
// naming the line that registered them) or at the route's first request,
// not here, which a fresh instance of the bundle runs for every route.
// source is the route package's directory in the app
// ("handlers/get-user"), which the error names.
//
//	func init() { endpoints.BundleInit("handlers/get-user", _endpointsInit0) }
//
// # Notes
//
// Route code never calls it: endpoints build writes that line into each
// route package of a bundle. A panic in a package variable's initialiser,
// or in a package the route imports, still fails the whole bundle: Go
// runs those before any init function.
func BundleInit(source string, inits ...func()) {
	if len(bundle) == 0 {
		panic("endpoints: BundleInit called before BundleRoute: endpoints build writes both into a bundle's route package")
	}
	r := &bundle[len(bundle)-1]
	r.source, r.pkgDir = source, funcDir(inits)
	defer func() {
		if p := recover(); p != nil {
			r.err = registrationError(r.source, r.pkgDir, p, panicStack(), nil)
			r.reg = newRegistry()
			reg = r.reg
			bundleJSON = nil
		}
	}()
	for _, f := range inits {
		f()
	}
	if len(r.reg.ops) == 0 && r.reg.raw == nil {
		// Its declaration is read once the module is initialised: a
		// route that registered nothing by then never will, and would
		// answer every request with a 500.
		r.err = source + ": the route registers no handler: call endpoints.Handle, HandleFunc or HandleRaw from an init function of its package"
		bundleJSON = nil
	}
}

// BundleFailed declares the route whose registrations [BundleRoute]
// began failed, with text, the reason the bundle's declaration gives in
// place of its contract: the host refuses that route alone and serves the
// bundle's others. endpoints dev links it, in place of a route package
// that does not compile, with the compiler's errors, so that the other
// routes of the bundle build and serve.
//
//	var _ = endpoints.BundleRoute("GET /api/users/:id")
//	func init() { endpoints.BundleFailed("handlers/get-user/main.go:12:2: undefined: store") }
//
// # Notes
//
// Route code never calls it: endpoints dev writes that package.
func BundleFailed(text string) {
	if len(bundle) == 0 {
		panic("endpoints: BundleFailed called before BundleRoute: endpoints dev writes both into a bundle's failed route")
	}
	r := &bundle[len(bundle)-1]
	r.err, r.reg = text, newRegistry()
	reg = r.reg
	bundleJSON = nil
}

// sdkPackage is the import path of this package, whose frames a panic's
// site skips: a registration's panic is raised here, the mistake is in
// the route's call.
const sdkPackage = "github.com/wasmendpoints/endpoints/guest-sdk/go"

// ready builds what the route's registrations left for later
// (registry.ready), for its declaration: when a type cannot be described,
// the route is declared failed, as a panic of its init functions is
// (BundleInit), its registrations dropped.
func (r *bundleRoute) ready() {
	if r.err != "" {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			var site []uintptr
			for _, o := range r.reg.ops {
				if o.build == nil && o.serve == nil {
					site = o.site // the operation whose build panicked
					break
				}
			}
			if reg == r.reg {
				reg = newRegistry()
			}
			r.err = registrationError(r.source, r.pkgDir, p, panicStack(), site)
			r.reg = newRegistry()
		}
	}()
	r.reg.ready()
}

// funcDir is the directory of the source of inits' first function, as
// the module was built (-trimpath makes it an import path); "" when there
// is none.
func funcDir(inits []func()) string {
	if len(inits) > 0 {
		if f := runtime.FuncForPC(reflect.ValueOf(inits[0]).Pointer()); f != nil {
			file, _ := f.FileLine(f.Entry())
			return path.Dir(file) + "/"
		}
	}
	return ""
}

// panicStack is the stack of its caller, a deferred function that
// recovered a panic: runtime.gopanic, and what raised the panic, are on
// it.
func panicStack() []uintptr {
	pcs := make([]uintptr, 64)
	return pcs[:runtime.Callers(2, pcs)]
}

// readyFunc is the function whose frame ends the part of a panic's stack
// that says where a registration built later (registry.ready) failed:
// what called it is not the route's.
const readyFunc = sdkPackage + ".(*registry).ready"

// registrationError is the error of a route whose registration panicked
// with p: its init functions (of the package in source, built from
// pkgDir), or, with site, the building of an operation that registration
// left for later, site being the stack of that registration. stack is
// the panic's (panicStack). It names the line of the route's package
// that led to the panic, by its path in the app
// ("handlers/get-user/main.go:12"), and, when the panic was raised in
// other code than the route's, the SDK's and the runtime's, that code's
// line too, by the path the module was built with (-trimpath makes it an
// import path: "example.com/app/model/store.go:40").
func registrationError(source, pkgDir string, p any, stack, site []uintptr) string {
	msg := fmt.Sprint(p)
	if e, ok := p.(error); ok {
		msg = e.Error()
	}
	var raised string // where other code than the route's raised it
	// at says where fr is when it is a line of the route's package, and
	// notes in raised the first line of other code.
	at := func(fr runtime.Frame) string {
		switch {
		case fr.File == "" || strings.HasPrefix(fr.Function, "runtime.") || strings.HasPrefix(fr.Function, sdkPackage+"."):
		case pkgDir != "" && strings.HasPrefix(fr.File, pkgDir):
			return fmt.Sprintf("%s/%s:%d", source, strings.TrimPrefix(fr.File, pkgDir), fr.Line)
		case raised == "":
			raised = fmt.Sprintf("%s:%d", fr.File, fr.Line)
		}
		return ""
	}
	found := ""
	frames := runtime.CallersFrames(stack)
	var panicking bool
	for more := true; more && found == ""; {
		var fr runtime.Frame
		fr, more = frames.Next()
		switch {
		case fr.Function == "runtime.gopanic":
			panicking = true
		case !panicking:
		case site != nil && fr.Function == readyFunc:
			more = false // the rest is the declaration's caller
		default:
			found = at(fr)
		}
	}
	if site != nil {
		frames = runtime.CallersFrames(site)
		for more := true; more && found == ""; {
			var fr runtime.Frame
			fr, more = frames.Next()
			found = at(fr)
		}
	}
	switch {
	case found != "" && raised != "":
		return fmt.Sprintf("%s: registering the route panicked (in %s): %s", found, raised, msg)
	case found != "":
		return fmt.Sprintf("%s: registering the route panicked: %s", found, msg)
	}
	return fmt.Sprintf("%s: registering the route panicked: %s", source, msg)
}

// bundledMiddleware is one middleware of a bundle (BundleMiddleware).
type bundledMiddleware struct {
	name string
	m    *Middleware
	decl abi.Middleware
}

// bundleMW holds a bundle's middleware, by index, and the name the next
// DeclareMiddleware call takes (set by BundleMiddleware).
var bundleMW struct {
	list    []bundledMiddleware
	pending string
}

// BundleMiddleware makes the next [DeclareMiddleware] call declare one
// middleware of a bundle, named name as its module would be in
// server/middleware ("10-audit"), rather than the module's only one. Like
// [BundleRoute], it is called from a variable's initialiser, before the
// package's init functions:
//
//	var _ = endpoints.BundleMiddleware("10-audit")
//
// # Notes
//
// Middleware code never calls it: endpoints build writes that line into
// each middleware package it links into a bundle.
func BundleMiddleware(name string) struct{} {
	bundleMW.pending = name
	// Until the next route's BundleRoute, a registration is the
	// middleware package's, which routeOnly refuses: left on the
	// previous route's registry, a handler registered here served
	// that route.
	reg = newRegistry()
	reg.middleware = name
	return struct{}{}
}

// declaration returns what the endpoints_contract export returns: a
// bundle's declaration ([abi.Bundle]), or the contract of a module of one
// route.
func declaration() []byte {
	if len(bundle) == 0 {
		return reg.contractJSON()
	}
	if bundleJSON == nil {
		for i := range bundle {
			bundle[i].ready()
		}
		var err error
		if bundleJSON, err = bundleDeclaration(); err != nil {
			panic("endpoints: encoding the bundle's declaration: " + err.Error())
		}
	}
	return bundleJSON
}

// bundleDeclaration encodes the bundle's declaration, an [abi.Bundle],
// with each route's contract written as it is. json.Marshal would compact
// every contract again, a json.RawMessage though it is compact already:
// it scans each byte, which in the interpreter that runs a saved bundle's
// new version costs the host about a tenth of a second per reload of the
// users example (16 KB of contracts). The routes' names and the
// middleware are written by hand too, as json.Marshal writes them
// (appendBundleMiddleware): its encoders for the middleware's types are
// built by reflection in each fresh instance.
func bundleDeclaration() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"routes":[`)
	for i, r := range bundle {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"route":`)
		b.Write(jsonenc.AppendString(b.AvailableBuffer(), r.route))
		if r.err != "" {
			b.WriteString(`,"error":`)
			b.Write(jsonenc.AppendString(b.AvailableBuffer(), r.err))
		} else if c := r.reg.contractJSON(); len(c) > 0 {
			b.WriteString(`,"contract":`)
			b.Write(c)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if len(bundleMW.list) > 0 {
		mws := make([]abi.BundleMiddleware, len(bundleMW.list))
		for i, m := range bundleMW.list {
			mws[i] = abi.BundleMiddleware{Name: m.name, Declaration: m.decl}
		}
		b.WriteString(`,"middleware":`)
		m, err := appendBundleMiddleware(b.AvailableBuffer(), mws)
		if err != nil {
			return nil, err
		}
		b.Write(m)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// selectRoute makes the registry of a bundle's route the one requests use,
// for the body of endpoints_handle_route and
// endpoints_on_validation_error_route.
func selectRoute(export string, index int32) error {
	if len(bundle) == 0 {
		return fmt.Errorf("%s called in a module of one route: the host calls it only in a bundle", export)
	}
	if index < 0 || int(index) >= len(bundle) {
		return fmt.Errorf("%s called for route %d; the bundle has %d routes", export, index, len(bundle))
	}
	reg = bundle[index].reg
	return nil
}

// handleRoute serves one request for route index of a bundle.
func handleRoute(index int32) int32 {
	if err := selectRoute(abi.ExportHandleRoute, index); err != nil {
		hostLog(abi.LogError, "endpoints: "+err.Error())
		return 1
	}
	return handle()
}

// onValidationErrorRoute runs the validation-error hook of route index of
// a bundle.
func onValidationErrorRoute(index int32) int32 {
	if err := selectRoute(abi.ExportOnValidationErrorRoute, index); err != nil {
		hostLog(abi.LogError, "endpoints: "+err.Error())
		return hookFailed
	}
	return onValidationError()
}

// middlewareRoute runs one phase of the middleware index of a bundle, for
// the bodies of endpoints_before_route, endpoints_after_route and
// endpoints_verify_route: it makes that middleware the one the phase's
// function runs.
func middlewareRoute(export string, index int32, phase func() int32) int32 {
	if index < 0 || int(index) >= len(bundleMW.list) {
		hostLog(abi.LogError, fmt.Sprintf("endpoints: %s called for middleware %d; the module has %d", export, index, len(bundleMW.list)))
		return -1
	}
	middleware.m = bundleMW.list[index].m
	return phase()
}
