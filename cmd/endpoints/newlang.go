package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	assdk "github.com/wasmendpoints/endpoints/guest-sdk/assemblyscript"
	csdk "github.com/wasmendpoints/endpoints/guest-sdk/c"
	rustsdk "github.com/wasmendpoints/endpoints/guest-sdk/rust"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// langApp is what `endpoints new --lang L` writes for a language other
// than Go: files rendered from templates/L, and the SDK's sources copied
// under vendor/ for editors (the build uses the copy this program ships).
type langApp struct {
	name  string            // the language, for messages
	files map[string]string // template (under templates/) → file in the app
	// sdk is the SDK's sources and where they go in the app, with its
	// README.
	sdk       fs.FS
	sdkDir    string
	sdkReadme []byte
	// next says how to go on, after `endpoints dev APP`.
	next string
}

// langApps are the languages of --lang besides go.
var langApps = map[string]langApp{
	"c": {
		name:      "C",
		files:     map[string]string{"c/hello.get.c": "server/api/hello.get.c", "c/compile_flags.txt": "compile_flags.txt"},
		sdk:       csdk.Files, // endpoints.h and the endpoints_db.h it includes
		sdkDir:    "vendor/endpoints-c",
		sdkReadme: csdk.README,
		next:      "endpoints build compiles it with clang (Debian: apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32).",
	},
	"as": {
		name:      "AssemblyScript",
		files:     map[string]string{"as/hello.get.ts": "server/api/hello.get.ts", "as/package.json": "package.json", "as/tsconfig.json": "tsconfig.json", "as/gitignore": ".gitignore"},
		sdk:       assdk.Files,
		sdkDir:    "vendor/endpoints-assemblyscript",
		sdkReadme: assdk.README,
		next:      "The first build runs npm install there, which fetches the compiler (" + assdk.Compiler + ").",
	},
	"rs": {
		name:      "Rust",
		files:     map[string]string{"rs/hello.get.rs": "server/api/hello.get.rs", "rs/Cargo.toml": "Cargo.toml", "rs/gitignore": ".gitignore"},
		sdk:       rustsdk.Files,
		sdkDir:    "vendor/endpoints-rust",
		sdkReadme: rustsdk.README,
		next:      "endpoints build compiles it with rustc and its wasm32 standard library, offline (Debian: apt-get install rustc libstd-rust-dev-wasm32).",
	},
}

