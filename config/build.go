package config

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/internal/glob"
)

// Build is the "build" member of endpoints.json: a command that
// turns sources the built-in builds (Go, C, WAT) do not know, such as
// AssemblyScript, into route modules, and the files whose saves rerun it:
//
//	{"command": "npm run asbuild", "watch": ["assembly/**/*.ts", "package.json"]}
//
// `endpoints build` runs the command after the built-in builds, and so does
// `endpoints dev` before it serves; under `endpoints dev` a saved file
// matching a watch pattern runs it again, and the modules it writes are
// reloaded like any other.
//
// # Notes
//
//   - The command runs through `sh -c` in the app directory, with the
//     environment of the endpoints process. A non-zero exit fails the build.
//   - A watch pattern is a path relative to the app, with forward slashes,
//     in the syntax of [path.Match] ("*" and "?" stay within one directory,
//     "[a-z]" is a class) plus "**" as a whole segment for any number of
//     directories: "assembly/**/*.ts" matches assembly/index.ts and
//     assembly/lib/util.ts. It may not be absolute or use "..".
//   - Hidden files and directories and those named node_modules, vendor,
//     testdata or starting with "_" are not watched.
//   - Watch the sources, not what the command writes: a command that
//     writes a file matching a pattern would run again and again.
type Build struct {
	// Command is the shell command line to run. Required when "build" is
	// present.
	Command string `json:"command,omitzero"`
	// Watch lists the glob patterns of the files whose saves rerun Command
	// under `endpoints dev`. Without it, dev runs Command once, at start.
	Watch []string `json:"watch,omitzero"`
	// GoBundle says whether `endpoints build` and `endpoints dev` link the
	// app's Go routes into one module, server/bundles/go.wasm, that serves
	// them all (false: one module per route, as each directive names).
	// Defaults to [DefaultGoBundle]. A bundle shares one Go runtime, SDK
	// and common code among the routes: far less memory and build time,
	// less isolation (see RATIONALE.md).
	//
	//	{"build": {"goBundle": false}}
	GoBundle *bool `json:"goBundle,omitempty"`
	// GoBundles splits the bundle: the Go routes and middleware whose
	// package directory (relative to the app) matches a pattern of NAME
	// (in the syntax of Watch) build into server/bundles/NAME.wasm, the
	// others into server/bundles/go.wasm. A route matching two bundles'
	// patterns goes to the first name in byte order. Each bundle is
	// rebuilt and reloaded alone, and carries only the code its routes
	// import: a group of routes that import net/http, or that change
	// often, can have one of its own. NAME is letters, digits, '-' and
	// '_', and not "go"; it needs GoBundle true.
	//
	//	{"build": {"goBundles": {"admin": ["handlers/admin/**"]}}}
	GoBundles map[string][]string `json:"goBundles,omitzero"`
}

// GoBundleOf is the bundle module ("server/bundles/NAME.wasm", relative to
// the app) that the Go package in dir (relative to the app, forward
// slashes) builds into by [Build.GoBundles], or def when no bundle's
// patterns match it.
func (b Build) GoBundleOf(dir, def string) string {
	for _, name := range slices.Sorted(maps.Keys(b.GoBundles)) {
		if slices.ContainsFunc(b.GoBundles[name], func(p string) bool { return glob.Match(p, dir) }) {
			return "server/bundles/" + name + ".wasm"
		}
	}
	return def
}

// DefaultGoBundle is the default of [Build.GoBundle]: Go routes are
// bundled.
const DefaultGoBundle = true

// BundlesGo reports whether the app's Go routes build into one module:
// [Build.GoBundle], or [DefaultGoBundle] when it is not set.
func (b Build) BundlesGo() bool {
	if b.GoBundle == nil {
		return DefaultGoBundle
	}
	return *b.GoBundle
}

// checkBuild checks the "build" member: a command whenever the member is
// present, and watch patterns that are clean globs relative to the app.
func checkBuild(file string, data []byte, b Build) error {
	if strings.TrimSpace(b.Command) == "" {
		// The member may be present yet empty ({} or only "watch").
		var probe struct {
			Build jsontext.Value `json:"build"`
		}
		// "goBundle" alone is a whole member: it sets the built-in Go build.
		if err := json.Unmarshal(data, &probe); err == nil && len(probe.Build) > 0 && probe.Build.Kind() != 'n' && (b.GoBundle == nil && b.GoBundles == nil || len(b.Watch) > 0) {
			return badSetting(file, "/build/command", "required when \"build\" is present: the shell command that builds the modules, such as \"npm run asbuild\"")
		}
	}
	for i, p := range b.Watch {
		if problem := globProblem(p); problem != "" {
			return badSetting(file, fmt.Sprintf("/build/watch/%d", i), "%q %s", p, problem)
		}
	}
	if len(b.GoBundles) > 0 && !b.BundlesGo() {
		return badSetting(file, "/build/goBundles", "splits the Go bundle, but \"goBundle\" is false: remove one of the two")
	}
	for _, name := range slices.Sorted(maps.Keys(b.GoBundles)) {
		if !bundleName(name) {
			return badSetting(file, "/build/goBundles/"+name, "%q is no bundle name: letters, digits, '-' and '_' (server/bundles/NAME.wasm), and not \"go\", the bundle of the other Go routes", name)
		}
		if len(b.GoBundles[name]) == 0 {
			return badSetting(file, "/build/goBundles/"+name, "lists no pattern: give the package directories of its routes, such as \"handlers/admin/**\"")
		}
		for i, p := range b.GoBundles[name] {
			if problem := globProblem(p); problem != "" {
				return badSetting(file, fmt.Sprintf("/build/goBundles/%s/%d", name, i), "%q %s", p, problem)
			}
		}
	}
	return nil
}

// bundleName reports whether name names a bundle of GoBundles.
func bundleName(name string) bool {
	if name == "" || name == "go" {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

// globProblem says what is wrong with a pattern of Watch or GoBundles;
// "" when nothing is.
func globProblem(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.HasPrefix(p, "/"):
		return "must be relative to the app, not absolute"
	case slices.Contains(strings.Split(p, "/"), ".."):
		return "must not leave the app with \"..\""
	case path.Clean(p) != p:
		return fmt.Sprintf("is not a clean path; write %q", path.Clean(p))
	}
	for _, seg := range strings.Split(p, "/") {
		if strings.Contains(seg, "**") && seg != "**" {
			return fmt.Sprintf("uses \"**\" inside the segment %q; \"**\" must be a whole segment, as in \"src/**/*.ts\"", seg)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Sprintf("is not a valid glob (%v) in the segment %q", err, seg)
		}
	}
	return ""
}
