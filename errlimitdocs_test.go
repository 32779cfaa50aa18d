package endpoints

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestErrLimitDocumented: every SDK's documentation of the errno -10
// (ErrLimit) names each bound abi/README.md's table of errnos says it
// stands for, so that a guest's author reads the whole list in the
// language they write: the header or source where the errno is declared
// or met, and the SDK's README.
func TestErrLimitDocumented(t *testing.T) {
	abiREADME, err := os.ReadFile("abi/README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `-10` \\| `ErrLimit` \\|(.*)$").FindSubmatch(abiREADME)
	if row == nil {
		t.Fatal("abi/README.md: no row of -10 in the table of errnos")
	}
	// The bounds the row names: each setting or constant in backquotes.
	var bounds []string
	for _, m := range regexp.MustCompile("`([A-Za-z.]+)`").FindAllSubmatch(row[1], -1) {
		bounds = append(bounds, string(m[1]))
	}
	if len(bounds) < 5 {
		t.Fatalf("abi/README.md's row of -10 names %q; want the five bounds", bounds)
	}
	// Where each SDK documents -10: a file, and the text from a line
	// matching start to the first line matching end (or the file's end).
	for _, doc := range []struct{ file, start, end string }{
		{"abi/http.go", `^\t// ErrLimit:`, `^\tErrLimit `},
		{"guest-sdk/go/outbound/doc.go", `^//   - A response body read whole`, `give its headers back`},
		{"guest-sdk/c/endpoints.h", `/\* An outbound bound`, `ENDPOINTS_ERR_LIMIT = -10`},
		{"guest-sdk/c/README.md", "^`ENDPOINTS_ERR_LIMIT`", `^$`},
		{"guest-sdk/rust/src/host.rs", "/// `-10`", `pub const LIMIT`},
		{"guest-sdk/rust/README.md", "^`Errno::LIMIT`", `^$`},
		{"guest-sdk/assemblyscript/http.ts", `^/\*\* An outbound response\.`, `\*/`},
		{"guest-sdk/assemblyscript/README.md", "^`res.errno == -10`", `^$`},
	} {
		b, err := os.ReadFile(doc.file)
		if err != nil {
			t.Fatal(err)
		}
		text, found := "", false
		start, end := regexp.MustCompile(doc.start), regexp.MustCompile(doc.end)
		for _, line := range strings.Split(string(b), "\n") {
			if !found && start.MatchString(line) {
				found = true
			}
			if found {
				text += line + "\n"
				if end.MatchString(line) && len(text) > len(line)+1 {
					break
				}
			}
		}
		if !found {
			t.Errorf("%s: no documentation of -10 (a line matching %s)", doc.file, doc.start)
			continue
		}
		for _, bound := range bounds {
			if !strings.Contains(text, bound) {
				t.Errorf("%s: the documentation of -10 does not name %s, which abi/README.md lists:\n%s", doc.file, bound, text)
			}
		}
	}
}
