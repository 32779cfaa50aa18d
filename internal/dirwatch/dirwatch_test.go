package dirwatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// until reads events until one changes want, and returns every file the
// events read changed on the way.
func until(t *testing.T, w *Watcher, want string) []string {
	t.Helper()
	var seen []string
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-w.Events:
			seen = append(seen, w.Changed(ev)...)
			if slices.Contains(seen, want) {
				return seen
			}
		case err := <-w.Errors:
			t.Fatal(err)
		case <-timeout:
			t.Fatalf("no event changed %s within 10 s; saw %q", want, seen)
		}
	}
}

func TestWatcher(t *testing.T) {
	root := t.TempDir()
	w, err := New(root, Options{Skip: func(name string) bool { return name == "node_modules" }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a"), 0o644)
	until(t, w, "a.go")
	// A directory made with files already in it, as `mv` or an unpacked
	// archive makes it: its files are reported, and it is watched.
	staged := filepath.Join(t.TempDir(), "pkg")
	os.MkdirAll(filepath.Join(staged, "deep"), 0o755)
	os.WriteFile(filepath.Join(staged, "deep", "b.go"), []byte("package b"), 0o644)
	if err := os.Rename(staged, filepath.Join(root, "pkg")); err != nil {
		t.Fatal(err)
	}
	until(t, w, "pkg/deep/b.go")
	os.WriteFile(filepath.Join(root, "pkg", "deep", "c.go"), []byte("package b"), 0o644)
	until(t, w, "pkg/deep/c.go")
	// Hidden files and skipped directories are left out.
	os.WriteFile(filepath.Join(root, ".swp"), nil, 0o644)
	os.MkdirAll(filepath.Join(root, "node_modules", "x"), 0o755)
	os.WriteFile(filepath.Join(root, "node_modules", "x", "i.js"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "d.go"), nil, 0o644)
	seen := until(t, w, "d.go")
	for _, f := range seen {
		if f == ".swp" || filepath.Dir(f) == "node_modules/x" {
			t.Errorf("reported %s, which is hidden or skipped; saw %q", f, seen)
		}
	}
}

func TestWatcherRoots(t *testing.T) {
	root := t.TempDir()
	w, err := New(root, Options{Roots: []string{"server"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// server/ does not exist yet: it is watched when it appears. A
	// directory outside the roots is not.
	os.MkdirAll(filepath.Join(root, "handlers", "x"), 0o755)
	os.WriteFile(filepath.Join(root, "handlers", "x", "main.go"), nil, 0o644)
	os.MkdirAll(filepath.Join(root, "server", "api"), 0o755)
	os.WriteFile(filepath.Join(root, "server", "api", "a.get.wasm"), nil, 0o644)
	seen := until(t, w, "server/api/a.get.wasm")
	os.WriteFile(filepath.Join(root, "server", "api", "b.get.wasm"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "endpoints.json"), []byte("{}"), 0o644)
	seen = append(seen, until(t, w, "endpoints.json")...)
	if !slices.Contains(seen, "server/api/b.get.wasm") {
		seen = append(seen, until(t, w, "server/api/b.get.wasm")...)
	}
	if slices.Contains(seen, "handlers/x/main.go") {
		t.Errorf("a directory outside the roots was reported: %q", seen)
	}
}

func TestSavedSince(t *testing.T) {
	root := t.TempDir()
	write := func(rel string, mod time.Time) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	before, after := start.Add(-time.Minute), start.Add(time.Second)
	write("old.txt", before)
	write("src/new.txt", after)
	write("src/deep/new.txt", after)
	write("src/.new.swp", after)
	write("node_modules/x/new.js", after)
	write("outside/new.txt", after)
	write("top.txt", after)
	w, err := New(root, Options{Skip: func(name string) bool { return name == "node_modules" }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := w.SavedSince(start)
	slices.Sort(got)
	if want := []string{"outside/new.txt", "src/deep/new.txt", "src/new.txt", "top.txt"}; !slices.Equal(got, want) {
		t.Errorf("SavedSince = %q, want %q", got, want)
	}
	r, err := New(root, Options{Roots: []string{"src"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got = r.SavedSince(start)
	slices.Sort(got)
	if want := []string{"src/deep/new.txt", "src/new.txt", "top.txt"}; !slices.Equal(got, want) {
		t.Errorf("SavedSince under the root src = %q, want %q", got, want)
	}
}

// TestCreatedDirectoryReported: a directory made, a file written in it and
// removed, all before its event is read (as while a reload runs): no
// event will ever name that file, so the directory itself is reported, for
// a caller that read the file meanwhile to read the directory again.
func TestCreatedDirectoryReported(t *testing.T) {
	root := t.TempDir()
	w, err := New(root, Options{Roots: []string{"server"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	os.MkdirAll(filepath.Join(root, "server"), 0o755)
	until(t, w, "server/")
	dir := filepath.Join(root, "server", "endpoints")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "runtime.wasm")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	seen := until(t, w, "server/endpoints/")
	if slices.Contains(seen, "server/endpoints/runtime.wasm") {
		t.Errorf("reported a file that was gone before its directory was watched: %q", seen)
	}
	// Watched from now on.
	os.WriteFile(f, nil, 0o644)
	until(t, w, "server/endpoints/runtime.wasm")
}
