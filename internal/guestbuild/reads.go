package guestbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/internal/depinfo"
)

// reads is what the last successful build of a Rust route read, as rustc
// listed it (its dep-info): the route's key is made of exactly these
// files' contents and variables' values (cacheKey), and a saved file
// rebuilds the routes whose record lists it (AffectedSince). It is sound
// as cargo's fingerprints are: a file can only enter a crate through a
// change to a file the crate already reads (a `mod`, a `#[path]`, an
// `include_str!`), which changes the key and builds the route again.
//
// The records live in the module cache beside the modules they key
// (modcache's records, one per source by its absolute path), not under
// the app: they are only worth what the cache's modules are, the cache is
// per user and outside every watched tree, and emptying it loses both
// together. A route without one (first build, cache emptied, last build
// failed) keeps the conservative key of every .rs file of the app.
type reads struct {
	// Files are absolute and clean, sorted: the crate root, its modules,
	// the files it includes.
	Files []string `json:"files"`
	// Env are the names of the environment variables `env!` and
	// `option_env!` read, sorted.
	Env []string `json:"env,omitempty"`
}

// readsOf turns rustc's dep-info (paths relative to dir, rustc's working
// directory, unless absolute) into a record.
func readsOf(info depinfo.Info, dir string) reads {
	r := reads{Env: info.Env}
	for _, f := range info.Files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		r.Files = append(r.Files, filepath.Clean(f))
	}
	slices.Sort(r.Files)
	r.Files = slices.Compact(r.Files)
	return r
}

// recordKey is the module cache's key of the record of the source at abs
// (an absolute path) in lang.
func recordKey(lang Language, abs string) string {
	sum := sha256.Sum256([]byte("endpoints reads v1\x00" + string(lang) + "\x00" + abs))
	return hex.EncodeToString(sum[:])
}

// loadReads returns the record of the source at abs, if there is a valid
// one: a record that cannot be read is no record.
func loadReads(lang Language, abs string) (reads, bool) {
	b, ok, err := moduleCache.Record(recordKey(lang, abs))
	if err != nil || !ok {
		return reads{}, false
	}
	var r reads
	if json.Unmarshal(b, &r) != nil || !slices.Contains(r.Files, abs) ||
		slices.ContainsFunc(r.Files, func(f string) bool { return !filepath.IsAbs(f) }) {
		return reads{}, false
	}
	return r, true
}

// saveReads keeps r as the record of the source at abs.
func saveReads(lang Language, abs string, r reads) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return moduleCache.PutRecord(recordKey(lang, abs), b)
}

// forgetReads removes the record of the source at abs: its last build
// failed, and what the failed source reads may be other files.
func forgetReads(lang Language, abs string) {
	_ = moduleCache.DeleteRecord(recordKey(lang, abs)) // a record left is one a later success replaces
}

// concerns reports whether a change of the file at abs may change the
// crate r describes: r reads it, or it is the other file a `mod` of r may
// have found (x/mod.rs beside x.rs, or x.rs beside x/mod.rs: with both
// there, rustc refuses the `mod`).
func (r reads) concerns(abs string) bool {
	return slices.ContainsFunc(r.Files, func(f string) bool { return f == abs || modAlternative(f) == abs })
}

// modAlternative is the file a `mod` that found the .rs file f would have
// found instead: x/mod.rs for x.rs, x.rs for x/mod.rs ("" for a file of
// another kind).
func modAlternative(f string) string {
	if filepath.Base(f) == "mod.rs" {
		return filepath.Dir(f) + ".rs"
	}
	if stem, ok := strings.CutSuffix(f, ".rs"); ok {
		return filepath.Join(stem, "mod.rs")
	}
	return ""
}

// hashReads writes what r names to h: each file with the hash of its
// content (or its absence), whether its modAlternative exists, and each
// variable's value. When notAfter is not zero, hashReads also reports
// whether every file is older than notAfter: a file changed since
// (during the build that made r) may hold other content than the module
// was built from, which must then not be cached under this content.
func hashReads(h hash.Hash, r reads, notAfter time.Time) (bool, error) {
	unchanged := true
	for _, f := range r.Files {
		sum, mod, err := hashFile(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "%s\x00absent\x00", f)
		case err != nil:
			return false, fmt.Errorf("hash %s, which the route read when last built: %w", f, err)
		default:
			fmt.Fprintf(h, "%s\x00%x\x00", f, sum)
			if !notAfter.IsZero() && mod.After(notAfter) {
				unchanged = false
			}
		}
		if alt := modAlternative(f); alt != "" {
			_, err := os.Stat(alt)
			fmt.Fprintf(h, "%s\x00%v\x00", alt, err == nil)
		}
	}
	for _, name := range r.Env {
		v, ok := os.LookupEnv(name)
		fmt.Fprintf(h, "$%s\x00%v\x00%d\x00%s\x00", name, ok, len(v), v)
	}
	return unchanged, nil
}

// hashFile returns the SHA-256 of the file at p and its modification time
// after it was read: a write that raced the read shows in the time.
func hashFile(p string) ([]byte, time.Time, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, time.Time{}, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	return h.Sum(nil), info.ModTime(), nil
}
