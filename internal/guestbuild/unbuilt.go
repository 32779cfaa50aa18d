package guestbuild

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// foreignSources names, by extension, the source languages guestbuild does
// not compile that people write WebAssembly modules in.
var foreignSources = map[string]string{
	".cpp": "C++", ".cc": "C++", ".cxx": "C++",
	".zig": "Zig", ".swift": "Swift", ".kt": "Kotlin", ".nim": "Nim",
	".odin": "Odin", ".grain": "Grain", ".js": "JavaScript", ".mjs": "JavaScript",
	".py": "Python", ".cs": "C#", ".d": "D", ".hs": "Haskell",
}

// Foreign is a source file beside the modules that guestbuild does not
// compile: the app's build command must.
type Foreign struct {
	// Path is the file, relative to the app, with forward slashes.
	Path string
	// Lang names its language: "C++", "Zig"...
	Lang string
	// Module is the module it would build, relative to the app.
	Module string
}

// Unbuilt lists, sorted by path, the files under the route directories
// (RouteDirs) and the runtime declaration's directory whose extension says
// they are sources of a language guestbuild does not compile, so that
// `endpoints build` can say why it leaves them alone rather than skip them
// silently.
func Unbuilt(appDir string) ([]Foreign, error) {
	var out []Foreign
	roots := append([]string{filepathDir(RuntimeSourceBase)}, RouteDirs...)
	for _, root := range roots {
		dir := filepath.Join(appDir, filepath.FromSlash(root))
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == dir {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() {
				if path != dir && root == filepathDir(RuntimeSourceBase) {
					return filepath.SkipDir // only the runtime declaration lives there
				}
				return nil
			}
			lang, ok := foreignSources[filepath.Ext(path)]
			if !ok {
				return nil
			}
			rel, err := filepath.Rel(appDir, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			out = append(out, Foreign{Path: rel, Lang: lang, Module: strings.TrimSuffix(rel, filepath.Ext(rel)) + ".wasm"})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b Foreign) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// filepathDir is the directory of a slash-separated path.
func filepathDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}
