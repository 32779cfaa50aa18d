package guestbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	assdk "github.com/wasmendpoints/endpoints/guest-sdk/assemblyscript"
	rustsdk "github.com/wasmendpoints/endpoints/guest-sdk/rust"
	"github.com/wasmendpoints/endpoints/internal/modcache"
)

// moduleCache keeps the AssemblyScript and Rust modules Build makes, by
// cacheKey: their compilers take seconds per route, and `endpoints dev`
// builds every route at each start. Go has its own build cache; C and WAT
// build in milliseconds.
var moduleCache = modcache.Default()

// cached reports whether Build caches the modules of lang.
func cached(lang Language) bool { return lang == LangAS || lang == LangRust }

// appHashes are the hashes of an app's sources by language (appSources),
// computed once per Build.
type appHashes map[Language]string

// cacheKey is the key of the module source s of the app builds: a hash of
// everything the module is made from. For both languages: the source's
// path, and what the source may read. For a route whose last build left
// a record (reads), that is what the compiler read then: files by
// content or absence, directories by listing, variables by value;
// otherwise the path and content of every source file of its language in
// the app (a route may include any of them: `#[path]` modules, relative
// imports), so a change of any one of them builds every such route anew.
// Then its toolchain (toolchainHash): for AssemblyScript the compiler's
// package.json (its version), the SDK's files (the app's installed copy,
// else the one this program ships), the flags and the app's
// asconfig.json; for Rust the compiler (`rustc -vV`), its target, the
// flags and the SDK's files.
func cacheKey(ctx context.Context, appDir string, s Source, hashes appHashes) (string, error) {
	abs, err := filepath.Abs(filepath.Join(appDir, filepath.FromSlash(s.Path)))
	if err != nil {
		return "", err
	}
	if r, ok := loadReads(s.Lang, abs); ok {
		key, _, err := readsKey(ctx, appDir, s.Lang, abs, r, nil)
		return key, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "endpoints module v1\x00%s\x00%s\x00", s.Lang, abs)
	apps, ok := hashes[s.Lang]
	if !ok {
		if apps, err = appSources(appDir, s.Lang); err != nil {
			return "", err
		}
		hashes[s.Lang] = apps
	}
	fmt.Fprintf(h, "%s\x00", apps)
	if err := toolchainHash(ctx, appDir, s.Lang, h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readsKey is cacheKey for the route at abs in lang whose build read r,
// and hashReads' report of whether what r names held the same for all of
// the build that began as start found (nil: not asked, true).
func readsKey(ctx context.Context, appDir string, lang Language, abs string, r reads, start *before) (string, bool, error) {
	h := sha256.New()
	// "reads" where the conservative key has a hash of 64 hex digits: the
	// two kinds of key never meet.
	fmt.Fprintf(h, "endpoints module v1\x00%s\x00%s\x00reads\x00", lang, abs)
	unchanged, err := hashReads(h, r, start)
	if err != nil {
		return "", false, err
	}
	if err := toolchainHash(ctx, appDir, lang, h); err != nil {
		return "", false, err
	}
	return hex.EncodeToString(h.Sum(nil)), unchanged, nil
}

// toolchainHash writes what a module of lang is made from besides the
// app's files to h (see cacheKey).
func toolchainHash(ctx context.Context, appDir string, lang Language, h hash.Hash) error {
	switch lang {
	case LangAS:
		asc, err := findASC(ctx, appDir)
		if err != nil {
			return err
		}
		real, err := filepath.EvalSymlinks(asc)
		if err != nil {
			return err
		}
		// asc is <package>/bin/asc.js: its package.json names the version.
		pkg, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "package.json"))
		if err != nil {
			return fmt.Errorf("the AssemblyScript compiler's version: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", real, len(pkg))
		h.Write(pkg)
		fmt.Fprintf(h, "%s\x00", strings.Join(ascFlags, " "))
		if dir := sdkDir(appDir); dir != "" {
			err = hashFS(h, os.DirFS(dir), func(p string) bool { return strings.HasSuffix(p, ".ts") || p == "package.json" })
		} else {
			err = hashFS(h, assdk.Files, nil)
		}
		if err != nil {
			return err
		}
		if b, err := os.ReadFile(filepath.Join(appDir, "asconfig.json")); err == nil {
			h.Write(b)
		}
		return nil
	case LangRust:
		tc, err := findRust(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", tc.rustc, tc.version, tc.target, strings.Join(rustFlags, " "))
		return hashFS(h, rustsdk.Files, nil)
	}
	return fmt.Errorf("modules of %s are not cached", lang)
}

// appSources hashes the path and content of every source file of lang in
// the app (appSourceFiles).
func appSources(appDir string, lang Language) (string, error) {
	files, err := appSourceFiles(appDir, lang)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("hash the app's %s sources: %w", lang, err)
		}
		rel, _ := filepath.Rel(appDir, f)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// appSourceFiles lists every source file of lang (.ts, .rs) in the app,
// outside node_modules, Rust's target and hidden directories, sorted:
// the files a route without a record may read.
func appSourceFiles(appDir string, lang Language) ([]string, error) {
	ext := map[Language]string{LangAS: ".ts", LangRust: ".rs"}[lang]
	var files []string
	err := filepath.WalkDir(appDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != appDir && (d.Name() == "node_modules" || d.Name() == "target" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ext) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the app's %s sources: %w", lang, err)
	}
	slices.Sort(files)
	return files, nil
}

// hashFS writes the path, size and content of every file of fsys that keep
// accepts (all when nil) to h, in lexical order.
func hashFS(h hash.Hash, fsys fs.FS, keep func(path string) bool) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || keep != nil && !keep(p) {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
}
