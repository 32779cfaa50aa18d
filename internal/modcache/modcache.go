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
//
// Beside the modules it keeps records: small files a builder writes about
// a source (what its last build read, by which it computes the source's
// key), under keys of the builder's, written and pruned the same way. A
// lost record is only a key the builder computes more conservatively.
package modcache

import (
	"bytes"
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

// Suffixes of the cache's files: modules and records.
const (
	moduleSuffix = ".wasm"
	recordSuffix = ".record"
)

func (c *Cache) path(key string) (string, error) { return c.file(key, moduleSuffix) }

func (c *Cache) file(key, suffix string) (string, error) {
	if !validKey.MatchString(key) {
		return "", fmt.Errorf("module cache: key %q is not 16 to 128 lower-case hex digits", key)
	}
	return filepath.Join(c.dir, key+suffix), nil
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

// Record returns the record kept under key, and whether there was one.
func (c *Cache) Record(key string) ([]byte, bool, error) {
	p, err := c.file(key, recordSuffix)
	if err != nil {
		return nil, false, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("module cache: %w", err)
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // used: kept for another MaxAge
	return b, true, nil
}

// PutRecord keeps data under key, replacing the record there atomically:
// a concurrent Record reads the old one or the new one whole.
func (c *Cache) PutRecord(key string, data []byte) error {
	p, err := c.file(key, recordSuffix)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("module cache: %w", err)
	}
	if err := copyAtomic(bytes.NewReader(data), p); err != nil {
		return fmt.Errorf("module cache: keep record %s: %w", key, err)
	}
	return nil
}

// DeleteRecord removes the record kept under key, if any.
func (c *Cache) DeleteRecord(key string) error {
	p, err := c.file(key, recordSuffix)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("module cache: %w", err)
	}
	return nil
}

// prune removes the entries and records last used before cutoff. Failures are left
// for the next Put: another process may be pruning too.
func (c *Cache) prune(cutoff time.Time) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		key, ok := strings.CutSuffix(e.Name(), moduleSuffix)
		if !ok {
			key, ok = strings.CutSuffix(e.Name(), recordSuffix)
		}
		if !ok || !validKey.MatchString(key) {
			continue // neither an entry nor a record: leave it
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
