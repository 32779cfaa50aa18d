package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/wattest"
)

// TestInspect builds modules in C and WAT with endpoints build, which
// records their contract and ABI version in custom sections, and reads
// them back with endpoints inspect.
func TestInspect(t *testing.T) {
	t.Parallel()
	needTool(t, "wat2wasm")
	app := cApp(t)
	if code, _, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build: exit %d: %s", code, errOut)
	}
	for _, tt := range []struct {
		file, kind, summary string
	}{
		{"server/api/users/[id].get.wasm", "endpoint", "Get a user"},
		{"server/routes/health.get.wasm", "plain route", ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			code, out, errOut := runCLI("inspect", "--json", filepath.Join(app, filepath.FromSlash(tt.file)))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var info moduleInfo
			if err := json.Unmarshal([]byte(out), &info); err != nil {
				t.Fatal(err)
			}
			var c struct{ Summary string }
			_ = json.Unmarshal(info.Contract, &c)
			if info.Kind != tt.kind || c.Summary != tt.summary || !strings.HasPrefix(info.ABI, "v1 (endpoints.abi_version section)") || info.Size == 0 {
				t.Errorf("inspect = kind %q, abi %q, summary %q; want %q, v1 from its section, %q", info.Kind, info.ABI, c.Summary, tt.kind, tt.summary)
			}
		})
	}
	t.Run("a WAT module not built by endpoints build", func(t *testing.T) {
		code, out, _ := runCLI("inspect", filepath.Join("..", "..", "host", "testdata", "hello", "server", "api", "hello.get.wasm"))
		if code != exitOK || !strings.Contains(out, "abi       v1 (endpoints_abi_version returns it)") || !strings.Contains(out, "its contract is in code") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("not a module", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "x.wasm")
		os.WriteFile(bad, []byte("hello"), 0o644)
		if code, _, errOut := runCLI("inspect", bad); code == exitOK || !strings.Contains(errOut, "not a valid WebAssembly module") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
}

// TestConformanceCommand runs `endpoints conformance` on the C twin of the
// users example, which passes, and on a copy whose 404 answer says
// something else, which fails naming the case and what was expected.
func TestConformanceCommand(t *testing.T) {
	t.Parallel()
	needTool(t, "wat2wasm")
	app := cApp(t)
	code, out, errOut := runCLI("conformance", app)
	if code != exitOK || !strings.Contains(out, "  ok   a declared 404") || !strings.Contains(out, "cases passed") {
		t.Fatalf("conformance on users-c: exit %d\n%s\n%s", code, out, errOut)
	}
	src := filepath.Join(app, "server", "api", "users", "[id].get.c")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(strings.Replace(string(b), `" not found\"}"`, `" is missing\"}"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI("conformance", app)
	if code != exitError || !strings.Contains(out, "FAIL a declared 404") || !strings.Contains(out, `want {"message":"user 9 not found"}`) {
		t.Errorf("conformance on a broken port: exit %d\n%s", code, out)
	}
}

// TestConformanceSaysWhenNotAPort runs `endpoints conformance` on an app
// that is not a port of the users example: it says so, naming what is
// missing, instead of failing every case.
func TestConformanceSaysWhenNotAPort(t *testing.T) {
	t.Parallel()
	needTool(t, "wat2wasm")
	app := writeApp(t, map[string]string{"server/routes/hello.get.wat": plainRoute("hello")})
	code, out, errOut := runCLI("conformance", app)
	if code != exitError || strings.Contains(out, "cases failed") ||
		!strings.Contains(errOut, "is not a port of the users example") ||
		!strings.Contains(errOut, "does not serve the endpoint GET /api/users/:id nor the plain route GET /health") {
		t.Errorf("conformance on an app of its own: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestInspectEveryLanguage builds one route of each guest language the
// build step knows, and a Go bundle of several routes, records its
// contract in custom sections as `endpoints build` does, and reads it back
// with `endpoints inspect` without running the module: for the bundle,
// every route it serves.
func TestInspectEveryLanguage(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	for _, tt := range []struct {
		lang    guestbuild.Language
		tool    string
		app     string // the directory the source path is relative to
		source  string
		module  string
		kind    string
		summary string
	}{
		{guestbuild.LangGo, "go", "examples/users", "handlers/get-user", "server/api/users/[id].get.wasm", "endpoint", "Get a user"},
		{guestbuild.LangC, "clang", "examples/users-c", "server/api/users/[id].get.c", "server/api/users/[id].get.wasm", "endpoint", "Get a user"},
		{guestbuild.LangAS, "npm", "examples/users-as", "server/api/users/index.post.ts", "server/api/users/index.post.wasm", "endpoint", "Create a user"},
		{guestbuild.LangRust, "rustc", "examples/users-rs", "server/api/users/[id].get.rs", "server/api/users/[id].get.wasm", "endpoint", "Get a user"},
		{guestbuild.LangWAT, "wat2wasm", "guest-sdk/wat", "hello.wat", "server/api/hello.get.wasm", "endpoint", ""},
		{guestbuild.LangC, "clang", "examples/users-c", "server/routes/health.get.c", "server/routes/health.get.wasm", "plain route", ""},
		{guestbuild.LangGo, "go", "examples/users", "handlers", guestbuild.BundleModule, "bundle of 4 routes and 1 middleware", ""},
	} {
		t.Run(string(tt.lang)+" "+tt.source, func(t *testing.T) {
			if testing.Short() && (tt.lang == guestbuild.LangGo || tt.lang == guestbuild.LangAS || tt.lang == guestbuild.LangRust) {
				t.Skip("-short: this compiler takes seconds")
			}
			needTool(t, tt.tool)
			out := t.TempDir()
			src := guestbuild.Source{Lang: tt.lang, Path: tt.source, Module: tt.module}
			if tt.module == guestbuild.BundleModule {
				var routes []guestbuild.Source
				for _, r := range inspectBundleRoutes {
					routes = append(routes, guestbuild.Source{Lang: guestbuild.LangGo, Path: r.path, Module: r.module})
				}
				// The example's Go middleware is linked into the bundle too.
				routes = append(routes, guestbuild.Source{Lang: guestbuild.LangGo, Path: "middleware/audit", Module: "server/middleware/10-audit.wasm"})
				src = guestbuild.BundleGo(routes)[0]
			}
			if _, err := guestbuild.Build(t.Context(), filepath.Join(root, filepath.FromSlash(tt.app)), out, []guestbuild.Source{src}, nil); err != nil {
				t.Fatal(err)
			}
			if err := embedContracts(t.Context(), out, nil, []guestbuild.Source{src}); err != nil {
				t.Fatal(err)
			}
			code, stdout, errOut := runCLI("inspect", "--json", filepath.Join(out, filepath.FromSlash(tt.module)))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var info moduleInfo
			if err := json.Unmarshal([]byte(stdout), &info); err != nil {
				t.Fatal(err)
			}
			var c struct{ Summary string }
			_ = json.Unmarshal(info.Contract, &c)
			if info.Kind != tt.kind || !strings.HasPrefix(info.ABI, "v1 (endpoints.abi_version section)") || info.Size == 0 || (tt.summary != "" && c.Summary != tt.summary) {
				t.Errorf("inspect = kind %q, abi %q, summary %q, size %d; want %q, v1 from its section, summary %q", info.Kind, info.ABI, c.Summary, info.Size, tt.kind, tt.summary)
			}
			if tt.kind != "plain route" && len(info.Contract) == 0 {
				t.Errorf("inspect printed no contract for an endpoint")
			}
			if tt.module == guestbuild.BundleModule {
				checkInspectBundle(t, filepath.Join(out, filepath.FromSlash(tt.module)), info)
				if strings.Join(info.Middleware, ",") != "10-audit" {
					t.Errorf("inspect lists the bundle's middleware as %q, want 10-audit", info.Middleware)
				}
			}
		})
	}
}

// inspectBundleRoutes are the routes of the Go bundle TestInspectEveryLanguage
// builds from examples/users: endpoints of several methods and a plain route.
var inspectBundleRoutes = []struct {
	path, module string
	want         bundleRoute
}{
	{"handlers/get-user", "server/api/users/[id].get.wasm", bundleRoute{"GET /api/users/:id", "endpoint", "Get a user"}},
	{"handlers/create-user", "server/api/users/index.post.wasm", bundleRoute{"POST /api/users", "endpoint", "Create a user"}},
	{"handlers/patch-user", "server/api/users/[id].patch.wasm", bundleRoute{"PATCH /api/users/:id", "endpoint", "Change a user"}},
	{"handlers/health", "server/routes/health.get.wasm", bundleRoute{"GET /health", "plain route", ""}},
}

// checkInspectBundle checks that inspect lists every route of the bundle
// module, in its JSON (info) and in its text.
func checkInspectBundle(t *testing.T, module string, info moduleInfo) {
	t.Helper()
	got := map[string]bundleRoute{}
	for _, r := range info.Routes {
		got[r.Route] = r
	}
	if len(info.Routes) != len(inspectBundleRoutes) {
		t.Errorf("inspect --json lists %d routes of the bundle, want %d: %+v", len(info.Routes), len(inspectBundleRoutes), info.Routes)
	}
	code, text, errOut := runCLI("inspect", module)
	if code != exitOK {
		t.Fatalf("inspect = %d: %s", code, errOut)
	}
	if m := info.Middleware; len(m) > 0 && !strings.Contains(text, "middleware "+strings.Join(m, ", ")+"\n") {
		t.Errorf("inspect's text does not list the middleware %v:\n%s", m, text)
	}
	for _, r := range inspectBundleRoutes {
		if got[r.want.Route] != r.want {
			t.Errorf("inspect --json lists %+v for %s, want %+v", got[r.want.Route], r.want.Route, r.want)
		}
		line := r.want.Route + " (" + r.want.Kind
		if r.want.Summary != "" {
			line += ": " + r.want.Summary
		}
		if !strings.Contains(text, line+")\n") {
			t.Errorf("inspect's text does not list %s)\n%s", line, text)
		}
	}
}

// TestInspectListsEachImportOnce: a module that imports one function twice
// with one type (a Go module imports wasi_snapshot_preview1.fd_write from
// its runtime and again from package syscall) lists it once; one imported
// under one name with two types lists each with its type, which says why
// it is there twice.
func TestInspectListsEachImportOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, imports string
		want          []string
	}{
		{"one name, one type, twice", `
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))`,
			[]string{"wasi_snapshot_preview1.fd_write", "wasi_snapshot_preview1.proc_exit"}},
		{"one name, two types", `
  (import "env" "f" (func (param i32) (result i32)))
  (import "env" "f" (func (param i64)))
  (import "env" "f" (func (param i32) (result i32)))`,
			[]string{"env.f (i32) -> i32", "env.f (i64)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			wattest.Write(t, dir, "m.wasm", "(module"+tc.imports+"\n  (memory (export \"memory\") 1))\n")
			code, out, errOut := runCLI("inspect", "--json", filepath.Join(dir, "m.wasm"))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var info moduleInfo
			if err := json.Unmarshal([]byte(out), &info); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(info.Imports, tc.want) {
				t.Errorf("imports = %q, want %q", info.Imports, tc.want)
			}
		})
	}
}
