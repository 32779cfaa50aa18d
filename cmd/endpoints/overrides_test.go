package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// TestEveryCommandTakesTheOverrides: the ENDPOINTS_* variables and --set
// apply to every command that reads endpoints.json, not only to serve, so
// the document printed, the client generated and the build run are those
// of the app served. An unknown ENDPOINTS_* variable is a warning, and a
// Kubernetes service link not even that.
func TestEveryCommandTakesTheOverrides(t *testing.T) {
	app := cApp(t)
	if _, err := guestbuild.App(context.Background(), app, app, nil); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("ENDPOINTS_OPEN_API_TITLE", "Title From The Environment")
	t.Setenv("ENDPOINTS_SERVICE_HOST", "10.96.0.12")
	t.Setenv("ENDPOINTS_PORT_80_TCP_ADDR", "10.96.0.12")
	t.Setenv("ENDPOINTS_NO_SUCH_SETTING", "1")

	code, out, errOut := runCLI("openapi", app, "--cache-dir", cache)
	if code != exitOK || !strings.Contains(out, `"title": "Title From The Environment"`) {
		t.Errorf("openapi = %d, want the title set by ENDPOINTS_OPEN_API_TITLE in:\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "warning: environment variable ENDPOINTS_NO_SUCH_SETTING names no setting") {
		t.Errorf("an unknown ENDPOINTS_* variable gave no warning:\n%s", errOut)
	}
	if strings.Contains(errOut, "ENDPOINTS_SERVICE_HOST") || strings.Contains(errOut, "ENDPOINTS_PORT_80") {
		t.Errorf("a Kubernetes service link was warned about:\n%s", errOut)
	}
	code, out, errOut = runCLI("openapi", app, "--cache-dir", cache, "--set", "openApi.title=Title From A Flag")
	if code != exitOK || !strings.Contains(out, `"title": "Title From A Flag"`) {
		t.Errorf("openapi --set = %d, want the title set by --set (which wins over the environment) in:\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI("client", app, "--cache-dir", cache, "--lang", "go", "--set", "openApi.title=Title From A Flag")
	if code != exitOK || !strings.Contains(out, "Title From A Flag") {
		t.Errorf("client --set = %d, want the document's title in the client:\n%s\n%s", code, out, errOut)
	}

	// A bad value is refused by every command, naming where it came from.
	for _, args := range [][]string{{"routes"}, {"check", "--no-build"}, {"openapi"}, {"client"}} {
		command := args[0]
		code, _, errOut := runCLI(append(append(args, app), "--cache-dir", cache, "--set", "limits.bodyBytes=-1")...)
		if code != exitError || !strings.Contains(errOut, "/limits/bodyBytes set by --set limits.bodyBytes") {
			t.Errorf("%s --set limits.bodyBytes=-1 = %d, want exit 1 naming the override:\n%s", command, code, errOut)
		}
	}

	// build runs the command ENDPOINTS_BUILD_COMMAND gives.
	t.Setenv("ENDPOINTS_BUILD_COMMAND", "echo ran > from-env.txt")
	if code, out, errOut := runCLI("build", app); code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	if data, err := os.ReadFile(filepath.Join(app, "from-env.txt")); err != nil || strings.TrimSpace(string(data)) != "ran" {
		t.Errorf("build did not run ENDPOINTS_BUILD_COMMAND: %q, %v", data, err)
	}
}
