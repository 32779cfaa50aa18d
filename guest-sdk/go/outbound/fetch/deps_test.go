//go:build !wasip1

package fetch

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoNetHTTP: the package exists to call out without net/http
// and what it brings (crypto/tls, crypto/x509, mime/multipart, net): a
// module that imports it must not link them.
func TestImportsNoNetHTTP(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the package's dependencies: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", ".")
	cmd.Env = append(cmd.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "net", "net/http", "net/url", "net/textproto", "crypto/tls", "crypto/x509", "mime/multipart":
			t.Errorf("package fetch depends on %s in a WebAssembly module; it must not (see the package doc)", dep)
		}
	}
}
