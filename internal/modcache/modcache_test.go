package modcache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
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

// TestPrune: a Put removes the entries no Get or Put used for MaxAge, and
// leaves the others and files that are not entries.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	built := filepath.Join(dir, "built.wasm")
	if err := os.WriteFile(built, []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	const stale, used, fresh = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc"
	for _, key := range []string{stale, used} {
		if err := c.Put(key, built); err != nil {
			t.Fatal(err)
		}
	}
	notEntry := filepath.Join(c.Dir(), "README")
	if err := os.WriteFile(notEntry, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-MaxAge - time.Hour)
	for _, p := range []string{filepath.Join(c.Dir(), stale+".wasm"), filepath.Join(c.Dir(), used+".wasm"), notEntry} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if hit, err := c.Get(used, filepath.Join(dir, "out.wasm")); !hit || err != nil {
		t.Fatalf("Get(used) = %v, %v", hit, err)
	}
	if err := c.Put(fresh, built); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{stale: false, used: true, fresh: true} {
		if _, err := os.Stat(filepath.Join(c.Dir(), key+".wasm")); (err == nil) != want {
			t.Errorf("entry %s present = %v, want %v", key, err == nil, want)
		}
	}
	if _, err := os.Stat(notEntry); err != nil {
		t.Errorf("prune removed a file that is not an entry: %v", err)
	}
}

// TestRecords: a record reads back as it was put, is replaced whole by the
// next PutRecord, is gone after DeleteRecord, and is pruned like an entry
// when no Record used it for MaxAge.
func TestRecords(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	const key, stale = "0123456789abcdef", "aaaaaaaaaaaaaaaa"
	if b, ok, err := c.Record(key); ok || err != nil || b != nil {
		t.Fatalf("Record on an empty cache = %q, %v, %v; want none", b, ok, err)
	}
	if err := c.DeleteRecord(key); err != nil {
		t.Fatalf("DeleteRecord of no record: %v", err)
	}
	for _, data := range []string{`{"files":["a.rs","b.rs"]}`, `{"files":["a.rs"]}`} {
		if err := c.PutRecord(key, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, ok, err := c.Record(key); !ok || err != nil || string(b) != data {
			t.Fatalf("Record after PutRecord(%s) = %q, %v, %v", data, b, ok, err)
		}
	}
	// A record and a module may share a key: they are different files.
	built := filepath.Join(dir, "built.wasm")
	if err := os.WriteFile(built, []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(key, built); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := c.Record(key); string(b) != `{"files":["a.rs"]}` {
		t.Errorf("a module put under the record's key changed it to %q", b)
	}
	if err := c.DeleteRecord(key); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Record(key); ok {
		t.Error("Record found a deleted record")
	}
	if hit, _ := c.Get(key, filepath.Join(dir, "out.wasm")); !hit {
		t.Error("DeleteRecord removed the module of its key")
	}
	if err := c.PutRecord(stale, []byte("old")); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-MaxAge - time.Hour)
	if err := os.Chtimes(filepath.Join(c.Dir(), stale+".record"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := c.Put("cccccccccccccccc", built); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Record(stale); ok {
		t.Error("a record unused for MaxAge survived a Put")
	}
	for _, bad := range []string{"", "../x", "0123456789ABCDEF"} {
		if _, _, err := c.Record(bad); err == nil {
			t.Errorf("Record(%q) took a key that is not hex", bad)
		}
		if err := c.PutRecord(bad, nil); err == nil {
			t.Errorf("PutRecord(%q) took a key that is not hex", bad)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(c.Dir(), "*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}
