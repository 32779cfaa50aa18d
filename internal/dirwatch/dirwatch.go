// Package dirwatch watches a directory tree for changed files: the one
// file watcher of Endpoints, under the host's reloads (host.Watch) and the
// endpoints command's rebuilds. fsnotify watches single directories; this
// adds the directories below a root, and those created later, and says
// which files an event changed, relative to the root with forward slashes.
// A directory created with files already in it (written before it was
// watched, so sending no event of their own) reports those files.
//
//	w, err := dirwatch.New(app, dirwatch.Options{})
//	defer w.Close()
//	for ev := range w.Events {
//		for _, rel := range w.Changed(ev) { ... }
//	}
package dirwatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options says which part of the tree a Watcher watches.
type Options struct {
	// Roots are the directories watched with all they hold, relative to
	// the root; nil watches the whole tree. The root itself is always
	// watched (its own files, and a root created later).
	Roots []string
	// Skip names directories left out, wherever they are (besides hidden
	// ones, whose names start with "."): "node_modules", "testdata".
	Skip func(name string) bool
}

// Watcher is an fsnotify.Watcher over a tree: read its Events and Errors.
type Watcher struct {
	*fsnotify.Watcher
	root  string
	roots []string // Options.Roots as paths; nil for the whole tree
	skip  func(string) bool
}

// New watches root and, per opts, the directories below it.
func New(root string, opts Options) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{Watcher: fw, root: root, skip: opts.Skip}
	if err := fw.Add(root); err != nil {
		fw.Close()
		return nil, err
	}
	if opts.Roots == nil {
		w.addTree(root)
	}
	for _, r := range opts.Roots {
		p := filepath.Join(root, filepath.FromSlash(r))
		w.roots = append(w.roots, p)
		w.addTree(p)
	}
	return w, nil
}

// Changed returns the files an event changed, relative to the root with
// forward slashes: the event's file, or for a directory just created the
// directory itself, its path ending in a slash ("server/api/"), then every
// file in it, the directory and those below it being watched from now on.
// Hidden files are left out, and so are other events on directories.
//
// A created directory is reported even when it holds no file: what
// happened in it before it was watched sent no event, and a file written
// and removed in that time is in no list, though a caller may have read it
// (a reload that ran meanwhile). A caller that keeps a view of the files
// reads the directory again.
func (w *Watcher) Changed(ev fsnotify.Event) []string {
	paths := []string{ev.Name}
	if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
		if !ev.Has(fsnotify.Create) || !w.inRoots(ev.Name) || w.skipped(filepath.Base(ev.Name)) {
			return nil
		}
		paths = append([]string{ev.Name + string(filepath.Separator)}, w.addTree(ev.Name)...)
	}
	var out []string
	for _, p := range paths {
		rel, err := filepath.Rel(w.root, p)
		if err != nil || strings.HasPrefix(rel, "..") || strings.HasPrefix(filepath.Base(rel), ".") {
			continue
		}
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(p, string(filepath.Separator)) {
			rel += "/" // filepath.Rel drops the trailing separator
		}
		out = append(out, rel)
	}
	return out
}

// SavedSince returns the files of the watched tree modified after t,
// relative to the root with forward slashes, hidden and skipped ones left
// out. Files saved before the watches were set up sent no event: a caller
// that must not miss them calls SavedSince(start) once New returned.
func (w *Watcher) SavedSince(t time.Time) []string {
	dirs := w.roots
	if dirs == nil {
		dirs = []string{w.root}
	}
	var out []string
	saved := func(path string, d fs.DirEntry) {
		if fi, err := d.Info(); err == nil && fi.ModTime().After(t) && !strings.HasPrefix(d.Name(), ".") {
			if rel, err := filepath.Rel(w.root, path); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
	}
	if w.roots != nil { // the root's own files are watched too
		entries, _ := os.ReadDir(w.root)
		for _, e := range entries {
			if !e.IsDir() {
				saved(filepath.Join(w.root, e.Name()), e)
			}
		}
	}
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return filepath.SkipDir
			case d.IsDir():
				if path != dir && w.skipped(d.Name()) {
					return filepath.SkipDir
				}
			default:
				saved(path, d)
			}
			return nil
		})
	}
	return out
}

// skipped reports whether the directory name is left out.
func (w *Watcher) skipped(name string) bool {
	return strings.HasPrefix(name, ".") || w.skip != nil && w.skip(name)
}

// inRoots reports whether path is in the watched part of the tree.
func (w *Watcher) inRoots(path string) bool {
	if w.roots == nil {
		return true
	}
	for _, r := range w.roots {
		if rel, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}

// addTree watches dir and the directories under it but the skipped ones,
// and returns the files it saw. A dir that does not exist is watched when
// it appears, through its parent's events.
func (w *Watcher) addTree(dir string) []string {
	var files []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			files = append(files, path)
			return nil
		}
		if path != dir && w.skipped(d.Name()) {
			return filepath.SkipDir
		}
		_ = w.Add(path)
		return nil
	})
	return files
}
