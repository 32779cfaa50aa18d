//go:build !wasip1

package endpoints_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeFragments are the Go blocks of README.md that are part of a
// handler, each found by a marker only it holds, and the function that
// gives it what it refers to (wrap's %s is the block).
var readmeFragments = []struct {
	marker string
	wrap   string
}{
	{
		marker: "errors.Is(err, endpoints.ErrUniqueViolation)",
		wrap: `package snippet

import (
	"errors"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

type Problem struct{ Title string }

func create(db *endpoints.Database, in struct{ Email string }) endpoints.Reply {
%s	return endpoints.Reply{}
}
`,
	},
	{
		marker: "db.TxWith(",
		wrap: `package snippet

import endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"

func increment(db *endpoints.Database, id int64) error {
%s	return err
}
`,
	},
	{
		marker: "http.Client{Timeout",
		wrap: `package snippet

import (
	"context"
	"errors"
	"net/http"
	"time"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
)

func rates(cachedRates map[string]float64) endpoints.Reply {
%s	defer resp.Body.Close()
	return endpoints.Respond(200, cachedRates)
}
`,
	},
	{
		marker: "endpointstest.SetAuth(t,",
		wrap: `package snippet

import (
	"testing"

	endpoints "github.com/wasmendpoints/endpoints/guest-sdk/go"
	"github.com/wasmendpoints/endpoints/guest-sdk/go/endpointstest"
)

func asAlice(t *testing.T) {
%s}
`,
	},
}

// TestREADMESnippetsCompile builds the Go of README.md as a developer
// copies it: each block that is a whole file (a package clause and its
// imports) as it stands, and each fragment of readmeFragments inside the
// function that declares what it uses. A README whose example no longer
// compiles against the SDK, or that lost one of the fragments, fails.
func TestREADMESnippetsCompile(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("building the README's snippets needs the go command: %v", err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		blocks = append(blocks, m[1])
	}
	var sources []string
	for _, b := range blocks {
		if strings.Contains(b, "\npackage ") && strings.Contains(b, "\nimport (") {
			sources = append(sources, b)
		}
	}
	if len(sources) == 0 {
		t.Error("README.md has no whole Go file (a block with its package clause and imports); the first example should be one")
	}
	for _, f := range readmeFragments {
		var found []string
		for _, b := range blocks {
			if strings.Contains(b, f.marker) {
				found = append(found, b)
			}
		}
		if len(found) != 1 {
			t.Errorf("README.md has %d Go blocks holding %q, want 1: update readmeFragments with the README", len(found), f.marker)
			continue
		}
		sources = append(sources, fmt.Sprintf(f.wrap, found[0]))
	}
	// The snippets become packages of their own in a directory that does
	// not exist, through -overlay: nothing is written into the module.
	dir, err := filepath.Abs("zz_readme_snippets")
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]string{}
	var pkgs []string
	for i, src := range sources {
		file := filepath.Join(t.TempDir(), "snippet.go")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		pkg := fmt.Sprintf("s%d", i+1)
		overlay[filepath.Join(dir, pkg, "snippet.go")] = file
		pkgs = append(pkgs, "./zz_readme_snippets/"+pkg)
	}
	ov, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	ovFile := filepath.Join(t.TempDir(), "overlay.json")
	if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, append([]string{"build", "-overlay", ovFile}, pkgs...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		var listing strings.Builder
		for i, src := range sources {
			fmt.Fprintf(&listing, "--- zz_readme_snippets/s%d/snippet.go:\n", i+1)
			for n, line := range strings.Split(src, "\n") {
				fmt.Fprintf(&listing, "%3d %s\n", n+1, line)
			}
		}
		t.Errorf("README.md's Go does not compile: %v\n%s\n%s", err, msg, listing.String())
	}
}
