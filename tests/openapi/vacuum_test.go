package openapi_test

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// minVacuumScore is the score vacuum must give the users example's
// document: the bar of a document made to be read and mocked.
const minVacuumScore = 90

// minTwinVacuumScore is the score vacuum must give the documents of the
// users example's twins in C, AssemblyScript and Rust, whose contracts
// state descriptions and examples with their SDKs (the C one in JSON
// text): what they reach, so a builder that stops writing them fails.
const minTwinVacuumScore = 99

// vacuumReport is what TestVacuum reads of `vacuum report`.
type vacuumReport struct {
	Statistics struct {
		OverallScore int `json:"overallScore"`
		TotalErrors  int `json:"totalErrors"`
	} `json:"statistics"`
	ResultSet struct {
		Results []struct {
			Message  string `json:"message"`
			Path     string `json:"path"`
			RuleID   string `json:"ruleId"`
			Severity string `json:"ruleSeverity"`
		} `json:"results"`
	} `json:"resultSet"`
}

// TestVacuum lints the document of every example app with vacuum
// (github.com/daveshanley/vacuum, pinned in vacuum/go.mod, with the
// ruleset vacuum/ruleset.yaml whose comments say why each rule it turns
// off is wrong for a generated document): no example's document may have
// an error, the users example's must score at least minVacuumScore and
// its twins' at least minTwinVacuumScore.
func TestVacuum(t *testing.T) {
	vacuum := buildVacuum(t)
	ruleset, err := filepath.Abs(filepath.Join("vacuum", "ruleset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"users", "users-c", "users-as", "users-rs"} {
		t.Run(name, func(t *testing.T) {
			doc := exampleDocument(t, name)
			file := filepath.Join(t.TempDir(), name+".json")
			if err := os.WriteFile(file, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(vacuum, "report", "--stdout", "--no-style", "--ruleset", ruleset, file).Output()
			if err != nil {
				t.Fatalf("vacuum report: %v\n%s", err, stderrOf(err))
			}
			var rep vacuumReport
			if err := stdjson.Unmarshal(out, &rep); err != nil {
				t.Fatalf("vacuum's report does not decode: %v\n%.2000s", err, out)
			}
			var found strings.Builder
			for _, r := range rep.ResultSet.Results {
				fmt.Fprintf(&found, "\n  %s %s: %s (%s)", r.Severity, r.RuleID, r.Message, r.Path)
			}
			if rep.Statistics.TotalErrors > 0 {
				t.Errorf("vacuum found %d errors:%s", rep.Statistics.TotalErrors, found.String())
			}
			floor := minTwinVacuumScore
			if name == "users" {
				floor = minVacuumScore
			}
			if rep.Statistics.OverallScore < floor {
				t.Errorf("vacuum scores the document %d, want at least %d:%s", rep.Statistics.OverallScore, floor, found.String())
			}
			t.Logf("vacuum score %d, %d results:%s", rep.Statistics.OverallScore, len(rep.ResultSet.Results), found.String())
		})
	}
}

// buildVacuum builds the pinned vacuum into the test's temporary directory
// from the module of vacuum/go.mod (the Go build cache keeps it between
// runs).
func buildVacuum(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "vacuum")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/daveshanley/vacuum")
	cmd.Dir = "vacuum"
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs vacuum (go build in tests/openapi/vacuum): %v\n%s", err, out)
		}
		t.Skipf("cannot build vacuum (go build in tests/openapi/vacuum): %v\n%s", err, out)
	}
	return bin
}

// exampleDocument builds examples/NAME into a temporary directory and
// returns the document its host serves.
func exampleDocument(t *testing.T, name string) []byte {
	t.Helper()
	var dir string
	if name == "users" {
		dir = buildUsers(t)
	} else {
		src := filepath.Join("..", "..", "examples", name)
		dir = t.TempDir()
		// Everything but installed packages and built modules; the
		// build writes the modules.
		err := os.CopyFS(dir, filteredFS{os.DirFS(src)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := guestbuild.App(context.Background(), src, dir, nil); err != nil {
			t.Fatal(err)
		}
	}
	h, err := host.New(context.Background(), dir, host.Options{
		Mode:     host.Development,
		CacheDir: filepath.Join(os.TempDir(), "endpoints-test-cache"),
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h.Document()
}

// filteredFS is an app directory without node_modules, target and built
// modules.
type filteredFS struct{ fs.FS }

// ReadDir lists dir without what an app's build makes or installs.
func (f filteredFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(f.FS, dir)
	kept := entries[:0]
	for _, e := range entries {
		if n := e.Name(); n == "node_modules" || n == "target" || n == ".endpoints" || strings.HasSuffix(n, ".wasm") {
			continue
		}
		kept = append(kept, e)
	}
	return kept, err
}

// stderrOf is what a failed command wrote to its standard error.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
