package guestbuild

import (
	"context"
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

// reads is what the last successful build of a Rust or AssemblyScript
// route read, as its compiler listed it (rustc's dep-info, the files
// asc's driver tried): the route's key is made of exactly these files'
// contents (or absence), directories' listings and variables' values
// (cacheKey), and a saved file rebuilds the routes whose record lists it
// (AffectedSince). It is sound as cargo's fingerprints are: a file can
// only enter a crate through a change to a file the crate already reads
// (a `mod`, a `#[path]`, an `include_str!`), which changes the key and
// builds the route again; asc's record also lists the files it looked for
// and did not find (an import tried as x.ts then x/index.ts, a package in
// each node_modules), so that one appearing there changes the key too.
//
// The records live in the module cache beside the modules they key
// (modcache's records, one per source by its absolute path), not under
// the app: they are only worth what the cache's modules are, the cache is
// per user and outside every watched tree, and emptying it loses both
// together. A route without one (first build, cache emptied, last build
// failed) keeps the conservative key of every source file of its
// language in the app.
type reads struct {
	// Files are absolute and clean, sorted: the crate root, its modules,
	// the files it includes; for asc also the files it tried and did not
	// find.
	Files []string `json:"files"`
	// Dirs are the directories asc listed (for --lib), absolute, sorted.
	Dirs []string `json:"dirs,omitempty"`
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

// keepBuilt records what the route src of lang read (r) when it was
// built to out, in a build that began as start found (beginBuild), and
// caches the module by that (cacheKey): the next build of the route
// copies it while what it read stays the same. The module is not cached
// when a file it read may have changed during the build (hashReads): it
// may have been built from other content than its key holds. Failures to
// record or cache only cost the next build a compilation.
func keepBuilt(ctx context.Context, appDir string, lang Language, src, out string, r reads, start *before) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return
	}
	if !slices.Contains(r.Files, abs) || saveReads(lang, abs, r) != nil {
		// Not the route the compiler names (a symbolic link in the way),
		// or not kept: no record the key can trust.
		forgetReads(lang, abs)
		return
	}
	if key, unchanged, err := readsKey(ctx, appDir, lang, abs, r, start); err == nil && unchanged {
		_ = moduleCache.Put(key, out)
	}
}

