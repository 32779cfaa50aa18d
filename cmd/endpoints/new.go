package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/routefile"
)

// sdkModule is the module path of Endpoints, whose guest-sdk/go package
// every scaffolded route imports.
const sdkModule = "github.com/wasmendpoints/endpoints"

// handlersDir is where `endpoints new` puts Go route packages, relative to
// the app.
const handlersDir = "handlers"

// newUsage is the help of endpoints new and endpoints new route.
const newUsage = `usage: endpoints new [--lang go|c|as|rs] [--sdk DIR] APP
       endpoints new route [--dir DIR] APP 'METHOD /path'

new APP creates the directory APP (which must not exist, or be empty) with
endpoints.json, the route GET /api/hello?name=, a development signing key
for the bearer scheme endpoints.json configures (auth/dev-signing-key.jwk,
which endpoints token signs with, and auth/jwks.json) and a README.

--lang go (the default) writes a Go module named after APP with the route's
package and its test, then runs go mod tidy there. --lang c, as
(AssemblyScript) and rs (Rust) write server/api/hello.get.{c,ts,rs} and the
SDK's sources under vendor/ for editors: compile_flags.txt (clangd),
package.json and tsconfig.json (npm install fetches the compiler), or
Cargo.toml (rust-analyzer; endpoints build compiles with rustc, offline).

In Go, a released endpoints requires the release of
` + sdkModule + ` it belongs to; a development
build (go run or go install from a checkout) builds against that checkout,
with a replace line in go.mod; --sdk names another checkout.

new route APP 'GET /api/things/:id' adds the package handlers/get-things-id
to a Go app: a Go route for that method and path with its path parameters, a
declared 200 answer and a test; endpoints build links it into the app's Go
bundle, server/bundles/go.wasm. --dir puts the package elsewhere in the
app (--dir handlers/users/get-avatar): under a directory that endpoints.json's
"goBundles" names, the route joins that bundle. To a C, AssemblyScript or Rust app it adds
server/api/things/[id].get.{c,ts,rs} (and, in Rust, its entry in
Cargo.toml); the app's language is told by its Cargo.toml, package.json or
compile_flags.txt, else its go.mod (--lang overrides). Methods: GET, POST,
PUT, PATCH, DELETE, HEAD, OPTIONS; :name is a path parameter. A catch-all
(**:name) serves a plain route, which new route does not write. (An app
named "route": endpoints new ./route)

Flags of new (and new route):
  --lang L    the language of the app's routes: go, c, as or rs
  --sdk DIR   (go) build against the Endpoints checkout in DIR, with a
              replace line in go.mod, instead of a published version
  --dir DIR   (new route, go) the route's package directory in the app,
              instead of handlers/NAME

Examples:
  endpoints new shop
  endpoints new --lang rs shop-rs
  endpoints new route shop 'GET /api/products/:id'
  endpoints dev shop
`

//go:embed templates
var templates embed.FS

