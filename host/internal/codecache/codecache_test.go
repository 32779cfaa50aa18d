package codecache

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wazeroEntry is where a native entry of wazero's sits in dir.
func wazeroEntry(dir string) string { return filepath.Join(dir, "wazero-v1-amd64-linux", "0123abcd") }

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func testKey(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

// TestNativeEntries: an entry wazero wrote and Seal sealed survives the
// next Open; one changed in any way, or sealed under another key, or never
// sealed, is deleted before wazero could read it.
func TestNativeEntries(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir, entry string) // after the seal, before the next Open
		key    []byte                                // of the next Open
		kept   bool
	}{
		{name: "unchanged", kept: true},
		{name: "copied back by its owner, the same bytes", kept: true, change: func(t *testing.T, _, entry string) {
			data, _ := os.ReadFile(entry)
			_ = os.Remove(entry)
			write(t, entry, data)
		}},
		{name: "patched", change: func(t *testing.T, _, entry string) {
			data, _ := os.ReadFile(entry)
			data[len(data)-1] ^= 0xFF
			write(t, entry, data)
		}},
		{name: "replaced, seal and all, by another entry's", change: func(t *testing.T, dir, entry string) {
			other := filepath.Join(filepath.Dir(entry), "other")
			write(t, other, []byte("another module's code"))
			d, err := Open(dir, testKey(1))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Seal(); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(other)
			write(t, entry, data)
			rel, _ := filepath.Rel(dir, other)
			seal, _ := os.ReadFile(filepath.Join(dir, sealedDir, rel))
			write(t, filepath.Join(dir, sealedDir, "wazero-v1-amd64-linux", "0123abcd"), seal)
		}},
		{name: "its seal forged", change: func(t *testing.T, dir, entry string) {
			write(t, entry, []byte("planted code"))
			seal := filepath.Join(dir, sealedDir, "wazero-v1-amd64-linux", "0123abcd")
			data, _ := os.ReadFile(seal)
			copy(data, make([]byte, 32))
			write(t, seal, data)
		}},
		{name: "sealed under another key", key: testKey(2)},
		{name: "never sealed", change: func(t *testing.T, dir, _ string) {
			_ = os.RemoveAll(filepath.Join(dir, sealedDir))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			entry := wazeroEntry(dir)
			d, err := Open(dir, testKey(1))
			if err != nil {
				t.Fatal(err)
			}
			write(t, entry, []byte("native code wazero wrote"))
			if err := d.Seal(); err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(t, dir, entry)
			}
			key := tt.key
			if key == nil {
				key = testKey(1)
			}
			forget() // the next Open is another process's
			if _, err := Open(dir, key); err != nil {
				t.Fatal(err)
			}
			if got := exists(entry); got != tt.kept {
				t.Errorf("entry kept = %v, want %v", got, tt.kept)
			}
		})
	}
}

// TestInstrumented: an instrumented module comes back only for the
// module it was stored for, unchanged, under the same key.
func TestInstrumented(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir, testKey(1))
	if err != nil {
		t.Fatal(err)
	}
	a, b := sha256.Sum256([]byte("module a")), sha256.Sum256([]byte("module b"))
	if err := d.StoreInstrumented(a, []byte("instrumented a")); err != nil {
		t.Fatal(err)
	}
	if err := d.StoreInstrumented(b, []byte("instrumented b")); err != nil {
		t.Fatal(err)
	}
	if got, ok := d.Instrumented(a); !ok || string(got) != "instrumented a" {
		t.Fatalf("Instrumented(a) = %q, %v; want instrumented a", got, ok)
	}
	other, _ := Open(dir, testKey(2))
	if _, ok := other.Instrumented(a); ok {
		t.Error("an entry verified under another key")
	}
	data, _ := os.ReadFile(d.instrumentedPath(b))
	write(t, d.instrumentedPath(a), data)
	if got, ok := d.Instrumented(a); ok {
		t.Errorf("b's entry in a's place verified: %q", got)
	}
}

// TestUnsafeDirectories: a directory, or one of its subdirectories, that
// others may write is refused, saying what to do.
func TestUnsafeDirectories(t *testing.T) {
	for _, sub := range []string{"", instrumentedDir, "wazero-v1-amd64-linux"} {
		t.Run("writable "+sub, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, sub)
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o770); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(dir, testKey(1)); err == nil || !strings.Contains(err.Error(), "chmod go-w") {
				t.Errorf("Open = %v, want a refusal that says chmod go-w", err)
			}
		})
	}
}

// TestLoadKey: the key is made once, private, and read back the same; one
// others may read is refused.
func TestLoadKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config", "cache.key")
	k1, err := LoadKey(p)
	if err != nil || len(k1) != KeySize {
		t.Fatalf("LoadKey = %x, %v; want %d bytes", k1, err, KeySize)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %s, want -rw-------", st.Mode().Perm())
	}
	if k2, err := LoadKey(p); err != nil || !bytes.Equal(k1, k2) {
		t.Errorf("LoadKey again = %x, %v; want the same key", k2, err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(p); err == nil || !strings.Contains(err.Error(), "readable or writable by others") {
		t.Errorf("LoadKey of a readable key = %v, want a refusal", err)
	}
}

// forget drops what this process knows of every directory, as a new
// process starts.
func forget() {
	knownMu.Lock()
	defer knownMu.Unlock()
	clear(knownBy)
}