// forgetBuilt forgets what the route src of lang read: its build failed,
// and what the failed source reads may be other files; until it builds,
// its key is the conservative one.
func forgetBuilt(lang Language, src string) {
	if abs, err := filepath.Abs(src); err == nil {
		forgetReads(lang, abs)
	}
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

// forgetReads removes the record of the source at abs.
func forgetReads(lang Language, abs string) {
	_ = moduleCache.DeleteRecord(recordKey(lang, abs)) // a record left is one a later success replaces
}

// concerns reports whether a change of the file at abs may change the
// crate r describes: r reads it, or it is the other file a `mod` of r may
// have found (x/mod.rs beside x.rs, or x.rs beside x/mod.rs: with both
// there, rustc refuses the `mod`), or a source file asc would find in a
// directory it listed (--lib: one made there is compiled with the route).
func (r reads) concerns(abs string) bool {
	if isASCSource(filepath.Base(abs)) && slices.Contains(r.Dirs, filepath.Dir(abs)) {
		return true
	}
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
// content (or its absence), whether its modAlternative exists, each
// directory's listing and each variable's value. When start is not nil
// (r is what the build that start began read), hashReads also reports
// whether every file and directory held, for the whole build, what it
// holds now (before.trusts): one that changed during the build may have
// been read with other content than the module is then keyed by, and the
// module must not be cached. So with a listed directory changed (a file
// came or went after asc listed it), a `mod`'s other file made (after
// rustc looked) and a file the build began with that is gone.
func hashReads(h hash.Hash, r reads, start *before) (bool, error) {
	unchanged := true
	for _, f := range r.Files {
		sum, mod, err := hashFile(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "%s\x00absent\x00", f)
			if start != nil {
				if _, was := start.files[f]; was {
					unchanged = false // removed during the build, maybe after it was read
				}
			}
		case err != nil:
			return false, fmt.Errorf("hash %s, which the route read when last built: %w", f, err)
		default:
			fmt.Fprintf(h, "%s\x00%x\x00", f, sum)
			if start != nil {
				then, was := start.files[f]
				if !start.trusts(mod, was && then == string(sum)) {
					unchanged = false
				}
			}
		}
		if alt := modAlternative(f); alt != "" {
			info, err := os.Stat(alt)
			fmt.Fprintf(h, "%s\x00%v\x00", alt, err == nil)
			if err == nil && start != nil {
				if _, was := start.files[alt]; !start.trusts(info.ModTime(), was) {
					unchanged = false
				}
			}
		}
	}
	for _, dir := range r.Dirs {
		names := ascSources(dir)
		listing := strings.Join(names, "\x00")
		fmt.Fprintf(h, "%s/\x00%d\x00%s\x00", dir, len(names), listing)
		if info, err := os.Stat(dir); err == nil && start != nil {
			if then, was := start.dirs[dir]; !start.trusts(info.ModTime(), was && then == listing) {
				unchanged = false
			}
		}
	}
	for _, name := range r.Env {
		v, ok := os.LookupEnv(name)
		fmt.Fprintf(h, "$%s\x00%v\x00%d\x00%s\x00", name, ok, len(v), v)
	}
	return unchanged, nil
}

// before is what the files and directories a build may read held when it
// began (beginBuild): hashReads takes a file the clock dates about the
// build's start as unchanged only if it held the same then.
type before struct {
	// at is when the build began, read before anything below was.
	at time.Time
	// files are the SHA-256 of the files that existed at the start among
	// those the build was expected to read, by absolute path; a file
	// absent or unreadable then is not there.
	files map[string]string
	// dirs are the listings (ascSources, joined by NULs) of the
	// directories the build was expected to list, by absolute path.
	dirs map[string]string
}

// beginBuild takes, just before the compiler of the route src of lang in
// appDir starts, what the route may read (before): the files and
// directories its last build's record lists and the other files of their
// `mod`s, a few files; without a record, the route and every source file
// of its language in the app, which its conservative key hashes anyway
// (cacheKey). A file it cannot read is left out: hashReads then trusts
// only its time.
func beginBuild(appDir string, lang Language, src string) *before {
	at := time.Now()
	abs, err := filepath.Abs(src)
	if err != nil {
		return reads{}.snapshot(at)
	}
	r, ok := loadReads(lang, abs)
	if !ok {
		r = reads{Files: []string{abs}}
		if app, err := filepath.Abs(appDir); err == nil {
			files, _ := appSourceFiles(app, lang) // those listed before an error
			r.Files = append(r.Files, files...)
		}
	}
	return r.snapshot(at)
}

// snapshot is what r's files (and their modAlternatives) and directories
// hold now, for a build that began at at.
func (r reads) snapshot(at time.Time) *before {
	b := &before{at: at, files: map[string]string{}, dirs: map[string]string{}}
	for _, f := range r.Files {
		for _, p := range []string{f, modAlternative(f)} {
			if _, done := b.files[p]; p == "" || done {
				continue
			}
			if sum, _, err := hashFile(p); err == nil {
				b.files[p] = string(sum)
			}
		}
	}
	for _, dir := range r.Dirs {
		b.dirs[dir] = strings.Join(ascSources(dir), "\x00")
	}
	return b
}

// trusts reports whether a file or directory the file system dates mod
// after the build held what it holds now for all of the build; same is
// whether it held that at the start (b). Dated after the start, it was
// written during the build. Dated more than stampSlack before, its last
// write came before the start. Dated in between, the time cannot tell a
// write just before the start (the usual save, then build) from one just
// after, which the file system may date up to stampSlack early; the
// content can: the same at the start as now is what the compiler read
// (but for a write and its undoing both within one clock tick, which no
// time or content read after the fact can see).
func (b *before) trusts(mod time.Time, same bool) bool {
	switch {
	case mod.After(b.at):
		return false
	case !mod.After(b.at.Add(-stampSlack(mod))):
		return true
	}
	return same
}

// stampSlack is how much earlier than the write the file system may date
// a file written at mod. Linux dates writes with its coarse clock, the
// time at the last timer tick, up to one tick (1/HZ: 4 ms at the usual
// HZ=250, 10 ms at HZ=100) behind the clock time.Now reads; Windows dates
// them with its 15.6 ms tick: 20 ms covers both. File systems that keep
// whole seconds (ext4 with 128-byte inodes, HFS+) or even ones (FAT)
// truncate instead: a time with no fraction of a second is taken for one
// of theirs, and given 2 s. (A network file system dated by another
// machine's clock is beyond any slack.)
func stampSlack(mod time.Time) time.Duration {
	if mod.Nanosecond() == 0 {
		return 2 * time.Second
	}
	return 20 * time.Millisecond
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

// ascSources lists the files of dir asc's listFiles returns (the .ts
// files but .d.ts), sorted; none when dir cannot be listed, which asc
// takes as none too.
func ascSources(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); isASCSource(n) {
			names = append(names, n)
		}
	}
	return names
}

// isASCSource reports whether asc's listFiles takes the file name: a .ts
// file but a .d.ts.
func isASCSource(name string) bool {
	return strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".d.ts")
}