// cmdNew runs `endpoints new APP` and `endpoints new route APP ROUTE`.
func cmdNew(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "route" {
		return cmdNewRoute(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	sdk := fs.String("sdk", "", "directory of an Endpoints checkout to build against")
	lang := fs.String("lang", "go", "the language of the routes: go, c, as or rs")
	pos, ok := positionals(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "endpoints new: want exactly one APP directory, got %d arguments\n\n%s", len(pos), newUsage)
		return exitUsage
	}
	app := pos[0]
	abs, err := filepath.Abs(app)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints new: %v\n", err)
		return exitError
	}
	data := appData{SDKModule: sdkModule, Module: moduleName(filepath.Base(abs)), Title: appTitle(filepath.Base(abs)), Lang: *lang, SDKDir: "guest-sdk/go"}
	if *lang != "go" {
		if _, ok := langApps[*lang]; !ok {
			fmt.Fprintf(stderr, "endpoints new: --lang %s: want go, c, as (AssemblyScript) or rs (Rust)\n\n%s", *lang, newUsage)
			return exitUsage
		}
		if *sdk != "" {
			fmt.Fprintf(stderr, "endpoints new: --sdk is for Go apps; a %s app builds with the SDK this endpoints ships\n", *lang)
			return exitUsage
		}
		return newLangApp(app, data, stdout, stderr)
	}
	if *sdk != "" {
		if data.SDK, err = sdkDir(*sdk); err != nil {
			fmt.Fprintf(stderr, "endpoints new: --sdk %s: %v\n", *sdk, err)
			return exitUsage
		}
	} else if v := version(); strings.HasPrefix(v, "v") && !strings.Contains(v, "+") {
		data.Version = v // a released CLI requires the SDK of its own release
	} else if dir := checkoutOfThisBuild(); dir != "" {
		// A development build (go run, go install from a checkout) builds
		// against the checkout it was built from.
		data.SDK = dir
		fmt.Fprintf(stdout, "using the Endpoints checkout at %s (this endpoints is a development build; --sdk DIR picks another)\n", dir)
	}
	if err := emptyDir(app); err != nil {
		fmt.Fprintf(stderr, "endpoints new: %v\n", err)
		return exitError
	}

	files := []struct{ template, out string }{
		{"go.mod", "go.mod"},
		{"endpoints.json", "endpoints.json"},
		{"README.md", "README.md"},
		{"hello/main.go", "handlers/hello/main.go"},
		{"hello/main_test.go", "handlers/hello/main_test.go"},
	}
	fmt.Fprintf(stdout, "created %s (module %s):\n", app, data.Module)
	for _, f := range files {
		if err := create(app, f.out, f.template, data); err != nil {
			fmt.Fprintf(stderr, "endpoints new: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "  %s\n", filepath.Join(app, filepath.FromSlash(f.out)))
	}
	if !newDevKey(app, stdout, stderr) {
		return exitError
	}
	if err := goModTidy(ctx, app); err != nil {
		fmt.Fprintf(stderr, "\nendpoints new: %v\n", err)
		fmt.Fprintf(stderr, "The files above are written; fix the cause and run go mod tidy in %s.\n", app)
		if data.SDK == "" {
			fmt.Fprintf(stderr, "If %s is not published where Go looks for modules, build against a checkout of it instead:\n"+
				"remove %s and run endpoints new --sdk DIR %s, with DIR the checkout.\n", sdkModule, app, app)
		}
		return exitError
	}
	fmt.Fprintf(stdout, "  %s (go mod tidy)\n", filepath.Join(app, "go.sum"))
	fmt.Fprintf(stdout, "\nNext:\n  endpoints dev %s\n  curl 'http://127.0.0.1:3000/api/hello?name=Ada'\n", app)
	fmt.Fprintf(stdout, "A development token for the bearer scheme: endpoints token %s --sub alice\n", app)
	fmt.Fprintf(stdout, "Test the route natively:\n  %s\nAdd one:\n  endpoints new route %s 'GET /api/things/:id'\n", inApp(app, "go test ./..."), app)
	return exitOK
}

// cmdNewRoute runs `endpoints new route APP ROUTE`.
func cmdNewRoute(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("new route", flag.ContinueOnError)
	lang := fs.String("lang", "", "the route's language: go, c, as or rs (default: the app's)")
	pkgDir := fs.String("dir", "", "(go) the route's package directory in the app (default handlers/NAME)")
	pos, ok := positionals(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	if len(pos) == 3 { // the route unquoted: GET /api/things/:id
		pos = []string{pos[0], pos[1] + " " + pos[2]}
	}
	if len(pos) != 2 {
		fmt.Fprintf(stderr, "endpoints new route: want APP and a route such as 'GET /api/things/:id', got %d arguments\n\n%s", len(pos), newUsage)
		return exitUsage
	}
	app := pos[0]
	rf, err := parseNewRoute(pos[1])
	if err != nil {
		fmt.Fprintf(stderr, "endpoints new route: %v\n", err)
		return exitUsage
	}
	appLanguage, err := appLang(app, *lang)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints new route: %v\n", err)
		return exitError
	}
	if appLanguage != "go" {
		if *pkgDir != "" {
			fmt.Fprintf(stderr, "endpoints new route: --dir names a Go route's package; a %s route is %s\n", appLanguage, rf.File)
			return exitUsage
		}
		return newLangRoute(app, appLanguage, rf, stdout, stderr)
	}
	if *pkgDir != "" {
		if *pkgDir, err = routePackageDir(*pkgDir); err != nil {
			fmt.Fprintf(stderr, "endpoints new route: --dir: %v\n", err)
			return exitUsage
		}
	}
	if err := checkApp(app); err != nil {
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
	data := newRouteData(rf)
	dir := cmp.Or(*pkgDir, path.Join(handlersDir, data.Name))
	if _, err := os.Lstat(filepath.Join(app, filepath.FromSlash(dir))); err == nil {
		fmt.Fprintf(stderr, "endpoints new route: %s already exists: remove it, or write %s there by hand\n", filepath.Join(app, filepath.FromSlash(dir)), rf)
		return exitError
	}
	cfg, err := config.Load(app)
	switch {
	case err == nil && !cfg.Build.BundlesGo():
		fmt.Fprintf(stdout, "created %s, which builds %s:\n", rf, rf.File)
	case err == nil:
		fmt.Fprintf(stdout, "created %s, served by the app's Go bundle %s (%s with \"build\": {\"goBundle\": false}):\n", rf, cfg.Build.GoBundleOf(dir, guestbuild.BundleModule), rf.File)
	default:
		fmt.Fprintf(stdout, "created %s, served by the app's Go bundle %s (%s with \"build\": {\"goBundle\": false}):\n", rf, guestbuild.BundleModule, rf.File)
	}
	for _, f := range []string{"main.go", "main_test.go"} {
		out := path.Join(dir, f)
		if err := create(app, out, "route/"+f, data); err != nil {
			fmt.Fprintf(stderr, "endpoints new route: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "  %s\n", filepath.Join(app, filepath.FromSlash(out)))
	}
	fmt.Fprintf(stdout, "\nNext:\n  endpoints dev %s\n  %s\n", app, curlCommand(rf.Method, data.URL))
	fmt.Fprintf(stdout, "Test it natively:\n  %s\n", inApp(app, "go test ./"+dir))
	return exitOK
}

// curlCommand is the curl command line that calls the new route at url
// on the address endpoints dev listens on by default: curl sends GET
// unless told another method, and a GET of a PATCH route's path reaches
// another route, or a 405.
func curlCommand(method, url string) string {
	target := "http://127.0.0.1:3000" + url
	switch method {
	case http.MethodGet:
		return "curl -i " + target
	case http.MethodHead:
		return "curl -I " + target
	}
	return "curl -i -X " + method + " " + target
}

// inApp is the command line that runs command in app from where the
// command ran: command alone when app is the current directory, else
// cd APP && command. ("go test ./x in ." read as the parent directory.)
func inApp(app, command string) string {
	if filepath.Clean(app) == "." {
		return command
	}
	return "cd " + app + " && " + command
}

// routePackageDir checks dir, a Go route's package directory that --dir
// names, and returns it relative to the app with forward slashes: a
// directory inside the app that endpoints build searches (no element
// hidden, starting with "_", testdata, vendor or node_modules, which Go
// or the build skip).
func routePackageDir(dir string) (string, error) {
	d := path.Clean(filepath.ToSlash(dir))
	if filepath.IsAbs(dir) || path.IsAbs(d) || d == "." || d == ".." || strings.HasPrefix(d, "../") {
		return "", fmt.Errorf("%q: want a directory inside the app, relative to it, such as handlers/users/get-avatar", dir)
	}
	for _, e := range strings.Split(d, "/") {
		if strings.HasPrefix(e, ".") || strings.HasPrefix(e, "_") || e == "testdata" || e == "vendor" || e == "node_modules" {
			return "", fmt.Errorf("%q: endpoints build never looks in %q (hidden, _, testdata, vendor and node_modules are skipped, as Go skips them)", dir, e)
		}
	}
	return d, nil
}

// positionals parses flags, which may come before, between or after the
// positional arguments, and returns the positional ones.
func positionals(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, newUsage) }
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false
		}
		if fs.NArg() == 0 {
			return pos, true
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseNewRoute reads a route in the form `endpoints routes` prints and
// checks that an endpoint can serve it: one method, no optional or
// catch-all segments (docs/spec.md §2).
func parseNewRoute(route string) (routefile.Route, error) {
	method, p, _ := strings.Cut(strings.TrimSpace(route), " ")
	if method == "*" {
		return routefile.Route{}, fmt.Errorf("route %q: name one method; a scaffolded route serves one (GET /api/things/:id)", route)
	}
	// Accept "get /api/x": FromRoute wants the method as routes print it.
	rf, err := routefile.FromRoute(strings.ToUpper(method) + " " + strings.TrimSpace(p))
	if err != nil {
		return routefile.Route{}, err
	}
	if rf.Dynamic() {
		return routefile.Route{}, fmt.Errorf("route %q: an endpoint cannot sit on an optional (:name?) or catch-all (**:name) segment; use :name segments, or, "+
			"a catch-all serves a plain route, which new route does not write: in Go, a main package with the line %s %s that calls endpoints.HandleRaw "+
			"(go doc github.com/wasmendpoints/endpoints/guest-sdk/go, \"Plain routes\")", route, guestbuild.Directive, rf)
	}
	return rf, nil
}

// checkApp checks that app is a directory inside a Go module.
func checkApp(app string) error {
	info, err := os.Stat(app)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("app %s does not exist: create it with endpoints new %s", app, app)
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("app %s is not a directory", app)
	}
	abs, err := filepath.Abs(app)
	if err != nil {
		return err
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return nil
		}
		if filepath.Dir(dir) == dir {
			return fmt.Errorf("app %s is not in a Go module (no go.mod in it or above it), which Go routes need: run go mod init there, or create apps with endpoints new", app)
		}
	}
}

// emptyDir makes sure dir is an empty directory, creating it when it does
// not exist.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		if info, serr := os.Stat(dir); serr == nil && !info.IsDir() {
			return fmt.Errorf("%s exists and is not a directory: choose another name", dir)
		}
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s exists and is not empty (it holds %s): choose a new directory, or add a route to an app with endpoints new route %s 'GET /api/things/:id'", dir, entries[0].Name(), dir)
	}
	return nil
}

