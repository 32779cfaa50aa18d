package codecache

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// KeySize is the size of the key, in bytes.
const KeySize = 32

// LoadKey reads the key in path, or makes one (32 random bytes, mode
// 0600, in a directory made 0700) when there is none. It refuses a key
// file that is not a regular file of KeySize bytes owned by this user and
// readable by no one else: whoever can read the key can forge entries.
//
// Two processes making the key at once agree on one: it is written
// under a temporary name and linked into place, which fails for the
// second, which then reads the first's.
func LoadKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("compilation cache key %s: %w", path, err)
	}
	key = make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".key-*")
	if err != nil {
		return nil, fmt.Errorf("compilation cache key %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(key)
	if err := errors.Join(werr, f.Chmod(0o600), f.Close()); err != nil {
		return nil, fmt.Errorf("compilation cache key %s: %w", path, err)
	}
	if err := os.Link(f.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("compilation cache key %s: %w", path, err)
	}
	return readKey(path)
}

func readKey(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := checkSecret(path, st); err != nil {
		return nil, err
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("compilation cache key %s: %d bytes, want %d; delete it and a new one is made (the cache is then recompiled)", path, len(key), KeySize)
	}
	return key, nil
}
