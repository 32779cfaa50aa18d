package stale_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/stale"
)

// writeFiles writes files (slash paths relative to dir) with the same
// modification time, an hour ago.
func writeFiles(t *testing.T, dir string, files map[string]string) time.Time {
	t.Helper()
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	return past
}

// TestNewest: a Go route's newest input is any file of the packages of
// its module it imports (a shared model/ package, an embedded file,
// go.mod), not only its own directory's; test files, packages it does not
// import and the standard library do not count; a C route's is its file.
func TestNewest(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain")
	}
	app := t.TempDir()
	past := writeFiles(t, app, map[string]string{
		"go.mod":                 "module example.com/app\n\ngo 1.24\n",
		"handlers/hello/main.go": "package main\n\n//endpoints:route GET /api/hello\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/app/model\"\n)\n\nfunc main() { fmt.Println(model.Name) }\n",
		"model/model.go":         "package model\n\nimport _ \"embed\"\n\n//go:embed name.txt\nvar Name string\n",
		"model/name.txt":         "Ada",
		"model/model_test.go":    "package model\n",
		"other/other.go":         "package other\n",
		"server/api/c.get.c":     "int x;\n",
	})
	sources, err := guestbuild.Find(app)
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != 2 {
		t.Fatalf("Find = %+v, want the Go and the C route", sources)
	}
	tests := []struct {
		touch, source, want string
	}{
		{"model/model.go", "handlers/hello", "model/model.go"},
		{"model/name.txt", "handlers/hello", "model/name.txt"},
		{"go.mod", "handlers/hello", "go.mod"},
		{"handlers/hello/main.go", "handlers/hello", "handlers/hello/main.go"},
		{"model/model_test.go", "handlers/hello", ""},
		{"other/other.go", "handlers/hello", ""},
		{"server/api/c.get.c", "server/api/c.get.c", "server/api/c.get.c"},
	}
	for i, tt := range tests {
		t.Run(tt.touch, func(t *testing.T) {
			// Each row touches its file later than the rows before.
			at := past.Add(time.Duration(i+1) * time.Minute)
			if err := os.Chtimes(filepath.Join(app, filepath.FromSlash(tt.touch)), at, at); err != nil {
				t.Fatal(err)
			}
			newest, err := stale.Newest(context.Background(), app, sources)
			if err != nil {
				t.Fatal(err)
			}
			in := newest[tt.source]
			if tt.want == "" {
				if in.Path == tt.touch {
					t.Errorf("Newest[%s] = %s: a file the build does not read counts", tt.source, in.Path)
				}
				return
			}
			if in.Path != tt.want || !in.ModTime.Equal(at) {
				t.Errorf("Newest[%s] = %s at %s, want %s at %s", tt.source, in.Path, in.ModTime, tt.want, at)
			}
		})
	}
}

// TestNewestWithoutGo: without a Go toolchain (a deployment image) a Go
// route's own files are what counts, and that is no error.
func TestNewestWithoutGo(t *testing.T) {
	app := t.TempDir()
	writeFiles(t, app, map[string]string{
		"go.mod":                 "module example.com/app\n\ngo 1.24\n",
		"handlers/hello/main.go": "package main\n\n//endpoints:route GET /api/hello\n\nfunc main() {}\n",
	})
	sources, err := guestbuild.Find(app)
	if err != nil || len(sources) != 1 {
		t.Fatalf("Find = %+v, %v", sources, err)
	}
	t.Setenv("PATH", t.TempDir())
	newest, err := stale.Newest(context.Background(), app, sources)
	if err != nil || newest["handlers/hello"].Path != "handlers/hello/main.go" {
		t.Errorf("Newest without go = %+v, %v; want handlers/hello/main.go and no error", newest, err)
	}
}

// TestNewestOutsideAModule: an app copied out of its Go module (a
// deployment's directory: no go.mod in it or above) counts a Go route's
// own files, as without a toolchain, and that is no error (serve used to
// warn with go list's "go.mod file not found" at every start).
func TestNewestOutsideAModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain")
	}
	app := t.TempDir()
	for dir := app; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			t.Skipf("the temporary directory is inside a Go module (%s)", dir)
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	writeFiles(t, app, map[string]string{
		"handlers/hello/main.go": "package main\n\n//endpoints:route GET /api/hello\n\nfunc main() {}\n",
	})
	sources, err := guestbuild.Find(app)
	if err != nil || len(sources) != 1 {
		t.Fatalf("Find = %+v, %v", sources, err)
	}
	newest, err := stale.Newest(context.Background(), app, sources)
	if err != nil || newest["handlers/hello"].Path != "handlers/hello/main.go" {
		t.Errorf("Newest outside a module = %+v, %v; want handlers/hello/main.go and no error", newest, err)
	}
}