// sdkDir returns the absolute path of dir after checking that it holds
// the Endpoints module.
// checkoutOfThisBuild finds the checkout a development build of the CLI
// was built from: the source directory the binary records for this file
// (go build without -trimpath), else a checkout holding the working
// directory. "" when there is none. A variable, so that tests can pretend
// to be a released build.
var checkoutOfThisBuild = func() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if dir, err := sdkDir(filepath.Join(filepath.Dir(file), "..", "..")); err == nil {
			return dir
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if abs, err := sdkDir(dir); err == nil {
			return abs
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

func sdkDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	f, err := os.Open(filepath.Join(abs, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("not a checkout of %s: %w", sdkModule, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module")
		if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		name := strings.TrimSpace(rest)
		if unquoted, err := strconv.Unquote(name); err == nil {
			name = unquoted
		}
		if name != sdkModule {
			return "", fmt.Errorf("go.mod there is module %s, want %s", name, sdkModule)
		}
		return abs, nil
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("go.mod there has no module line; want module %s", sdkModule)
}

// goModTidy runs go mod tidy in dir, which writes go.sum.
func goModTidy(ctx context.Context, dir string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("go mod tidy in %s: %w (install Go 1.26 or newer)", dir, err)
	}
	cmd := exec.CommandContext(ctx, goTool, "mod", "tidy")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go mod tidy in %s: %w\n%s", dir, err, bytes.TrimSpace(out))
	}
	return nil
}

// create renders the template into the new file app/rel, creating its
// directory; it never overwrites a file.
func create(app, rel, tmpl string, data any) error {
	content, err := render(tmpl, data)
	if err != nil {
		return err
	}
	file := filepath.Join(app, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// templateFuncs are the functions the templates call.
var templateFuncs = template.FuncMap{
	// json is a value as JSON.
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	// raw is s as a Go raw string literal; s holds no backquote.
	"raw": func(s string) string { return "`" + s + "`" },
	// jsonString is s as a JSON string, which is also a valid string
	// literal in TypeScript and Rust (no \u escapes: HTML is not escaped).
	"jsonString": jsonString,
	// cstring is s as a C string literal.
	"cstring": cString,
	// modPath is a directory path as a go.mod token, quoted when needed.
	"modPath": func(p string) string {
		if strings.ContainsFunc(p, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r == '+' || r == ':' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		}) {
			return strconv.Quote(p)
		}
		return p
	},
}

// render executes the template templates/NAME.tmpl; Go source comes out
// gofmt-formatted.
func render(name string, data any) ([]byte, error) {
	src, err := templates.ReadFile("templates/" + name + ".tmpl")
	if err != nil {
		return nil, err
	}
	t, err := template.New(name).Funcs(templateFuncs).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	if !strings.HasSuffix(name, ".go") {
		return b.Bytes(), nil
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("template %s gave Go that does not parse: %w\n%s", name, err, b.Bytes())
	}
	return out, nil
}

// appData fills the templates of `endpoints new APP`.
type appData struct {
	Lang              string // go, c, as or rs
	ASCompilerVersion string // the AssemblyScript compiler's version (as)
	Ext               string // the route sources' extension: c, ts or rs
	SDKDir            string // where the SDK's README is: guest-sdk/go in the repository, or the app's vendor/endpoints-c...
	Module            string // the app's module path
	Title             string // the OpenAPI title and the README's heading
	SDKModule         string // sdkModule
	SDK               string // absolute directory of the --sdk checkout, or ""
	Version           string // the SDK version to require without --sdk, or "" to let go mod tidy pick the latest
}

// moduleName turns a directory name into a module path: lower case, runs
// of other characters than letters, digits, '.', '_' and '~' become one
// '-'. It is "app" when nothing is left.
func moduleName(base string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(base) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '.' || r == '_' || r == '~' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	name := strings.Trim(b.String(), "._~-")
	if name == "" {
		return "app"
	}
	return name
}

// appTitle is the API's title: the words of the directory name,
// capitalised, and "API": "my_shop" gives "My Shop API".
func appTitle(base string) string {
	words := strings.FieldsFunc(base, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	if len(words) == 0 {
		words = []string{"App"}
	}
	return strings.Join(words, " ") + " API"
}

// routeData fills the templates of `endpoints new route`.
type routeData struct {
	Route    string       // GET /api/things/:id
	Name     string       // get-things-id: the package directory under handlers
	Module   string       // server/api/things/[id].get.wasm
	Summary  string       // Get things by id
	Tag      string       // things: the first static segment below /api, or ""
	Type     string       // GetThingsIDResponse: the 200 answer's type
	URL      string       // /api/things/1: the route with example parameters
	TestName string       // the name of the generated test case
	WantBody string       // the answer to URL, as JSON
	Params   []routeParam // in path order
	// Contract is the contract as JSON and Separators what precedes each
	// parameter's member in the answer ("{" then ","): for C.
	Contract   string
	Separators []string
}

// routeParam is one path parameter of a scaffolded route.
type routeParam struct {
	Name    string // as in the path: id
	Field   string // the Go field: ID
	Example string // the value the test and URL use: "1", "2", ...
}

// newRouteData derives what the route templates need from the route.
func newRouteData(rf routefile.Route) routeData {
	d := routeData{Route: rf.String(), Module: rf.File}
	segs := rf.Segments
	if strings.HasPrefix(rf.File, "server/api/") && len(segs) > 0 {
		segs = segs[1:] // the /api every name would start with
	}
	nameParts := []string{strings.ToLower(rf.Method)}
	var words, params []string
	var url strings.Builder
	seen := map[string]bool{}
	for _, s := range rf.Segments {
		url.WriteByte('/')
		if s.Kind == routefile.Static {
			url.WriteString(s.Value)
			continue
		}
		p := routeParam{Name: s.Value, Field: goField(s.Value), Example: strconv.Itoa(len(d.Params) + 1)}
		for base, n := p.Field, 2; seen[p.Field]; n++ {
			p.Field = base + strconv.Itoa(n)
		}
		seen[p.Field] = true
		d.Params = append(d.Params, p)
		params = append(params, s.Value)
		url.WriteString(p.Example)
	}
	for _, s := range segs {
		nameParts = append(nameParts, s.Value)
		if s.Kind == routefile.Static {
			words = append(words, s.Value)
			if d.Tag == "" {
				d.Tag = s.Value
			}
		}
	}
	if len(segs) == 0 {
		nameParts = append(nameParts, "index")
	}
	d.Name = moduleName(strings.Join(nameParts, "-"))
	d.URL = url.String()
	if d.URL == "" {
		d.URL = "/"
	}
	if len(words) == 0 {
		words = []string{"root"}
	}
	d.Summary = string(unicode.ToUpper(rune(nameParts[0][0]))) + nameParts[0][1:] + " " + strings.Join(words, " ")
	if len(params) > 0 {
		d.Summary += " by " + strings.Join(params, " and ")
	}
	for _, part := range strings.FieldsFunc(d.Name, func(r rune) bool { return r == '-' || r == '.' || r == '_' || r == '~' }) {
		d.Type += exported(part)
	}
	d.Type += "Response"
	d.TestName = "answers 200"
	body := map[string]string{"message": d.Route}
	keys := []string{"message"}
	if len(d.Params) > 0 {
		d.TestName = "answers 200 with the path parameters"
		body, keys = map[string]string{}, nil
		for _, p := range d.Params {
			body[p.Name] = p.Example
			keys = append(keys, p.Name)
		}
	}
	var want bytes.Buffer
	want.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			want.WriteByte(',')
		}
		kj, _ := json.Marshal(k) // strings always encode
		vj, _ := json.Marshal(body[k])
		want.Write(kj)
		want.WriteByte(':')
		want.Write(vj)
	}
	want.WriteByte('}')
	d.WantBody = want.String()
	return d
}

// initialisms are written in capitals in Go names (Effective Go).
var initialisms = map[string]bool{
	"api": true, "html": true, "http": true, "id": true, "ip": true, "json": true,
	"sku": true, "sql": true, "uid": true, "uri": true, "url": true, "uuid": true,
}

// exported is a word as an exported Go name: "id" is "ID", "things" is
// "Things".
func exported(word string) string {
	if initialisms[strings.ToLower(word)] {
		return strings.ToUpper(word)
	}
	r := []rune(word)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// goField names the input field of a path parameter (letters, digits and
// '_'): user_id is UserID. Body, which the SDK reads as the request body,
// becomes BodyParam.
func goField(param string) string {
	var name string
	for _, part := range strings.Split(param, "_") {
		if part != "" {
			name += exported(part)
		}
	}
	if name == "" || !unicode.IsLetter(rune(name[0])) {
		name = "P" + name
	}
	if name == "Body" {
		name = "BodyParam"
	}
	return name
}
