// Package stale tells when a route module is older than what it was built
// from. For a C, Rust, AssemblyScript or WAT route that is its source
// file; for a Go route it is every file of every package the build
// compiles that can change under the app: the route's package and the
// packages it imports from its own module or from a module replaced by a
// local directory (shared packages such as an app's model/), with their
// embedded files, and the module's go.mod. The standard library and
// modules in the module cache cannot change without go.mod changing.
//
//	newest, err := stale.Newest(ctx, app, sources)
//	if in := newest[s.Path]; in.ModTime.After(moduleTime) {
//		// s.Module is stale: in.Path changed since it was built
//	}
package stale

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// Input is the newest file a module is built from.
type Input struct {
	// Path is the file, relative to the app with forward slashes when it
	// is inside the app, otherwise absolute.
	Path string
	// ModTime is when it last changed.
	ModTime time.Time
}

// Newest returns the newest input of each source, by Source.Path. A
// source whose files cannot be read has no entry. The Go routes' packages
// are listed by one `go list -deps` for the wasip1/wasm target the build
// uses; when that fails (a broken go.mod), the error is returned with the
// entries of the other sources, and each Go route falls back to the .go
// files of its own directory, as it does without error when there is no
// Go toolchain or the app is in no Go module (no go.mod in it or above).
func Newest(ctx context.Context, app string, sources []guestbuild.Source) (map[string]Input, error) {
	out := map[string]Input{}
	var goDirs []string
	for _, s := range sources {
		if s.Lang == guestbuild.LangGo {
			goDirs = append(goDirs, s.Path)
			continue
		}
		if in, ok := newest(app, []string{filepath.Join(app, filepath.FromSlash(s.Path))}); ok {
			out[s.Path] = in
		}
	}
	if len(goDirs) == 0 {
		return out, nil
	}
	var files map[string][]string
	var err error
	if inModule(app) {
		files, err = goInputs(ctx, app, goDirs)
	}
	if errors.Is(err, exec.ErrNotFound) {
		// No Go toolchain (a deployment image): nothing could rebuild the
		// modules here anyway; the routes' own files are what is known.
		err = nil
		files = nil
	}
	if err != nil || files == nil {
		for _, dir := range goDirs {
			if in, ok := newest(app, dirGoFiles(filepath.Join(app, filepath.FromSlash(dir)))); ok {
				out[dir] = in
			}
		}
		return out, err
	}
	for dir, fs := range files {
		if in, ok := newest(app, fs); ok {
			out[dir] = in
		}
	}
	return out, nil
}

// inModule reports whether app is in a Go module: go.mod in app or a
// directory above it. An app copied out of its module (a deployment's
// directory, as deploy/Dockerfile makes) is in none: no build could run
// there either, so, as without a toolchain, the routes' own files are what
// is known, and `go list` is not asked (it would only fail).
func inModule(app string) bool {
	dir, err := filepath.Abs(app)
	if err != nil {
		return true // let go list say what is wrong
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// newest is the newest of files; false when none can be read.
func newest(app string, files []string) (Input, bool) {
	var in Input
	found := false
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		if !found || fi.ModTime().After(in.ModTime) {
			in, found = Input{Path: relTo(app, f), ModTime: fi.ModTime()}, true
		}
	}
	return in, found
}

// relTo is f relative to app with forward slashes, or f when it is not
// under app.
func relTo(app, f string) string {
	absApp, err1 := filepath.Abs(app)
	absF, err2 := filepath.Abs(f)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(absApp, absF); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return f
}

// dirGoFiles lists the non-test .go files of dir.
func dirGoFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var files []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			files = append(files, filepath.Join(dir, n))
		}
	}
	return files
}

// listed is what goInputs reads of `go list -json` for one package.
type listed struct {
	ImportPath string
	Dir        string
	Standard   bool
	DepOnly    bool
	Deps       []string
	GoFiles    []string
	EmbedFiles []string
	Module     *struct {
		Main    bool
		GoMod   string
		Replace *struct{ Path string }
	}
	Error *struct{ Err string }
}

// goInputs lists, for each Go route directory (relative to app), the files
// its build reads that may change (see the package comment).
func goInputs(ctx context.Context, app string, dirs []string) (map[string][]string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("listing the packages of the Go routes: %w", err)
	}
	args := []string{"list", "-e", "-deps", "-json=ImportPath,Dir,Standard,DepOnly,Deps,GoFiles,EmbedFiles,Module,Error"}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Dir = app
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps in %s: %w\n%s", app, err, bytes.TrimSpace(stderr.Bytes()))
	}
	pkgs := map[string]*listed{}
	var roots []*listed
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		p := &listed{}
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -deps in %s: %w", app, err)
		}
		pkgs[p.ImportPath] = p
		if !p.DepOnly {
			roots = append(roots, p)
		}
	}
	absApp, err := filepath.Abs(app)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, root := range roots {
		rel, err := filepath.Rel(absApp, root.Dir)
		if err != nil {
			continue
		}
		var files []string
		for _, path := range append([]string{root.ImportPath}, root.Deps...) {
			if p := pkgs[path]; p != nil {
				files = append(files, mayChange(p)...)
			}
		}
		out[filepath.ToSlash(rel)] = files
	}
	return out, nil
}

// mayChange lists the files of p that can change without go.mod changing:
// none for the standard library and for modules in the module cache.
func mayChange(p *listed) []string {
	if p.Standard || p.Dir == "" {
		return nil
	}
	var files []string
	if m := p.Module; m != nil {
		if !m.Main && (m.Replace == nil || !localPath(m.Replace.Path)) {
			return nil
		}
		if m.Main && m.GoMod != "" {
			files = append(files, m.GoMod)
		}
	}
	for _, f := range append(p.GoFiles, p.EmbedFiles...) {
		files = append(files, filepath.Join(p.Dir, f))
	}
	return files
}

// localPath reports whether a replacement is a directory (go.mod's
// "replace x => ../sdk") rather than another module version.
func localPath(p string) bool {
	return filepath.IsAbs(p) || p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}
