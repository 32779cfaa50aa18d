// Package modcache keeps built modules by the hash of everything they were
// built from (a key the builder computes), so that a build whose inputs did
// not change copies the module it made before instead of compiling again:
// `endpoints dev` and `endpoints build` restart without recompiling the
// AssemblyScript and Rust routes nobody touched.
//
// Entries are files named by their key; they are written to a temporary
// file and renamed into place, so concurrent builders (several processes
// included) never see half a module. An entry not used for MaxAge is
// removed by the next Put; the directory is a cache the user may empty at
// any time.
package modcache

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// MaxAge is how long an entry that no Get or Put used stays in the cache.
const MaxAge = 30 * 24 * time.Hour

// Cache is a directory of built modules.
type Cache struct {
	dir string
}

// Open returns the cache in dir, which is created on the first Put.
func Open(dir string) *Cache { return &Cache{dir: dir} }

// Default is the cache of the user's cache directory,
// <os.UserCacheDir>/endpoints/modules (the system's temporary directory
// when the user has none).
func Default() *Cache {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return Open(filepath.Join(base, "endpoints", "modules"))
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// validKey is what a key looks like: hex digits, as of a hash.
var validKey = regexp.MustCompile(`^[0-9a-f]{16,128}$`)

func (c *Cache) path(key string) (string, error) {
	if !validKey.MatchString(key) {
		return "", fmt.Errorf("module cache: key %q is not 16 to 128 lower-case hex digits", key)
	}
	return filepath.Join(c.dir, key+".wasm"), nil
}

// Get copies the module cached under key to out, replacing out
// atomically, and reports whether there was one.
func (c *Cache) Get(key, out string) (bool, error) {
	p, err := c.path(key)
	if err != nil {
		return false, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("module cache: %w", err)
	}
	defer f.Close()
	if err := copyAtomic(f, out); err != nil {
		return false, fmt.Errorf("module cache: copy %s to %s: %w", p, out, err)
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // used: kept for another MaxAge
	return true, nil
}

// Put caches the module built at built under key.
func (c *Cache) Put(key, built string) error {
	p, err := c.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("module cache: %w", err)
	}
	f, err := os.Open(built)
	if err != nil {
		return fmt.Errorf("module cache: %w", err)
	}
	defer f.Close()
	if err := copyAtomic(f, p); err != nil {
		return fmt.Errorf("module cache: keep %s: %w", built, err)
	}
	c.prune(time.Now().Add(-MaxAge))
	return nil
}

// prune removes the entries last used before cutoff. Failures are left
// for the next Put: another process may be pruning too.
func (c *Cache) prune(cutoff time.Time) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".wasm") || !validKey.MatchString(strings.TrimSuffix(e.Name(), ".wasm")) {
			continue // not an entry: leave it
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
}

// copyAtomic writes r to a temporary file beside dst and renames it to
// dst.
func copyAtomic(r io.Reader, dst string) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
