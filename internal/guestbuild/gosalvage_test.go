package guestbuild

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFailingRoutes: the errors of a failed bundle build are taken route
// by route from go build's "# IMPORTPATH" headers; anything else (a
// shared package's or a middleware's errors, a route already left out, a
// line outside any header, no header) cannot be salvaged.
func TestFailingRoutes(t *testing.T) {
	imports := map[string]Source{
		"example.com/app/handlers/a":  {Lang: LangGo, Path: "handlers/a", Module: "server/api/a.get.wasm"},
		"example.com/app/handlers/b":  {Lang: LangGo, Path: "handlers/b", Module: "server/routes/b.get.wasm"},
		"example.com/app/handlers/mw": {Lang: LangGo, Path: "handlers/mw", Module: "server/middleware/10-mw.wasm"},
		// handlers/a's stand-in, once left out
		"example.com/app/_endpoints_bundle/failed/0": {Lang: LangGo, Path: "handlers/a", Module: "server/api/a.get.wasm"},
	}
	const head = "build Go bundle server/bundles/go.wasm of app: go failed (exit status 1):\n"
	for _, tc := range []struct {
		name   string
		msg    string
		failed map[string]string
		want   map[string]string // nil: not salvageable
	}{
		{"one route", head + "# example.com/app/handlers/a\nhandlers/a/main.go:9:2: undefined: store\nhandlers/a/main.go:10:2: undefined: x",
			nil, map[string]string{"handlers/a": "handlers/a/main.go:9:2: undefined: store\nhandlers/a/main.go:10:2: undefined: x"}},
		{"two routes", head + "# example.com/app/handlers/b\nhandlers/b/main.go:3:1: syntax error\n# example.com/app/handlers/a\nhandlers/a/main.go:9:2: undefined: store\n",
			nil, map[string]string{"handlers/a": "handlers/a/main.go:9:2: undefined: store", "handlers/b": "handlers/b/main.go:3:1: syntax error"}},
		{"a route and one left out before", head + "# example.com/app/handlers/b\nhandlers/b/main.go:3:1: syntax error",
			map[string]string{"handlers/a": "old"}, map[string]string{"handlers/b": "handlers/b/main.go:3:1: syntax error"}},
		{"a shared package", head + "# example.com/app/model\nmodel/store.go:4:2: undefined: y\n# example.com/app/handlers/a\nhandlers/a/main.go:9:2: x", nil, nil},
		{"a middleware", head + "# example.com/app/handlers/mw\nhandlers/mw/main.go:1:1: x", nil, nil},
		{"a route already left out", head + "# example.com/app/_endpoints_bundle/failed/0\n_endpoints_bundle/failed/0/failed.go:7:15: undefined: endpoints.BundleFailed",
			map[string]string{"handlers/a": "old"}, nil},
		{"a line before any header", head + "go: example.com/app/handlers/a: missing go.sum entry\n# example.com/app/handlers/a\nhandlers/a/main.go:9:2: x", nil, nil},
		{"no header", head + "link: wasm: too many functions", nil, nil},
		{"a header without errors", head + "# example.com/app/handlers/a\n", nil, nil},
		{"no output", "build Go bundle server/bundles/go.wasm: go: not found", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := failingRoutes(tc.msg, imports, tc.failed)
			if ok != (tc.want != nil) || !maps.Equal(got, tc.want) {
				t.Errorf("failingRoutes = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

// TestGoBundleSalvaging: a bundle two of whose route packages do not
// compile builds, for development, without them, each returned with the
// compiler's errors, file and line; built for production it fails whole.
// A package the routes share that does not compile fails it in both.
func TestGoBundleSalvaging(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles a Go bundle")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// The app's go line is the SDK module's, which go requires at least.
	repoMod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(repoMod)
	route := func(path, extra string) string {
		return "//endpoints:route GET " + path + "\npackage main\n\nimport (\n\t\"salvage/shared\"\n\n\tendpoints \"" + sdkImport + "\"\n)\n\n" +
			"func init() {\n\tendpoints.HandleFunc(endpoints.Operation{}, func(*struct{}) (string, error) { return shared.Name, nil })\n}\n\nfunc main() {}\n" + extra
	}
	dir := writeTree(t, map[string]string{
		"go.mod":           "module salvage\n\n" + string(goLine) + "\n\nrequire github.com/wasmendpoints/endpoints v0.0.0-00010101000000-000000000000\n\nreplace github.com/wasmendpoints/endpoints => " + repo + "\n",
		"go.sum":           string(sum),
		"shared/shared.go": "package shared\n\n// Name is shared by the routes.\nconst Name = \"shared\"\n",
		"a/main.go":        route("/a", ""),
		"b/main.go":        route("/b", "\nvar broken int = \"not an int\"\n"),
		"c/main.go":        route("/c", "\nfunc oops() { undefinedName() }\n"),
	})
	sources, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	bundle := BundleGo(sources)[0]
	out := filepath.Join(dir, filepath.FromSlash(bundle.Module))
	if err := GoBundle(t.Context(), dir, bundle.Module, bundle.Routes, out); err == nil || !strings.Contains(err.Error(), "b/main.go:16:") {
		t.Errorf("GoBundle = %v, want the build to fail, naming b/main.go:16", err)
	}
	left, err := GoBundleSalvaging(t.Context(), dir, bundle.Module, bundle.Routes, out)
	if err != nil {
		t.Fatalf("GoBundleSalvaging = %v, want the bundle built without b and c", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no bundle written: %v", err)
	}
	want := map[string]string{"b": `b/main.go:16:18: cannot use "not an int"`, "c": "c/main.go:16:15: undefined: undefinedName"}
	if len(left) != len(want) {
		t.Fatalf("left out %+v, want b and c", left)
	}
	for _, u := range left {
		if w, ok := want[u.Route.Path]; !ok || !strings.HasPrefix(u.Errors, w) {
			t.Errorf("left out %s with %q, want %q", u.Route.Path, u.Errors, w)
		}
	}

	if err := os.WriteFile(filepath.Join(dir, "shared", "shared.go"), []byte("package shared\n\nconst Name = 1 +\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if left, err := GoBundleSalvaging(t.Context(), dir, bundle.Module, bundle.Routes, out); err == nil || !strings.Contains(err.Error(), "shared/shared.go:") {
		t.Errorf("GoBundleSalvaging with a shared package broken = %+v, %v; want the bundle's error naming shared/shared.go", left, err)
	}
}
