// Package appload reads an app directory as a load of the host sees it:
// the route modules it holds ([Dir.Modules]) and each file's bytes with
// their hash ([Dir.Read]), by which a reload tells a changed file from one
// it serves already.
//
// What a load makes of the files (modules, routes, settings, the version)
// is package versionload's.
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
// lacks has none, nor does one removed while it is listed.
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
				// A directory gone since its parent was read has none:
				// `endpoints dev` removes the one it built a bundle in
				// right after renaming the bundle out of it, while the
				// reload the rename started may be listing it.
				if errors.Is(err, fs.ErrNotExist) {
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

// Version is one file of the app as a load made it: the hash of its
// bytes, and what the load made of them (nil when the file is absent, or
// failed at the first load).
type Version[T any] struct {
	Hash  Hash
	Value *T
}

// Next reads file for a load beside prev, its version at the previous
// load (nil at the first): prev's again when its bytes did not change;
// else what open makes of the new bytes (nothing, without calling open,
// when the file is absent), noted to rep as added, changed or removed
// when there was a previous load. When open fails, rep gets the problem,
// fresh, and prev's version is kept: a broken new version never replaces
// a working one. A file that cannot be read is a problem too, not fresh
// (the read says why each time), and leaves no value. changed reports
// that the version is not prev's.
//
//	cfg, changed := appload.Next(dir, "server/routes.config.json", prev, parse, report)
func Next[T any](d Dir, file string, prev *Version[T], open func(data []byte) (*T, error), rep Reporter) (next Version[T], changed bool) {
	data, hash, err := d.Read(file)
	next.Hash = hash
	changed = prev == nil || hash != prev.Hash
	switch {
	case err != nil:
		rep.Problem(err, false)
	case !changed:
		next.Value = prev.Value
	default:
		if data != nil {
			next.Value, err = open(data)
		}
		if err != nil {
			rep.Problem(err, true)
			if prev != nil {
				return *prev, false
			}
			next.Value = nil
		} else if prev != nil {
			rep.Note(file, data != nil, prev.Value != nil)
		}
	}
	return next, changed
}
