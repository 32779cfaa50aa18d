package guestbuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeTree writes files (path → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFind(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"handlers/get-user/main.go":      "//go:build wasip1\n\n//endpoints:route GET /api/users/:id\npackage main\n",
		"handlers/get-user/main_test.go": "//endpoints:route GET /ignored/in/tests\npackage main\n",
		"handlers/create/main.go":        "// Create a user.\n//\n//endpoints:route POST /api/users\npackage main\n",
		"files/main.go":                  "//endpoints:route\t* /files/**:path\npackage main\n",
		"runtime/main.go":                "//go:build wasip1\n\n//endpoints:runtime\npackage main\n",
		"middleware/audit/main.go":       "//go:build wasip1\n\n//endpoints:middleware 10-audit\npackage main\n",
		"server/middleware/20-limit.c":   "int y;\n",
		"model/users.go":                 "package model\n",
		"other/x.go":                     "//endpoints:routes are not this directive\npackage other\n",
		"_skipped/main.go":               "//endpoints:route GET /skipped\npackage main\n",
		"testdata/main.go":               "//endpoints:route GET /testdata\npackage main\n",
		"server/api/users/[id].patch.c":  "int x;\n",
		"server/routes/hello.get.wat":    "(module)\n",
		"server/api/items.get.rs":        "fn main() {}\n",
		"server/api/items.post.ts":       "export {}\n",
		"server/api/types.d.ts":          "declare const x: i32;\n",
		"lib/items.rs":                   "pub fn shared() {}\n",
		"server/routes/notes.txt":        "not a source\n",
		"server/endpoints/helpers.c":     "int z;\n",
	})
	got, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Source{
		{Lang: LangRust, Path: "server/api/items.get.rs", Module: "server/api/items.get.wasm"},
		{Lang: LangAS, Path: "server/api/items.post.ts", Module: "server/api/items.post.wasm"},
		{Lang: LangGo, Path: "handlers/create", Module: "server/api/users.post.wasm", Directive: "handlers/create/main.go:3"},
		{Lang: LangGo, Path: "handlers/get-user", Module: "server/api/users/[id].get.wasm", Directive: "handlers/get-user/main.go:3"},
		{Lang: LangC, Path: "server/api/users/[id].patch.c", Module: "server/api/users/[id].patch.wasm"},
		{Lang: LangGo, Path: "runtime", Module: "server/endpoints/runtime.wasm"},
		{Lang: LangGo, Path: "middleware/audit", Module: "server/middleware/10-audit.wasm"},
		{Lang: LangC, Path: "server/middleware/20-limit.c", Module: "server/middleware/20-limit.wasm"},
		{Lang: LangGo, Path: "files", Module: "server/routes/files/[...path].wasm", Directive: "files/main.go:1"},
		{Lang: LangWAT, Path: "server/routes/hello.get.wat", Module: "server/routes/hello.get.wasm"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Find:\n got %v\nwant %v", got, want)
	}
}

