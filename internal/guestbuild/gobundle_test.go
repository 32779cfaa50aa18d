package guestbuild

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRenamedPackage: a route's files, its tests included, are renamed
// from package main, with every other byte (and so every line number)
// kept; a file of another package is refused, naming it.
func TestRenamedPackage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file, src, want, wantErr string
	}{
		{"main.go", "//go:build wasip1\n\n// Doc.\npackage main\n\nfunc main() {}\n", "//go:build wasip1\n\n// Doc.\npackage route\n\nfunc main() {}\n", ""},
		{"main_test.go", "package main\n\nimport \"testing\"\n", "package route\n\nimport \"testing\"\n", ""},
		{"ext_test.go", "package main_test // external\n", "package route_test // external\n", ""},
		{"lib.go", "package lib\n", "", "lib.go: package lib: a Go route is a main package"},
		{"mainly.go", "package mainly\n", "", "mainly.go: package mainly"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f := filepath.Join(dir, tc.file)
			if err := os.WriteFile(f, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := renamedPackage(f)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("renamedPackage = %q, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("renamedPackage = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestBundleGo: the Go routes and middleware become one source listing
// them, where the first was; the runtime declaration and other languages
// stay as they are, and Go middleware without Go routes too.
func TestBundleGo(t *testing.T) {
	in := []Source{
		{Lang: LangC, Path: "server/api/a.get.c", Module: "server/api/a.get.wasm"},
		{Lang: LangGo, Path: "handlers/b", Module: "server/api/b.get.wasm"},
		{Lang: LangGo, Path: "runtime", Module: "server/endpoints/runtime.wasm"},
		{Lang: LangGo, Path: "handlers/x/c", Module: "server/routes/c.get.wasm"},
		{Lang: LangGo, Path: "handlers/mw", Module: "server/middleware/10-a.wasm"},
		{Lang: LangC, Path: "server/middleware/20-b.c", Module: "server/middleware/20-b.wasm"},
	}
	got := BundleGo(in)
	if len(got) != 4 || got[1].Module != BundleModule || got[1].Path != "handlers" || len(got[1].Routes) != 3 ||
		got[1].Routes[0].Path != "handlers/b" || got[1].Routes[1].Path != "handlers/x/c" || got[1].Routes[2].Path != "handlers/mw" {
		t.Fatalf("BundleGo = %+v", got)
	}
	for i, want := range []string{"server/api/a.get.wasm", BundleModule, "server/endpoints/runtime.wasm", "server/middleware/20-b.wasm"} {
		if got[i].Module != want {
			t.Errorf("source %d builds %s, want %s", i, got[i].Module, want)
		}
	}
	if again := BundleGo(got); len(again) != 4 || len(again[1].Routes) != 3 {
		t.Errorf("BundleGo of a bundle = %+v, want it unchanged", again)
	}
	if none := BundleGo(in[:1]); len(none) != 1 || none[0].Module != "server/api/a.get.wasm" {
		t.Errorf("BundleGo without Go routes = %+v", none)
	}
	if alone := BundleGo([]Source{in[2], in[4]}); len(alone) != 2 || alone[1].Module != "server/middleware/10-a.wasm" {
		t.Errorf("BundleGo of Go middleware without Go routes = %+v, want it unchanged", alone)
	}
	if !got[1].owns("handlers/x/c") || !got[1].owns("handlers/mw") || got[1].owns("handlers") || got[1].owns("runtime") {
		t.Errorf("the bundle owns the wrong directories")
	}
	for _, tt := range []struct {
		s    Source
		want string
	}{
		{got[1], "2 routes, 1 middleware"},
		{BundleGo(in[1:2])[0], "1 route"},
		{in[0], ""},
	} {
		if c := tt.s.Contents(); c != tt.want {
			t.Errorf("Contents of %s = %q, want %q", tt.s.Module, c, tt.want)
		}
	}
}

// TestBundleEntry: a route's package registers its handlers for its
// route, a middleware's declares the middleware of its module's name.
func TestBundleEntry(t *testing.T) {
	for _, tc := range []struct {
		module, what, call string
	}{
		{"server/api/users/[id].get.wasm", "GET /api/users/:id", `endpoints.BundleRoute("GET /api/users/:id")`},
		{"server/middleware/10-audit.wasm", "middleware 10-audit", `endpoints.BundleMiddleware("10-audit")`},
	} {
		what, file, err := bundleEntry(Source{Lang: LangGo, Path: "x", Module: tc.module})
		if err != nil || what != tc.what || !strings.Contains(string(file), "package "+bundlePackage+"\n") || !strings.Contains(string(file), "var _ = "+tc.call+"\n") {
			t.Errorf("bundleEntry(%s) = %q, %s, %v; want %q calling %s", tc.module, what, file, err, tc.what, tc.call)
		}
	}
}

// TestBundleGoBy: the Go routes split among the bundles bundleOf names,
// sorted by module, in the place of the first Go route; a bundle that
// would hold middleware alone (a bundle declares at least one route)
// gives them to the first bundle with routes.
func TestBundleGoBy(t *testing.T) {
	in := []Source{
		{Lang: LangC, Path: "server/api/a.get.c", Module: "server/api/a.get.wasm"},
		{Lang: LangGo, Path: "handlers/b", Module: "server/api/b.get.wasm"},
		{Lang: LangGo, Path: "admin/c", Module: "server/api/admin/c.get.wasm"},
		{Lang: LangGo, Path: "admin/d", Module: "server/api/admin/d.get.wasm"},
		{Lang: LangGo, Path: "mw/audit", Module: "server/middleware/10-audit.wasm"},
		{Lang: LangGo, Path: "runtime", Module: "server/endpoints/runtime.wasm"},
	}
	bundleOf := func(dir string) string {
		switch {
		case strings.HasPrefix(dir, "admin/"):
			return "server/bundles/admin.wasm"
		case strings.HasPrefix(dir, "mw/"):
			return "server/bundles/mw.wasm"
		}
		return ""
	}
	got := BundleGoBy(in, bundleOf)
	var modules []string
	for _, s := range got {
		var routes []string
		for _, r := range s.Routes {
			routes = append(routes, r.Path)
		}
		modules = append(modules, s.Module+" "+strings.Join(routes, ","))
	}
	want := []string{
		"server/api/a.get.wasm ",
		"server/bundles/admin.wasm admin/c,admin/d,mw/audit",
		BundleModule + " handlers/b",
		"server/endpoints/runtime.wasm ",
	}
	if !slices.Equal(modules, want) {
		t.Errorf("BundleGoBy =\n%s\nwant\n%s", strings.Join(modules, "\n"), strings.Join(want, "\n"))
	}
	if got := BundleGoBy(in, nil); len(got) != 3 || got[1].Module != BundleModule || len(got[1].Routes) != 4 {
		t.Errorf("BundleGoBy without bundleOf = %+v, want one bundle as BundleGo", got)
	}
}

// TestRenamedInits: a route file's init functions are renamed in order,
// numbered on from first, and nothing else changes (a method named init,
// a call of a function named like one, line numbers); a file without
// them, or that does not parse, is left as it is.
func TestRenamedInits(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		first           int
		names           []string
	}{
		{"two inits", "package route\n\nfunc init() { a() }\n\ntype T struct{}\n\nfunc (T) init() {}\n\nfunc init() {\n\tb()\n}\n", "package route\n\nfunc _endpointsInit2() { a() }\n\ntype T struct{}\n\nfunc (T) init() {}\n\nfunc _endpointsInit3() {\n\tb()\n}\n", 2, []string{"_endpointsInit2", "_endpointsInit3"}},
		{"none", "package route\n\nfunc main() {}\n", "package route\n\nfunc main() {}\n", 0, nil},
		{"a syntax error", "package route\n\nfunc init() {\n", "package route\n\nfunc init() {\n", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, names := renamedInits("main.go", []byte(tc.src), tc.first)
			if string(got) != tc.want || !slices.Equal(names, tc.names) {
				t.Errorf("renamedInits = %q, %q; want %q, %q", got, names, tc.want, tc.names)
			}
		})
	}
}

// TestBuiltForWasm: a file go build leaves out of a wasip1/wasm build (a
// build constraint, a GOOS suffix) is not one whose inits the bundle runs.
func TestBuiltForWasm(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file, src string
		want      bool
	}{
		{"main.go", "package main\n", true},
		{"native.go", "//go:build !wasip1\n\npackage main\n", false},
		{"wasm.go", "//go:build wasip1\n\npackage main\n", true},
		{"x_linux.go", "package main\n", false},
		{"x_wasip1.go", "package main\n", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f := filepath.Join(dir, tc.file)
			if err := os.WriteFile(f, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := builtForWasm(f); got != tc.want {
				t.Errorf("builtForWasm(%s) = %v, want %v", tc.file, got, tc.want)
			}
		})
	}
}

// TestExplainGenerated: an error naming the file the build adds to a
// route package says what that file is, and, when the app's go.mod lacks
// the SDK, what to run; other errors stay as they are. The compiler's
// "handlers/a/00_endpoints_bundle.go:5:8: no required module provides
// package" named a file that is on no disk.
func TestExplainGenerated(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		want      []string
	}{
		{"the SDK missing from go.mod", "handlers/a/" + bundleFile + ":5:8: no required module provides package " + sdkImport + "; to add it:",
			[]string{"\n(" + bundleFile + " is the file endpoints build adds to each route package of a bundle", "go get github.com/wasmendpoints/endpoints in the app)"}},
		{"another error of that file", "handlers/a/" + bundleFile + ":7:1: undefined: endpoints.BundleInit",
			[]string{"is the file endpoints build adds", "to register the route)"}},
		{"an error of the route's own file", "handlers/a/main.go:3:1: syntax error", []string{"handlers/a/main.go:3:1: syntax error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := explainGenerated(tc.msg)
			if !strings.HasPrefix(got, tc.msg) {
				t.Errorf("explainGenerated changed the message: %q", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("explainGenerated = %q, want it to contain %q", got, w)
				}
			}
			if !strings.Contains(tc.msg, bundleFile) && got != tc.msg {
				t.Errorf("explainGenerated = %q, want the message unchanged", got)
			}
		})
	}
}
