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
	})
	got, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Source{
		{LangRust, "server/api/items.get.rs", "server/api/items.get.wasm"},
		{LangAS, "server/api/items.post.ts", "server/api/items.post.wasm"},
		{LangGo, "handlers/create", "server/api/users.post.wasm"},
		{LangGo, "handlers/get-user", "server/api/users/[id].get.wasm"},
		{LangC, "server/api/users/[id].patch.c", "server/api/users/[id].patch.wasm"},
		{LangGo, "runtime", "server/endpoints/runtime.wasm"},
		{LangGo, "middleware/audit", "server/middleware/10-audit.wasm"},
		{LangC, "server/middleware/20-limit.c", "server/middleware/20-limit.wasm"},
		{LangGo, "files", "server/routes/files/[...path].wasm"},
		{LangWAT, "server/routes/hello.get.wat", "server/routes/hello.get.wasm"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Find:\n got %v\nwant %v", got, want)
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
		{"two sources build one module", map[string]string{
			"a/main.go": "//endpoints:route GET /api/x\npackage main\n", "b/main.go": "//endpoints:route GET /api/x\npackage main\n"},
			[]string{"a and b both build server/api/x.get.wasm"}},
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

// TestPrimeGoCompilesSharedPackages: before the Go routes of an app are
// built, one go build compiles what they share, so the builds that follow
// find it in the cache (go list calls it not stale) rather than each
// compiling it again side by side.
func TestPrimeGoCompilesSharedPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the wasip1 runtime into an empty build cache")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	t.Setenv("GOCACHE", t.TempDir())
	route := "package main\n\nimport \"primetest/shared\"\n\nfunc main() { println(shared.Name()) }\n"
	dir := writeTree(t, map[string]string{
		"go.mod":           "module primetest\n\ngo 1.24\n",
		"shared/shared.go": "package shared\n\n// Name is shared by the routes.\nfunc Name() string { return \"shared\" }\n",
		"a/main.go":        "//endpoints:route GET /a\n" + route,
		"b/main.go":        "//endpoints:route GET /b\n" + route,
	})
	stale := func() string {
		cmd := exec.Command(goTool, "list", "-trimpath", "-f", "{{.Stale}}", "./shared")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := stale(); got != "true" {
		t.Fatalf("before priming, the shared package is stale=%s in an empty cache, want true", got)
	}
	sources, err := Find(dir)
	if err != nil || len(sources) != 2 {
		t.Fatalf("Find = %v, %v; want the two routes", sources, err)
	}
	primeGo(context.Background(), dir, sources)
	if got := stale(); got != "false" {
		t.Errorf("after priming, the shared package is stale=%s, want false: the route builds would compile it again", got)
	}
}
