package main

import (
	"errors"
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
