package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// TestLoadErrorCountsWhatItLists: the first line of a load error counts
// the lines it lists, in the noun they are: problems, of which one module
// may have several. A bundle of 96 routes whose 18 timeouts were over
// limits.maxTimeout was reported as "18 route module(s) failed to load",
// of one module; and a problem of several lines (a bundle's refused
// routes) stays indented under the first line.
func TestLoadErrorCountsWhatItLists(t *testing.T) {
	t.Parallel()
	const decl = `{"routes": [
  {"route": "GET /api/a", "contract": {"timeout": "2s"}},
  {"route": "GET /api/b", "contract": {"timeout": "2s"}},
  {"route": "GET /api/c", "contract": {"summary": 7}},
  {"route": "GET /api/d", "contract": {"summary": 8}}
]}`
	a := newApp(t).watSource("server/bundles/w.wasm", bundleWAT(decl, false))
	_, err := host.New(context.Background(), a.dir, host.Options{Mode: host.Production, Logger: discardLogger(), CacheDir: testCacheDir(t),
		Limits: config.Limits{MaxTimeout: config.Duration(time.Second)}})
	var le *host.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("host.New = %v, want a *host.LoadError", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if want := "4 problem(s) loading the app:"; lines[0] != want {
		t.Errorf("first line = %q, want %q (the problems of one bundle: 2 timeouts, 2 refused routes)", lines[0], want)
	}
	for _, want := range []string{"(GET /api/a): contract: /timeout", "(GET /api/b): contract: /timeout", "(GET /api/c): contract: /summary", "(GET /api/d): contract: /summary"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "  ") {
			t.Errorf("line %q is not indented under the first:\n%v", l, err)
		}
	}
}
