package config_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestConfigImportsNoHost: package config is below package host (host
// imports config, never the reverse), so a program that only reads an
// app's settings links neither the host nor the WebAssembly runtime.
func TestConfigImportsNoHost(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/wasmendpoints/endpoints/config").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/wasmendpoints/endpoints/host" || strings.HasPrefix(dep, "github.com/wasmendpoints/endpoints/host/") || strings.HasPrefix(dep, "github.com/tetratelabs/wazero") {
			t.Errorf("package config depends on %s", dep)
		}
	}
}
