// Package appload reads an app directory as a load of the host sees it:
// the route modules it holds ([Dir.Modules]) and each file's bytes with
// their hash ([Dir.Read]), by which a reload tells a changed file from one
// it serves already.
//
// What a load makes of the files (modules, routes, settings, the table)
// stays with the host (host/reload.go).
package appload

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/appfile"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// Hash is the SHA-256 of a file's bytes; the zero Hash is a missing
// file's.
type Hash = [sha256.Size]byte

// Reporter is what a load tells of what it finds in the app's files: the
// host's reload report.
type Reporter interface {
	// Problem records a problem of the version being loaded; fresh: not
	// reported already, for the same bytes, by an earlier load.
	Problem(err error, fresh bool)
	// Note records file as added (now and not before), changed (both) or
	// removed (before and not now).
	Note(file string, now, before bool)
}

// Dir is an app directory.
type Dir string

// Read reads the file at rel (relative to the app, forward slashes) and
// hashes it; a missing file gives nil data, the zero Hash and no error. It
// reads regular files only, within appfile.Limit (package appfile);
// errors name rel.
func (d Dir) Read(rel string) ([]byte, Hash, error) {
	data, err := appfile.Read(filepath.Join(string(d), filepath.FromSlash(rel)), rel)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Hash{}, nil
	}
	if err != nil {
		return nil, Hash{}, err
	}
	return data, sha256.Sum256(data), nil
}

// Modules lists the route modules of the app: the regular .wasm files
// under abi.BundleDir and the route directories (routefile.Roots),
// relative to the app with forward slashes, sorted. A directory the app
// lacks has none.
func (d Dir) Modules() ([]string, error) {
	appDir := string(d)
	var files []string
	dirs := []string{abi.BundleDir}
	for _, root := range routefile.Roots {
		dirs = append(dirs, root.Dir)
	}
	for _, root := range dirs {
		dir := filepath.Join(appDir, filepath.FromSlash(root))
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == dir {
					return filepath.SkipDir
				}
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), routefile.Extension) {
				rel, err := filepath.Rel(appDir, path)
				if err != nil {
					return err
				}
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(files)
	return files, nil
}
