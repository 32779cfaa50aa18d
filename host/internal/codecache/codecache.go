// Package codecache authenticates the compilation cache directory: what
// the engine reads back from it is code the host runs, so every entry is
// bound, by an HMAC-SHA256 under a per-host key kept outside the
// directory, to the exact bytes it came from. An entry that does not
// verify (replaced, patched, restored from another machine, forged with a
// recomputed checksum) is never used: an instrumented module is rewritten
// again, a native entry of wazero's is deleted before wazero can read it,
// and the module compiles from scratch.
//
// The directory holds:
//
//	instrumented-v5/<sha256 of the module>.wasm  MAC ‖ the instrumented module (v3: the dispatch-loop rewrite; v4: data segments merged; v5: not those of an imported memory or past the memory, the zeros bounded)
//	wazero-<version>-<arch>-<os>/<key>           wazero's native code (its own format)
//	sealed-v1/wazero-.../<key>                   the MAC of that entry, and of its file identity
//	compiled-v1/<sha256>                         empty marks: a hint of what is compiled, no code
//
// wazero reads its entries itself, by a key derived from the module and
// the CPU, with no hook to verify them. So [Open] checks every native
// entry before the engine makes its runtime, deleting those without a
// valid seal, and [Dir.Seal], called after each compilation, seals the
// entries wazero wrote. An entry whose file identity (inode, size,
// modification and change times) is the one sealed is not read again;
// any change to the file changes its change time, and then its content is
// checked against its MAC.
//
// # Notes
//
//   - The directory must belong to the host's user and be writable by no
//     one else (nor its subdirectories): [Open] refuses it otherwise. The
//     MACs protect against entries changed while no host runs (a cache
//     restored from CI, a shared volume, a copied home directory); a
//     process of the same user that writes into the directory while a
//     host runs can do anything that user can, and is outside this model.
//   - The key is a 32-byte file readable only by its owner (see
//     [LoadKey]); a cache copied to another machine, or kept after the key
//     changed, is recompiled, never trusted.
package codecache

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Names under the cache directory.
const (
	instrumentedDir = "instrumented-v5"
	sealedDir       = "sealed-v1"
	// wazeroPrefix starts the name of wazero's directories, one per
	// wazero version, architecture and system.
	wazeroPrefix = "wazero-"
)

// Dir is an opened cache directory. It is safe for concurrent use.
type Dir struct {
	path string
	key  []byte
	*known
}

// known is what the engines of a process know of one directory under one
// key, shared so that a process making many hosts (tests, reloads of the
// runtime) checks each entry once.
type known struct {
	// mu guards sealed: the native entries known to verify, by their
	// path under the directory, with the file identity they had then.
	mu     sync.Mutex
	sealed map[string]string
}

var (
	knownMu sync.Mutex
	knownBy = map[string]*known{} // by directory and key
)

func knownFor(dir string, key []byte) *known {
	sum := sha256.Sum256(key)
	id := dir + "\x00" + string(sum[:])
	knownMu.Lock()
	defer knownMu.Unlock()
	k := knownBy[id]
	if k == nil {
		k = &known{sealed: map[string]string{}}
		knownBy[id] = k
	}
	return k
}

