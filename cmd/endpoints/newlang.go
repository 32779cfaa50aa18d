package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"

	assdk "github.com/wasmendpoints/endpoints/guest-sdk/assemblyscript"
	csdk "github.com/wasmendpoints/endpoints/guest-sdk/c"
	rustsdk "github.com/wasmendpoints/endpoints/guest-sdk/rust"
)

// langApp is what `endpoints new --lang L` writes for a language other
// than Go: files rendered from templates/L, and the SDK's sources copied
// under vendor/ for editors (the build uses the copy this program ships).
type langApp struct {
	name  string            // the language, for messages
	files map[string]string // template (under templates/) → file in the app
	// sdk is the SDK's sources and where they go in the app.
	sdk    fs.FS
	sdkDir string
	// next says how to go on, after `endpoints dev APP`.
	next string
}

// langApps are the languages of --lang besides go.
var langApps = map[string]langApp{
	"c": {
		name:   "C",
		files:  map[string]string{"c/hello.get.c": "server/api/hello.get.c", "c/compile_flags.txt": "compile_flags.txt"},
		sdk:    fstest.MapFS{csdk.HeaderName: &fstest.MapFile{Data: csdk.Header, Mode: 0o644}},
		sdkDir: "vendor/endpoints-c",
		next:   "endpoints build compiles it with clang (Debian: apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32).",
	},
	"as": {
		name:   "AssemblyScript",
		files:  map[string]string{"as/hello.get.ts": "server/api/hello.get.ts", "as/package.json": "package.json", "as/tsconfig.json": "tsconfig.json", "as/gitignore": ".gitignore"},
		sdk:    assdk.Files,
		sdkDir: "vendor/endpoints-assemblyscript",
		next:   "The first build runs npm install there, which fetches the compiler (" + assdk.Compiler + ").",
	},
	"rs": {
		name:   "Rust",
		files:  map[string]string{"rs/hello.get.rs": "server/api/hello.get.rs", "rs/Cargo.toml": "Cargo.toml", "rs/gitignore": ".gitignore"},
		sdk:    rustsdk.Files,
		sdkDir: "vendor/endpoints-rust",
		next:   "endpoints build compiles it with rustc and its wasm32 standard library, offline (Debian: apt-get install rustc libstd-rust-dev-wasm32).",
	},
}

// newLangApp writes an app whose routes are in data.Lang (not Go) into
// app, which must not exist or be empty.
func newLangApp(app string, data appData, stdout, stderr io.Writer) int {
	l := langApps[data.Lang]
	_, data.ASCompilerVersion, _ = strings.Cut(assdk.Compiler, "@")
	data.Ext = map[string]string{"c": "c", "as": "ts", "rs": "rs"}[data.Lang]
	if err := emptyDir(app); err != nil {
		fmt.Fprintf(stderr, "endpoints new: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "created %s (%s):\n", app, l.name)
	files := map[string]string{"endpoints.json": "endpoints.json", "README.md": "README.md"}
	for k, v := range l.files {
		files[k] = v
	}
	for _, tmpl := range sortedKeysOf(files) {
		if err := create(app, files[tmpl], tmpl, data); err != nil {
			fmt.Fprintf(stderr, "endpoints new: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "  %s\n", filepath.Join(app, filepath.FromSlash(files[tmpl])))
	}
	if err := os.CopyFS(filepath.Join(app, filepath.FromSlash(l.sdkDir)), l.sdk); err != nil {
		fmt.Fprintf(stderr, "endpoints new: writing the SDK's sources: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "  %s/ (the %s SDK, for editors)\n", filepath.Join(app, filepath.FromSlash(l.sdkDir)), l.name)
	if !newDevKey(app, stdout, stderr) {
		return exitError
	}
	fmt.Fprintf(stdout, "\nNext:\n  endpoints dev %s\n  curl 'http://127.0.0.1:3000/api/hello?name=Ada'\n%s\n", app, l.next)
	fmt.Fprintf(stdout, "A development token for the bearer scheme: endpoints token %s --sub alice\n", app)
	return exitOK
}

// newDevKey writes the new app's development signing key and its key set,
// which endpoints.json's bearer scheme names.
func newDevKey(app string, stdout, stderr io.Writer) bool {
	if err := writeDevKey(app, devKeyFile, devJWKSFile, "dev-1", false); err != nil {
		fmt.Fprintf(stderr, "endpoints new: %v\n", err)
		return false
	}
	fmt.Fprintf(stdout, "  %s (a development signing key: endpoints token signs with it)\n  %s\n",
		filepath.Join(app, filepath.FromSlash(devKeyFile)), filepath.Join(app, filepath.FromSlash(devJWKSFile)))
	return true
}

// sortedKeysOf returns the keys of m in order.
func sortedKeysOf(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
