package auth

import (
	"context"
	"io/fs"
	"os"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keyFileCheck is how often at most a verification looks whether the file
// its keys come from (a key set, an HS256 secret) changed: one stat a
// second per verifier, read again only when the file's identity, size,
// mode or modification time changed. A deployment that rotates a mounted
// file (Kubernetes swaps a Secret's files in place; `endpoints keygen
// --add` rewrites a key set) is seen within about a second of serving,
// without a restart.
const keyFileCheck = time.Second

// fileStamp is what a stat says of a file: enough to tell that it was
// replaced or rewritten without reading it.
type fileStamp struct {
	info fs.FileInfo // nil when the stat failed
	err  string      // why it failed
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{err: err.Error()}
	}
	return fileStamp{info: st}
}

// same reports whether a and b stat the same, unchanged file (or failed
// alike).
func (a fileStamp) same(b fileStamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil && a.err == b.err
	}
	return os.SameFile(a.info, b.info) && a.info.Size() == b.info.Size() &&
		a.info.Mode() == b.info.Mode() && a.info.ModTime().Equal(b.info.ModTime())
}

// watchedFile returns the keys of the file at path (name in messages),
// which read reads and checks, read again while the verifier serves when
// the file changed (keyFileCheck) or a token names a kid they lack
// (unknownKidRefetch). The first read's error is returned; a later one is
// logged as a warning naming member and the file, and the last good keys
// keep serving.
func watchedFile(env Env, member, path, name string, read func() ([]jose.JSONWebKey, error)) (*keySource, error) {
	// Stat before reading: a change between the two is then read again
	// at the next check, never missed.
	seen := stampOf(path)
	keys, err := read()
	if err != nil {
		return nil, err
	}
	r := &loadedKeys{file: name, member: member, env: env, loaded: make(chan struct{}), set: keys}
	close(r.loaded)
	r.lastTry = env.Now()
	r.lastFull = r.lastTry
	r.nextCheck.Store(r.lastTry.Add(keyFileCheck).UnixNano())
	r.ctx, r.cancel = context.WithCancel(context.Background())
	// One load runs at a time (loadedKeys.inflight), so seen needs no lock.
	r.load = func(_ context.Context, force bool) ([]jose.JSONWebKey, bool, error) {
		now := stampOf(path)
		if !force && now.same(seen) {
			return nil, true, nil
		}
		// A file that changed into something bad is reported once, not at
		// every check, until it changes again (or a token names a kid the
		// keys lack).
		seen = now
		keys, err := read()
		if err != nil {
			env.Logger.Warn("reading the key file again failed; the last good keys keep serving", "member", member, "file", name, "error", err)
			return nil, false, err
		}
		return keys, false, nil
	}
	return &keySource{loaded: r}, nil
}
