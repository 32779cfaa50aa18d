package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/host"
)

// TestConsoleReportsReloads: a reload's line, then its problems and
// warnings one per line; --quiet keeps a refused reload and a warning,
// and hides a good reload; --json carries all of it in one object.
func TestConsoleReportsReloads(t *testing.T) {
	good := host.ReloadReport{Changed: []string{"server/api/v.get.wasm"}, Took: 3 * time.Millisecond}
	refused := host.ReloadReport{Added: []string{"server/api/w.get.wasm"}, Took: 4 * time.Millisecond, Refused: true,
		Problems: []error{errors.New(`OpenAPI document: schema "Thing" is defined differently`)}}
	warned := host.ReloadReport{Removed: []string{"server/api/gone.get.wasm"}, Took: 2 * time.Millisecond,
		Warnings: []error{errors.New(`server/routes.config.json: /routes/~1api~1gone: pattern "/api/gone": a routes configuration pattern matches no operation`)}}
	recovered := host.ReloadReport{Recovered: true, Took: time.Millisecond}
	const clock = `\d\d:\d\d:\d\d `
	tests := []struct {
		name        string
		report      host.ReloadReport
		quiet, json bool
		want        string // a regular expression
	}{
		{"good reload", good, false, false, "^" + clock + `reloaded in 3ms: changed server/api/v.get.wasm\n$`},
		{"quiet hides a good reload", good, true, false, "^$"},
		{"refused reload and its problem", refused, true, false,
			"^" + clock + `not reloaded in 4ms: added server/api/w.get.wasm; 1 problem\(s\), the previous version keeps serving\n` + clock + `  OpenAPI document: schema "Thing" is defined differently\n$`},
		{"quiet keeps a warning", warned, true, false,
			"^" + clock + `reloaded in 2ms: removed server/api/gone.get.wasm; 1 warning\(s\)\n` + clock + `  warning: server/routes.config.json: /routes/~1api~1gone: pattern "/api/gone": .*\n$`},
		{"recovered", recovered, false, false, "^" + clock + `reloaded in 1ms: nothing changed; fixed, the app on disk serves\n$`},
		{"refused reload as JSON", refused, false, true,
			`^\{"added":\["server/api/w.get.wasm"\],"changed":null,"event":"reload","problems":\["OpenAPI document: schema \\"Thing\\" is defined differently"\],"recovered":false,"refused":true,"removed":null,"time":"[^"]+","tookMs":4,"warnings":null\}` + "\n$"},
		{"warning as JSON", warned, false, true, `"warnings":\["server/routes.config.json: /routes/~1api~1gone: pattern \\"/api/gone\\": a routes configuration pattern matches no operation"\]\}` + "\n$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			newConsole(&b, tt.quiet, tt.json).reloaded(tt.report)
			if !regexp.MustCompile(tt.want).MatchString(b.String()) {
				t.Errorf("console printed %q, want a match of %s", b.String(), tt.want)
			}
		})
	}
}

// TestDevSurvivesADocumentBreakingSave runs `endpoints dev` on an app of
// WAT routes: deleting the source of a route that routes.config.json
// describes removes the route and prints a warning, and a new route whose
// operationId another one already has is refused with the previous
// version serving; through both, the other route and the schema answer
// 200. Fixing the name serves what is on disk.
func TestDevSurvivesADocumentBreakingSave(t *testing.T) {
	requireWat2wasm(t)
	hello := helloWAT(t)
	app := writeApp(t, map[string]string{
		"server/api/hello.get.wat":  string(hello),
		"server/api/bye.get.wat":    string(hello),
		"server/routes.config.json": `{"routes": {"/api/bye": {"responses": {"503": {"description": "Busy"}}}}}`,
	})
	addr, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources")
	answers := func(path string, want int) {
		t.Helper()
		if status, body := httpGet(t, addr+path); status != want {
			t.Errorf("GET %s = %d %s, want %d\nstdout:\n%s\nstderr:\n%s", path, status, body, want, stdout, stderr)
		}
	}
	answers("/api/bye", 200)
	remove := func(rel string) {
		if err := os.Remove(filepath.Join(app, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, data string) {
		saveFile(t, filepath.Join(app, filepath.FromSlash(rel)), data)
	}

	remove("server/api/bye.get.wat")
	waitFor(t, stdout, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d reloaded in \S+: (removed server/api/bye\.get\.wasm; 1 warning\(s\))`), done)
	waitFor(t, stdout, regexp.MustCompile(`  warning: server/routes\.config\.json: /routes/~1api~1bye: (pattern "/api/bye")`), done)
	answers("/api/hello", 200)
	answers("/_endpoints/schema", 200)
	answers("/api/bye", 404)

	// /api/hel-lo and /api/hel_lo both derive the operationId getApiHelLo.
	write("server/api/hel-lo.get.wat", string(hello))
	waitFor(t, stdout, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d reloaded in \S+: (added server/api/hel-lo\.get\.wasm)`), done)
	write("server/api/hel_lo.get.wat", string(hello))
	waitFor(t, stdout, regexp.MustCompile(`(not reloaded) in \S+: added server/api/hel_lo\.get\.wasm; 1 problem\(s\), the previous version keeps serving`), done)
	waitFor(t, stdout, regexp.MustCompile(`(operationId "getApiHelLo")`), done)
	answers("/api/hello", 200)
	answers("/api/hel-lo", 200)
	answers("/api/hel_lo", 404)
	answers("/_endpoints/schema", 200)

	remove("server/api/hel_lo.get.wat")
	write("server/api/hel_lo2.get.wat", string(hello))
	waitFor(t, stdout, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d reloaded in \S+: (added server/api/hel_lo2\.get\.wasm)`), done)
	answers("/api/hel_lo2", 200)
}
