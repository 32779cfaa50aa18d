package guestbuild

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readmeModules are the code blocks of language lang (the fence's word)
// in the README of guest-sdk/sdk that whole says are whole modules, as a
// developer copies them into a route's file.
func readmeModules(t *testing.T, sdk, lang string, whole func(src string) bool) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(cRepoRoot, "guest-sdk", sdk, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var modules []string
	for _, block := range strings.Split(string(readme), "```"+lang+"\n")[1:] {
		src, _, ok := strings.Cut(block, "```")
		if !ok {
			t.Fatalf("guest-sdk/%s/README.md: a %s block is not closed:\n%s", sdk, lang, block)
		}
		if whole(src) {
			modules = append(modules, src)
		}
	}
	return modules
}

// TestAssemblyScriptREADMERoutesBuild builds every whole route of the
// AssemblyScript SDK's README, as a developer copies it: each block that
// brings in the ABI exports and declares its route (endpoint, plainRoute),
// the database handler of "Data" among them. A block that is part of a
// route has no exports line.
func TestAssemblyScriptREADMERoutesBuild(t *testing.T) {
	files := map[string]string{}
	for _, src := range readmeModules(t, "assemblyscript", "ts", func(src string) bool {
		declares := strings.Contains(src, "\nendpoint(") || strings.Contains(src, "\nplainRoute(")
		return declares && strings.Contains(src, `export * from "@wasmendpoints/assemblyscript/exports";`)
	}) {
		files["server/routes/block"+strconv.Itoa(len(files)+1)+".ts"] = src
	}
	// The endpoint, the plain route and the query of "Data".
	if len(files) != 3 {
		t.Fatalf("found %d whole routes in the README, want 3", len(files))
	}
	if testing.Short() {
		t.Skip("-short: compiling AssemblyScript takes seconds")
	}
	useCache(t)
	app := asApp(t, files)
	// One batch, one Node.js process, for the three.
	built, err := App(t.Context(), app, app, nil)
	if err != nil {
		t.Error(err)
	}
	if len(built) != len(files) {
		t.Errorf("built %d routes, want %d", len(built), len(files))
	}
	for _, b := range built {
		if b.Err != nil {
			t.Errorf("the README's route %s does not build: %v\n%s", b.Module, b.Err, files[strings.TrimSuffix(b.Module, ".wasm")+".ts"])
		}
	}
}