// TestFindRuntimeSources: the runtime declaration builds from
// server/endpoints/runtime.{c,wat,ts,rs} as from a Go package.
func TestFindRuntimeSources(t *testing.T) {
	for _, tt := range []struct {
		file string
		lang Language
	}{
		{"server/endpoints/runtime.c", LangC},
		{"server/endpoints/runtime.wat", LangWAT},
		{"server/endpoints/runtime.ts", LangAS},
		{"server/endpoints/runtime.rs", LangRust},
	} {
		t.Run(string(tt.lang), func(t *testing.T) {
			got, err := Find(writeTree(t, map[string]string{tt.file: "x\n", "server/routes/hello.get.wat": "(module)\n"}))
			if err != nil {
				t.Fatal(err)
			}
			want := []Source{{Lang: tt.lang, Path: tt.file, Module: "server/endpoints/runtime.wasm"}, {Lang: LangWAT, Path: "server/routes/hello.get.wat", Module: "server/routes/hello.get.wasm"}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Find:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestFindWhileADirectoryVanishes lists the sources while directories
// come and go in the app: a C route's build directory beside its module
// (server/api/.hello.get.wasm.*.tmp, removed once the module is renamed
// out of it) and a package directory deleted while it is saved. A
// listing that met one and found it gone failed, and under endpoints
// dev the save that started it built nothing.
func TestFindWhileADirectoryVanishes(t *testing.T) {
	dir := writeTree(t, map[string]string{"server/api/hello.get.c": "int x;\n"})
	churn := []string{filepath.Join(dir, "server", "api", ".hello.get.wasm.1.tmp"), filepath.Join(dir, "gone")}
	stop := make(chan struct{})
	churned := make(chan struct{})
	go func() {
		defer close(churned)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, d := range churn {
				if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
					t.Error(err)
					return
				}
			}
			for _, d := range churn {
				if err := os.RemoveAll(d); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	defer func() { close(stop); <-churned }()
	want := []Source{{Lang: LangC, Path: "server/api/hello.get.c", Module: "server/api/hello.get.wasm"}}
	for range 1000 {
		got, err := Find(dir)
		if err != nil {
			t.Fatalf("Find while directories came and went: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Find = %v, want %v", got, want)
		}
	}
}

func TestFindErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"a bad route", map[string]string{"h/main.go": "//endpoints:route GET api/users\npackage main\n"},
			[]string{"h/main.go:1", "want METHOD /path"}},
		{"an empty directive", map[string]string{"h/main.go": "//endpoints:route\npackage main\n"},
			[]string{"h/main.go:1"}},
		{"a middleware name that is no file name", map[string]string{"m/main.go": "//endpoints:middleware ../x\npackage main\n"},
			[]string{"m/main.go:1", `//endpoints:middleware "../x": want a file name`}},
		{"two directives in one package", map[string]string{
			"h/a.go": "//endpoints:route GET /a\npackage main\n", "h/b.go": "//endpoints:route GET /b\npackage main\n"},
			[]string{"h/b.go:1", "a second //endpoints:route", "h/a.go:1"}},
		{"two directives in one file", map[string]string{
			"h/main.go": "//endpoints:route GET /a\n//endpoints:route POST /a\npackage main\n"},
			[]string{"h/main.go:2", "a second //endpoints:route", "h/main.go:1", "//endpoints:route * /a"}},
		{"two sources build one module", map[string]string{
			"a/main.go": "//endpoints:route GET /api/x\npackage main\n", "b/main.go": "//endpoints:route GET /api/x\npackage main\n"},
			[]string{"a and b both serve GET /api/x (their //endpoints:route lines; alone, each would build server/api/x.get.wasm): keep one of them"}},
		{"a Go and a C runtime declaration", map[string]string{
			"runtime/main.go": "//endpoints:runtime\npackage main\n", "server/endpoints/runtime.c": "int x;\n"},
			[]string{"runtime and server/endpoints/runtime.c both build server/endpoints/runtime.wasm"}},
		{"a Go source in a bracket directory", map[string]string{"server/api/users/[id].get/main.go": "package main\n"},
			[]string{"server/api/users/[id].get", "not a valid Go import path", "//endpoints:route GET /api/users/:id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Find(writeTree(t, tt.files))
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("Find error = %v, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestBuildsTheFirstGoRouteAlone: the other Go routes start building
// once the first is built, so they find what they share in the build cache
// rather than each compiling it side by side. A go command on PATH that
// logs each build's start and end around the real one sees the order.
func TestBuildsTheFirstGoRouteAlone(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	route := "package main\n\nimport \"buildtest/shared\"\n\nfunc main() { println(shared.Name()) }\n"
	dir := writeTree(t, map[string]string{
		"go.mod":           "module buildtest\n\ngo 1.24\n",
		"shared/shared.go": "package shared\n\n// Name is shared by the routes.\nfunc Name() string { return \"shared\" }\n",
		"a/main.go":        "//endpoints:route GET /a\n" + route,
		"b/main.go":        "//endpoints:route GET /b\n" + route,
		"c/main.go":        "//endpoints:route GET /c\n" + route,
	})
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "builds.log")
	wrapper := "#!/bin/sh\necho \"start $(basename \"$PWD\")\" >> " + log + "\n" + goTool + " \"$@\"\nrc=$?\necho \"end $(basename \"$PWD\")\" >> " + log + "\nexit $rc\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := App(context.Background(), dir, dir, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "start ") || lines[1] != "end "+strings.TrimPrefix(lines[0], "start ") {
		t.Errorf("the go builds ran in the order\n%s\nwant the first route built alone, then the other two", data)
	}
}
