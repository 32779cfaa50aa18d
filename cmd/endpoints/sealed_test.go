package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildKeepsAnUnchangedBundlesContract: a build whose Go bundle links
// to the very code of the earlier build's writes back the contract that
// build embedded, byte for byte, rather than loading the module again; a
// changed route is loaded and its new contract embedded.
func TestBuildKeepsAnUnchangedBundlesContract(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles Go routes")
	}
	needGo(t)
	app := filepath.Join(t.TempDir(), "again")
	if code, out, errOut := runCLI("new", app); code != exitOK {
		t.Fatalf("endpoints new = %d\n%s\n%s", code, out, errOut)
	}
	module := filepath.Join(app, "server", "bundles", "go.wasm")
	build := func() (string, []byte) {
		t.Helper()
		code, out, errOut := runCLI("build", app)
		if code != exitOK {
			t.Fatalf("endpoints build = %d\n%s\n%s", code, out, errOut)
		}
		wasm, err := os.ReadFile(module)
		if err != nil {
			t.Fatal(err)
		}
		return out, wasm
	}
	out, first := build()
	if strings.Contains(out, "(unchanged") {
		t.Errorf("the first build says its bundle is unchanged:\n%s", out)
	}
	out, again := build()
	if !strings.Contains(out, "server/bundles/go.wasm") || !strings.Contains(out, "(unchanged: its contract kept)") {
		t.Errorf("a build of the same sources:\n%s\nwant the bundle's contract kept", out)
	}
	if !bytes.Equal(first, again) {
		t.Errorf("the bundle of the same sources, its contract kept, differs from the first build's (%d and %d bytes)", len(first), len(again))
	}
	src := filepath.Join(app, "handlers", "hello", "main.go")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, bytes.Replace(text, []byte(`Summary: "Say hello"`), []byte(`Summary: "Say hello again"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, changed := build()
	if strings.Contains(out, "(unchanged") || !bytes.Contains(changed, []byte("Say hello again")) {
		t.Errorf("a build after the route's summary changed:\n%s\nwant the new contract embedded", out)
	}
}
