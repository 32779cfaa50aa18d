package interrupt

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestInstrumentGolden shows what the rewrite does: the instrumented
// fixtures, printed by wasm2wat, are compared with testdata/golden/*.wat.
// Refresh them with go test ./internal/interrupt -run Golden -update and
// review the diff.
func TestInstrumentGolden(t *testing.T) {
	tests := []struct {
		wat   string
		flags []string
	}{
		{"loop", nil},
		{"recursion", nil},
		{"tailcall", []string{"--enable-tail-call"}},
		{"dispatch", nil},
	}
	for _, tt := range tests {
		t.Run(tt.wat, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), tt.wat+".wasm")
			if err := os.WriteFile(out, instrument(t, wat(t, tt.wat, tt.flags...), DefaultPeriod), 0o644); err != nil {
				t.Fatal(err)
			}
			text, err := exec.Command(tool(t, "wasm2wat"), append(tt.flags, out)...).CombinedOutput()
			if err != nil {
				t.Fatalf("wasm2wat: %v\n%s", err, text)
			}
			golden := filepath.Join("testdata", "golden", tt.wat+".wat")
			header := ";; " + tt.wat + ".wat instrumented with period 10000, printed by wasm2wat.\n" +
				";; Refresh: go test ./internal/interrupt -run Golden -update\n"
			got := header + string(text)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("instrumented %s differs from %s (run with -update and review the diff):\n%s", tt.wat, golden, diffLines(string(want), got))
			}
		})
	}
}

// diffLines returns the first lines where got differs from want.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)) && b.Len() < 2000; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
		}
	}
	return b.String()
}
