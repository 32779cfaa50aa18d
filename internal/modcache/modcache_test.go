package modcache

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGetPut(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	const key = "0123456789abcdef"
	out := filepath.Join(dir, "route.wasm")
	if hit, err := c.Get(key, out); hit || err != nil {
		t.Fatalf("Get on an empty cache = %v, %v; want a miss", hit, err)
	}
	built := filepath.Join(dir, "built.wasm")
	if err := os.WriteFile(built, []byte("\x00asm module one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(key, built); err != nil {
		t.Fatal(err)
	}
	// out exists with other bytes: Get replaces it.
	if err := os.WriteFile(out, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hit, err := c.Get(key, out); !hit || err != nil {
		t.Fatalf("Get after Put = %v, %v; want a hit", hit, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "\x00asm module one" {
		t.Errorf("Get wrote %q, want the cached module", b)
	}
	if hit, _ := c.Get("fedcba9876543210", out); hit {
		t.Error("Get of another key hit")
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	cached, _ := filepath.Glob(filepath.Join(dir, "cache", "*"))
	if len(leftovers) != 0 || len(cached) != 1 {
		t.Errorf("temporary files %v, cache %v; want none and one module", leftovers, cached)
	}
}

func TestKeys(t *testing.T) {
	c := Open(t.TempDir())
	for _, key := range []string{"", "../../etc/passwd", "0123456789ABCDEF", "0123", "0123456789abcdeg"} {
		if _, err := c.Get(key, filepath.Join(t.TempDir(), "x")); err == nil {
			t.Errorf("Get(%q) took a key that is not hex", key)
		}
		if err := c.Put(key, "x"); err == nil {
			t.Errorf("Put(%q) took a key that is not hex", key)
		}
	}
}