// newLangApp writes an app whose routes are in data.Lang (not Go) into
// app, which must not exist or be empty.
func newLangApp(app string, data appData, stdout, stderr io.Writer) int {
	l := langApps[data.Lang]
	data = withLang(data)
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
	vendored := filepath.Join(app, filepath.FromSlash(l.sdkDir))
	if err := os.CopyFS(vendored, l.sdk); err != nil {
		fmt.Fprintf(stderr, "endpoints new: writing the SDK's sources: %v\n", err)
		return exitError
	}
	if err := os.WriteFile(filepath.Join(vendored, "README.md"), l.sdkReadme, 0o644); err != nil {
		fmt.Fprintf(stderr, "endpoints new: writing the SDK's README: %v\n", err)
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

// withLang fills what the templates of a data.Lang app need besides the
// names: the extension of its sources, the SDK's directory, the compiler.
func withLang(data appData) appData {
	_, data.ASCompilerVersion, _ = strings.Cut(assdk.Compiler, "@")
	data.Ext = map[string]string{"c": "c", "as": "ts", "rs": "rs"}[data.Lang]
	data.SDKDir = langApps[data.Lang].sdkDir
	return data
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

// appLang is the language of app's routes: flag when set, else told by the
// editor files `endpoints new --lang` writes (Cargo.toml, package.json,
// compile_flags.txt), else "go" when app is in a Go module.
func appLang(app, flag string) (string, error) {
	if flag != "" {
		if _, ok := langApps[flag]; !ok && flag != "go" {
			return "", fmt.Errorf("--lang %s: want go, c, as (AssemblyScript) or rs (Rust)", flag)
		}
		return flag, nil
	}
	for _, m := range []struct{ file, lang string }{{"Cargo.toml", "rs"}, {"package.json", "as"}, {"compile_flags.txt", "c"}} {
		if _, err := os.Stat(filepath.Join(app, m.file)); err == nil {
			return m.lang, nil
		}
	}
	if err := checkApp(app); err != nil {
		return "", fmt.Errorf("%w; for a C, AssemblyScript or Rust app, say --lang c, as or rs", err)
	}
	return "go", nil
}

// newLangRoute adds to a C, AssemblyScript or Rust app the source of a
// route beside the module it builds, and in Rust its Cargo.toml entry.
func newLangRoute(app, lang string, rf routefile.Route, stdout, stderr io.Writer) int {
	if err := checkAppDir(app); err != nil {
		fmt.Fprintf(stderr, "endpoints new route: %v\n", err)
		return exitError
	}
	sources, err := guestbuild.Find(app)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints new route: reading the routes of %s: %v\n", app, err)
		return exitError
	}
	if i := slices.IndexFunc(sources, func(s guestbuild.Source) bool { return s.Module == rf.File }); i >= 0 {
		fmt.Fprintf(stderr, "endpoints new route: %s is already served by %s (it builds %s)\n", rf, filepath.Join(app, filepath.FromSlash(sources[i].Path)), rf.File)
		return exitError
	}
	ext := map[string]string{"c": "c", "as": "ts", "rs": "rs"}[lang]
	data := newRouteData(rf)
	data.Separators = make([]string, len(data.Params))
	for i := range data.Separators {
		data.Separators[i] = ","
	}
	if len(data.Separators) > 0 {
		data.Separators[0] = "{"
	}
	data.Contract = routeContract(data)
	src := strings.TrimSuffix(rf.File, ".wasm") + "." + ext
	if err := create(app, src, "route/route."+ext, data); err != nil {
		fmt.Fprintf(stderr, "endpoints new route: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "created %s, which builds %s:\n  %s\n", rf, rf.File, filepath.Join(app, filepath.FromSlash(src)))
	if lang == "rs" {
		entry := fmt.Sprintf("\n[[example]]\nname = %s\npath = %s\ncrate-type = [\"cdylib\"]\n", jsonString(data.Name), jsonString(src))
		f, err := os.OpenFile(filepath.Join(app, "Cargo.toml"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(entry)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "endpoints new route: adding the route to Cargo.toml (for rust-analyzer; the build does not need it): %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "  %s (its [[example]], for rust-analyzer)\n", filepath.Join(app, "Cargo.toml"))
	}
	fmt.Fprintf(stdout, "\nNext:\n  endpoints dev %s\n  %s\n", app, curlCommand(rf.Method, data.URL))
	return exitOK
}

// routeContract is the contract of a scaffolded route as JSON, for
// languages that write it as a string (C): its path parameters as strings
// of at most 200 characters, a 200 answer of the object WantBody shows.
func routeContract(d routeData) string {
	props, answer := map[string]any{}, map[string]any{}
	var required []string
	for _, p := range d.Params {
		props[p.Name] = map[string]any{"type": "string", "maxLength": 200, "description": "The " + p.Name + " in the path."}
		answer[p.Name] = map[string]any{"type": "string"}
		required = append(required, p.Name)
	}
	if len(d.Params) == 0 {
		answer["message"] = map[string]any{"type": "string"}
		required = nil
	}
	answerRequired := required
	if len(d.Params) == 0 {
		answerRequired = []string{"message"}
	}
	c := map[string]any{
		"summary": d.Summary,
		"responses": map[string]any{"200": map[string]any{"description": "OK", "schema": map[string]any{
			"type": "object", "properties": answer, "required": answerRequired, "additionalProperties": false}}},
	}
	if d.Tag != "" {
		c["tags"] = []string{d.Tag}
	}
	if len(d.Params) > 0 {
		c["request"] = map[string]any{"params": map[string]any{"type": "object", "properties": props, "required": required}}
	}
	return mustJSON(c)
}

// mustJSON encodes v, which holds only maps, slices, strings and numbers,
// as JSON without HTML escapes.
func mustJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // maps of strings and numbers always encode
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonString is v as JSON without HTML escapes: for a string, a literal
// TypeScript and Rust read as the same string.
func jsonString(v any) string { return mustJSON(v) }

// cString is s as a C string literal: quotes, backslashes and bytes
// outside printable ASCII escaped (octal, three digits, so that a digit
// after one is not read into it).
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '?':
			b.WriteString(`\?`) // no trigraphs
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
