//go:build !wasip1

package httphost

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestImportsAreTheABIs: the //go:wasmimport directives, which need
// literal names, name exactly the ABI's outbound functions.
func TestImportsAreTheABIs(t *testing.T) {
	src, err := os.ReadFile("host_wasip1.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`//go:wasmimport (\S+) (\S+)`).FindAllStringSubmatch(string(src), -1) {
		if m[1] != abi.ImportModule {
			t.Errorf("import from module %q, want %q", m[1], abi.ImportModule)
		}
		got = append(got, m[2])
	}
	want := []string{abi.ImportHTTPSend, abi.ImportHTTPResponse, abi.ImportHTTPBodyRead, abi.ImportHTTPClose, abi.ImportHTTPError}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
}
