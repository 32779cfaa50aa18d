package depinfo

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		name     string
		data     string
		files    []string
		env      []string
		errorHas string
	}{
		{
			name:  "rustc's output: two rules, a space, an included file, variables",
			data:  "/tmp/m.d: m.rs lib/a\\ b.rs lib/x.txt\n\n/tmp/m: m.rs lib/a\\ b.rs lib/x.txt\n\nm.rs:\nlib/a\\ b.rs:\nlib/x.txt:\n\n# env-dep:FOOX\n# env-dep:GREETING=a=b\n",
			files: []string{"m.rs", "lib/a b.rs", "lib/x.txt"},
			env:   []string{"FOOX", "GREETING"},
		},
		{
			name:  "a crate of one file",
			data:  "/app/a.wasm: /app/a.rs\n\n/app/a.rs:\n",
			files: []string{"/app/a.rs"},
		},
		{
			name:  "a variable read twice, other comments skipped, CRLF",
			data:  "# checksum:abc\r\nout: a.rs\r\n# env-dep:B\r\n# env-dep:A=1\r\n# env-dep:B=2\r\n",
			files: []string{"a.rs"},
			env:   []string{"A", "B"},
		},
		{
			name:  "a colon inside a path is not the target's",
			data:  `C:\out.wasm: C:\src\a.rs` + "\n",
			files: []string{`C:\src\a.rs`},
		},
		{name: "empty", data: ""},
		{name: "a line that is no rule", data: "out: a.rs\nnot a rule\n", errorHas: `x.d:2: "not a rule" is not a rule`},
		{name: "a rule without a target", data: ": a.rs\n", errorHas: "x.d:1: the rule \": a.rs\" has no target"},
		{name: "two colons", data: "out: a.rs b: c.rs\n", errorHas: "has two colons"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			info, err := Parse("x.d", []byte(tt.data))
			if tt.errorHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errorHas) {
					t.Fatalf("Parse: error %v, want one with %q", err, tt.errorHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(info.Files, tt.files) {
				t.Errorf("Files = %q, want %q", info.Files, tt.files)
			}
			if !slices.Equal(info.Env, tt.env) {
				t.Errorf("Env = %q, want %q", info.Env, tt.env)
			}
		})
	}
}
