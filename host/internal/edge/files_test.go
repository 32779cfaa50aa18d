package edge

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
)

// fileReport is an appload.Reporter that keeps what it hears as lines.
type fileReport struct{ problems, notes []string }

func (r *fileReport) Problem(err error, fresh bool) {
	r.problems = append(r.problems, fmt.Sprintf("%v fresh=%v", err, fresh))
}

func (r *fileReport) Note(file string, now, before bool) {
	r.notes = append(r.notes, fmt.Sprintf("%s now=%v before=%v", file, now, before))
}

// TestLoadMiddlewareFiles: what a load keeps of the previous version's
// middleware files. A file whose bytes did not change is reused as it is,
// its old failure reported again (not fresh); a changed file that fails
// keeps its previous middleware serving; a file gone is noted removed.
func TestLoadMiddlewareFiles(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Config{MemoryBytes: 16 << 20, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	const (
		same    = "server/middleware/10-same.wasm"
		failed  = "server/middleware/20-failed.wasm"
		changed = "server/middleware/30-changed.wasm"
		gone    = "server/middleware/40-gone.wasm"
	)
	dir := t.TempDir()
	write := func(rel, data string) appload.Hash {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256([]byte(data))
	}
	sameMW, changedMW := &Middleware{Name: "10-same"}, &Middleware{Name: "30-changed"}
	oldErr := errors.New(failed + ": its old failure")
	prev := map[string]*MiddlewareFile{
		same:    {Hash: write(same, "bytes the previous load served"), MW: sameMW},
		failed:  {Hash: write(failed, "bytes the previous load refused"), Err: oldErr},
		changed: {Hash: [32]byte{1}, MW: changedMW},
		gone:    {Hash: [32]byte{2}, MW: &Middleware{Name: "40-gone"}},
	}
	write(changed, "not a module")

	rep := &fileReport{}
	files, served, err := LoadMiddlewareFiles(ctx, e, appload.Dir(dir), 1, prev, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		file string
		mw   *Middleware
		err  string // substring of the file's Err; "" for none
	}{
		{"unchanged bytes: the previous file as it was", same, sameMW, ""},
		{"unchanged bytes that failed: still failed", failed, nil, "its old failure"},
		{"a changed file that fails: the previous middleware serves", changed, changedMW, changed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := files[tc.file]
			if f == nil {
				t.Fatalf("no %s in the files", tc.file)
			}
			if f.MW != tc.mw {
				t.Errorf("MW = %v, want %v", f.MW, tc.mw)
			}
			if (f.Err == nil) != (tc.err == "") || f.Err != nil && !strings.Contains(f.Err.Error(), tc.err) {
				t.Errorf("Err = %v, want one naming %q", f.Err, tc.err)
			}
		})
	}
	if files[same] != prev[same] {
		t.Error("the unchanged file is not the previous version's own")
	}
	if _, ok := files[gone]; ok {
		t.Errorf("%s is gone from the app but still in the files", gone)
	}
	if !slices.Equal(served, []*Middleware{sameMW, changedMW}) {
		t.Errorf("served = %v, want 10-same and 30-changed in name order", served)
	}
	if len(rep.problems) != 2 || rep.problems[0] != oldErr.Error()+" fresh=false" ||
		!strings.HasPrefix(rep.problems[1], changed) || !strings.HasSuffix(rep.problems[1], "fresh=true") {
		t.Errorf("problems = %q, want the old failure again (not fresh), then the changed file's (fresh)", rep.problems)
	}
	if want := []string{gone + " now=false before=true"}; !slices.Equal(rep.notes, want) {
		t.Errorf("notes = %q, want %q", rep.notes, want)
	}
}

func TestLoadMiddlewareFilesWithoutTheDirectory(t *testing.T) {
	files, served, err := LoadMiddlewareFiles(context.Background(), nil, appload.Dir(t.TempDir()), 1, nil, &fileReport{})
	if err != nil || files == nil || len(files) != 0 || served != nil {
		t.Errorf("LoadMiddlewareFiles = %v, %v, %v; want no files (an empty map), no middleware, no error", files, served, err)
	}
}