// Open checks that dir may hold code (see the package notes), creating
// it (0700) when missing, and deletes the native entries of wazero's that
// do not verify under key. It returns an error, naming the directory and
// what to do, when the directory is unsafe or unusable.
func Open(dir string, key []byte) (*Dir, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("compilation cache key: %d bytes, want %d", len(key), KeySize)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("compilation cache %s: %w", abs, err)
	}
	if err := checkPrivate(abs); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := checkPrivate(filepath.Join(abs, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	d := &Dir{path: abs, key: key, known: knownFor(abs, key)}
	if err := d.scan(false); err != nil {
		return nil, err
	}
	return d, nil
}

// Path is the directory, absolute.
func (d *Dir) Path() string { return d.path }

// Seal records the native entries wazero wrote since the last scan, so
// that the next host trusts them; call it after each compilation with
// the compiler. An entry that changed since it was sealed and no longer
// verifies is deleted.
func (d *Dir) Seal() error { return d.scan(true) }

// scan checks every native entry: one sealed with its current identity
// passes, one whose content matches its seal is sealed again with its
// new identity, and any other is sealed when seal (it was just written
// by this process's wazero) or deleted otherwise.
func (d *Dir) scan(seal bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	subs, err := os.ReadDir(d.path)
	if err != nil {
		return err
	}
	var errs []error
	for _, sub := range subs {
		if !sub.IsDir() || !strings.HasPrefix(sub.Name(), wazeroPrefix) {
			continue
		}
		dir := filepath.Join(d.path, sub.Name())
		if err := checkPrivate(dir); err != nil {
			return err
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			name := sub.Name() + "/" + e.Name()
			if strings.HasSuffix(e.Name(), ".tmp") {
				continue // being written by wazero; never read
			}
			if err := d.check(name, seal); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// check verifies (or, with seal, seals) the native entry name, under
// d.mu.
func (d *Dir) check(name string, seal bool) error {
	p := filepath.Join(d.path, filepath.FromSlash(name))
	st, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if !st.Mode().IsRegular() {
		return d.drop(name)
	}
	id := identity(st)
	if known, ok := d.sealed[name]; ok && known == id {
		return nil // verified by this process, and unchanged if it can tell
	}
	recPath := filepath.Join(d.path, sealedDir, filepath.FromSlash(name))
	rec, _ := readSmall(recPath, 256)
	contentMAC, recID, ok := d.openRecord(name, rec)
	if ok && id != "" && recID == id {
		d.sealed[name] = id
		return nil
	}
	content, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	mac := d.entryMAC(name, content)
	switch {
	case ok && hmac.Equal(mac, contentMAC):
		// The same bytes, in another file (restored, copied by the
		// owner): seal its new identity.
	case seal && !sealedBefore(d.sealed, name):
		// Written by wazero since the last scan.
	default:
		return d.drop(name)
	}
	if err := d.writeRecord(recPath, name, mac, id); err != nil {
		return err
	}
	d.sealed[name] = id
	return nil
}

func sealedBefore(m map[string]string, name string) bool {
	_, ok := m[name]
	return ok
}

// drop deletes a native entry that did not verify, and its seal.
func (d *Dir) drop(name string) error {
	delete(d.sealed, name)
	err := os.Remove(filepath.Join(d.path, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	_ = os.Remove(filepath.Join(d.path, sealedDir, filepath.FromSlash(name)))
	if err != nil {
		return fmt.Errorf("compilation cache %s: deleting %s, which does not verify: %w", d.path, name, err)
	}
	return nil
}

// The seal of a native entry: the MAC of its content, its file identity
// and the MAC of both.
//
//	contentMAC (32) ‖ len(identity) (1) ‖ identity ‖ recordMAC (32)
func (d *Dir) writeRecord(path, name string, contentMAC []byte, id string) error {
	var b bytes.Buffer
	b.Write(contentMAC)
	b.WriteByte(byte(len(id)))
	b.WriteString(id)
	b.Write(d.recordMAC(name, contentMAC, id))
	return writeAtomic(path, b.Bytes())
}

// openRecord parses and authenticates a seal; ok is false for one that
// is missing, malformed or forged.
func (d *Dir) openRecord(name string, rec []byte) (contentMAC []byte, id string, ok bool) {
	if len(rec) < sha256.Size+1+sha256.Size {
		return nil, "", false
	}
	contentMAC, n := rec[:sha256.Size], int(rec[sha256.Size])
	rest := rec[sha256.Size+1:]
	if len(rest) != n+sha256.Size {
		return nil, "", false
	}
	id = string(rest[:n])
	if !hmac.Equal(rest[n:], d.recordMAC(name, contentMAC, id)) {
		return nil, "", false
	}
	return contentMAC, id, true
}

func (d *Dir) entryMAC(name string, content []byte) []byte {
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte("endpoints native entry v1\x00" + name + "\x00"))
	m.Write(content)
	return m.Sum(nil)
}

func (d *Dir) recordMAC(name string, contentMAC []byte, id string) []byte {
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte("endpoints native seal v1\x00" + name + "\x00"))
	m.Write(contentMAC)
	m.Write([]byte(id))
	return m.Sum(nil)
}

// Instrumented returns the instrumented form of the module whose SHA-256
// is sum, when the directory holds one that verifies.
func (d *Dir) Instrumented(sum [sha256.Size]byte) ([]byte, bool) {
	b, err := os.ReadFile(d.instrumentedPath(sum))
	if err != nil || len(b) < sha256.Size {
		return nil, false
	}
	mac, out := b[:sha256.Size], b[sha256.Size:]
	if !hmac.Equal(mac, d.instrumentedMAC(sum, out)) {
		return nil, false
	}
	return out, true
}

// StoreInstrumented keeps out, the instrumented form of the module whose
// SHA-256 is sum, with its MAC. A failure to write only costs the next
// start the rewriting; it is returned for the log.
func (d *Dir) StoreInstrumented(sum [sha256.Size]byte, out []byte) error {
	b := make([]byte, 0, sha256.Size+len(out))
	b = append(b, d.instrumentedMAC(sum, out)...)
	b = append(b, out...)
	return writeAtomic(d.instrumentedPath(sum), b)
}

func (d *Dir) instrumentedPath(sum [sha256.Size]byte) string {
	return filepath.Join(d.path, instrumentedDir, hex.EncodeToString(sum[:])+".wasm")
}

func (d *Dir) instrumentedMAC(sum [sha256.Size]byte, out []byte) []byte {
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte("endpoints instrumented v3\x00"))
	m.Write(sum[:])
	m.Write(out)
	return m.Sum(nil)
}

// writeAtomic writes a file whole under a temporary name, then renames
// it, creating its directory (0700) when missing.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}

// readSmall reads a file of at most limit bytes; a larger one is an
// error.
func readSmall(path string, limit int64) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > limit {
		return nil, fmt.Errorf("%s: not a seal", path)
	}
	return os.ReadFile(path)
}
