package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/sections"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// embedContracts copies the contract and ABI version of each route module
// just built into its custom sections (internal/sections), so that
// `endpoints inspect` and other tools read them without running code, and
// `dev` and `serve` route a module from them before its code loads. Each
// module is loaded as the app's host loads it (its limits), in wazero's
// interpreter when the compilation cache lacks it: reading the exports
// needs no compiled code. Modules load GOMAXPROCS at a time.
func embedContracts(ctx context.Context, app string, ovs []config.Override, sources []guestbuild.Source) error {
	errs := make([]error, len(sources))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, s := range sources {
		if !strings.HasPrefix(s.Module, "server/api/") && !strings.HasPrefix(s.Module, "server/routes/") && !strings.HasPrefix(s.Module, abi.BundleDir+"/") {
			continue // the runtime declaration and middleware have no contract
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = embedContract(ctx, app, s.Module, ovs, false)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// embedContract rewrites the module file module (its path in the app)
// with its sections, unless it carries them already. salvaged: the module
// is a Go bundle dev built without routes that do not compile, which it
// declares failed (sections.EmbedSalvaged).
func embedContract(ctx context.Context, app, module string, ovs []config.Override, salvaged bool) error {
	path := filepath.Join(app, filepath.FromSlash(module))
	wasm, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	embed := sections.Embed
	if salvaged {
		embed = sections.EmbedSalvaged
	}
	out, err := embed(ctx, app, module, wasm, ovs...)
	if err != nil || bytes.Equal(out, wasm) {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// cmdInspect prints what a module declares, without running it.
func cmdInspect(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object")
	file, ok := parse(fs, "FILE.wasm", "module file", args, stderr)
	if !ok {
		return exitUsage
	}
	wasm, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints inspect: %v\n", err)
		return exitError
	}
	info, err := inspect(ctx, filepath.ToSlash(file), wasm)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints inspect: %s: %v\n", file, err)
		return exitError
	}
	if *asJSON {
		b, _ := json.MarshalIndent(info, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	fmt.Fprintf(stdout, "file      %s\nsize      %d bytes\nabi       %s\nkind      %s\n", file, info.Size, info.ABI, info.Kind)
	fmt.Fprintf(stdout, "imports   %s\nexports   %s\n", strings.Join(info.Imports, ", "), strings.Join(info.Exports, ", "))
	for i, r := range info.Routes {
		label := "routes   "
		if i > 0 {
			label = "         "
		}
		fmt.Fprintf(stdout, "%s %s (%s", label, r.Route, r.Kind)
		if r.Summary != "" {
			fmt.Fprintf(stdout, ": %s", r.Summary)
		}
		fmt.Fprintln(stdout, ")")
	}
	if len(info.Middleware) > 0 {
		fmt.Fprintf(stdout, "middleware %s\n", strings.Join(info.Middleware, ", "))
	}
	if info.Contract != nil {
		var pretty bytes.Buffer
		_ = json.Indent(&pretty, info.Contract, "", "  ")
		fmt.Fprintf(stdout, "contract  (%s section)\n%s\n", abi.SectionContract, pretty.String())
	}
	return exitOK
}

// moduleInfo is what inspect reports.
type moduleInfo struct {
	Size     int             `json:"size"`
	ABI      string          `json:"abi"`
	Kind     string          `json:"kind"`
	Imports  []string        `json:"imports"`
	Exports  []string        `json:"exports"`
	Contract json.RawMessage `json:"contract,omitempty"`
	// Routes are a bundle's routes, in the order of its declaration.
	Routes []bundleRoute `json:"routes,omitempty"`
	// Middleware are the names of the middleware a bundle serves too.
	Middleware []string `json:"middleware,omitempty"`
}

// bundleRoute is one route of a bundle, as inspect reports it.
type bundleRoute struct {
	Route   string `json:"route"`             // GET /api/users/:id
	Kind    string `json:"kind"`              // endpoint or plain route
	Summary string `json:"summary,omitempty"` // the contract's summary
}

// bundleRoutes reads the routes of a bundle's declaration, its
// endpoints.contract section.
func bundleRoutes(decl []byte) ([]bundleRoute, []string, error) {
	var b abi.Bundle
	if err := json.Unmarshal(decl, &b); err != nil {
		return nil, nil, fmt.Errorf("the %s section is not a bundle declaration: %w", abi.SectionContract, err)
	}
	var middleware []string
	for _, m := range b.Middleware {
		middleware = append(middleware, m.Name)
	}
	routes := make([]bundleRoute, len(b.Routes))
	for i, r := range b.Routes {
		routes[i] = bundleRoute{Route: r.Route, Kind: "plain route"}
		if len(r.Contract) > 0 && string(r.Contract) != "null" {
			var c struct{ Summary string }
			if err := json.Unmarshal(r.Contract, &c); err != nil {
				return nil, nil, fmt.Errorf("the %s section: the contract of %s: %w", abi.SectionContract, r.Route, err)
			}
			routes[i].Kind, routes[i].Summary = "endpoint", c.Summary
		}
	}
	return routes, middleware, nil
}

// importNames lists the functions a module imports, "module.name", each
// once, in the order of their first import. A module may import one
// function more than once: a Go module imports
// wasi_snapshot_preview1.fd_write from its runtime and again from package
// syscall, with one type. A name imported with different types is listed
// once per type, each with its type ("env.f (i32) -> i32"), which says
// why it is there twice.
func importNames(fns []api.FunctionDefinition) []string {
	typed := func(f api.FunctionDefinition) string {
		module, name, _ := f.Import()
		return fmt.Sprintf("%s.%s %s", module, name, signature(f))
	}
	types := map[string]map[string]bool{} // "module.name" -> its types
	for _, f := range fns {
		module, name, _ := f.Import()
		if types[module+"."+name] == nil {
			types[module+"."+name] = map[string]bool{}
		}
		types[module+"."+name][signature(f)] = true
	}
	names := []string{}
	seen := map[string]bool{}
	for _, f := range fns {
		module, name, _ := f.Import()
		n := module + "." + name
		if len(types[n]) > 1 {
			n = typed(f)
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// signature is a function's type as "(i32, i64) -> i32", without the
// arrow when it returns nothing.
func signature(f api.FunctionDefinition) string {
	names := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return strings.Join(s, ", ")
	}
	sig := "(" + names(f.ParamTypes()) + ")"
	if len(f.ResultTypes()) > 0 {
		sig += " -> " + names(f.ResultTypes())
	}
	return sig
}

// inspect reads a module's declarations: its custom sections, and its
// imports and exports from wazero's decoding (compiled by the
// interpreter, which compiles nothing; nothing is instantiated).
func inspect(ctx context.Context, file string, wasm []byte) (*moduleInfo, error) {
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	info := &moduleInfo{Size: len(wasm), Imports: importNames(cm.ImportedFunctions()), Exports: []string{}}
	for name := range cm.ExportedFunctions() {
		info.Exports = append(info.Exports, name)
	}
	slices.Sort(info.Exports)
	fns := cm.ExportedFunctions()
	switch v, ok, _ := wasmbin.Custom(wasm, abi.SectionABIVersion); {
	case ok:
		info.ABI = "v" + string(v) + " (" + abi.SectionABIVersion + " section)"
	default:
		if n, ok, _ := wasmbin.ConstExport(wasm, abi.ExportABIVersion); ok {
			info.ABI = fmt.Sprintf("v%d (%s returns it)", n, abi.ExportABIVersion)
		} else if _, ok := fns[abi.ExportABIVersion]; ok {
			info.ABI = "set by code: run endpoints build to record it, or endpoints check to run it"
		} else {
			info.ABI = "none: not an Endpoints module (no " + abi.ExportABIVersion + ")"
		}
	}
	c, hasSection, err := wasmbin.Custom(wasm, abi.SectionContract)
	if err != nil {
		return nil, err
	}
	_, hasExport := fns[abi.ExportContract]
	_, handles := fns[abi.ExportHandle]
	switch {
	case strings.Contains(file, abi.MiddlewareDir+"/"):
		info.Kind = "middleware"
	case strings.HasSuffix(file, abi.RuntimeModule):
		info.Kind = "runtime declaration"
	case strings.Contains(file, abi.BundleDir+"/") && hasSection:
		routes, middleware, err := bundleRoutes(c)
		if err != nil {
			return nil, err
		}
		info.Kind, info.Contract, info.Routes, info.Middleware = fmt.Sprintf("bundle of %d routes", len(routes)), c, routes, middleware
		if len(middleware) > 0 {
			info.Kind += fmt.Sprintf(" and %d middleware", len(middleware))
		}
	case strings.Contains(file, abi.BundleDir+"/"):
		info.Kind = "bundle (its routes are in code: run endpoints build to record them)"
	case hasSection:
		info.Kind, info.Contract = "endpoint", c
	case hasExport:
		info.Kind = "endpoint (its contract is in code: run endpoints build to record it)"
	case handles:
		info.Kind = "plain route"
	case fns[abi.ExportRuntime] != nil:
		info.Kind = "runtime declaration"
	default:
		info.Kind = "middleware or other"
		for _, e := range []string{abi.ExportBefore, abi.ExportAfter, abi.ExportVerify} {
			if _, ok := fns[e]; ok {
				info.Kind = "middleware"
			}
		}
	}
	return info, nil
}
