package guestbuild

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	assdk "github.com/wasmendpoints/endpoints/guest-sdk/assemblyscript"
)

// ascFlags are the flags AssemblyScript passes to asc after the source and
// -o:
//
//   - --optimizeLevel 3 --shrinkLevel 1: handlers run once per request;
//     size and speed both matter.
//   - --exportStart _initialize: the top-level statements (where a route
//     calls endpoint or plainRoute) run in the export the host calls once
//     per instance (abi.StartFunction), not in a start section.
//   - --use abort=...: failed assertions and throws are logged through the
//     host's log function and trap, so the module imports no env.abort.
//   - --use Date=...: Date.now() reads WASI's clock, so the module imports
//     no env.Date.now.
var ascFlags = []string{
	"--optimizeLevel", "3",
	"--shrinkLevel", "1",
	"--exportStart", "_initialize",
	"--use", "abort=" + assdk.AbortFunction,
	"--use", "Date=" + assdk.DateClass,
}

// npmInstalls serialises `npm install` per app directory: the sources of
// one app build in parallel, and all of them need the compiler.
var npmInstalls sync.Map // app directory → *sync.Mutex

// AssemblyScript compiles one AssemblyScript route source into a route
// module with the app's AssemblyScript compiler, writing it to out. The
// source imports the SDK as "@wasmendpoints/assemblyscript" and re-exports
// its ABI exports:
//
//	export * from "@wasmendpoints/assemblyscript/exports";
//
// The compiler is node_modules/.bin/asc of appDir (or of a directory
// above it). When the app has a package.json and no compiler yet,
// AssemblyScript runs `npm install` in appDir first. The SDK is the app's
// node_modules/@wasmendpoints/assemblyscript when installed, otherwise the
// copy this program was built with (package assdk). The command runs in
// appDir:
//
//	asc <src> -o <out> --optimizeLevel 3 --shrinkLevel 1 \
//	    --exportStart _initialize \
//	    --use abort=~lib/@wasmendpoints/assemblyscript/abort/endpointsAbort \
//	    --use Date=~lib/@wasmendpoints/assemblyscript/clock/EndpointsDate
//
// out is replaced atomically, as for [C]. The error names src and holds the
// compiler's diagnostics.
func AssemblyScript(ctx context.Context, appDir, src, out string) error {
	const what = "compile AssemblyScript route"
	appDir, err := filepath.Abs(appDir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	// asc runs in appDir: name the source absolutely.
	absSrc, err := filepath.Abs(src)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	asc, err := findASC(ctx, appDir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	args := []string{absSrc, "-o", "OUT"}
	args = append(args, ascFlags...)
	if !hasSDK(appDir) {
		dir, err := os.MkdirTemp("", "endpoints-assdk-")
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, src, err)
		}
		defer os.RemoveAll(dir)
		if err := writeFS(assdk.Files, filepath.Join(dir, filepath.FromSlash(assdk.Package))); err != nil {
			return fmt.Errorf("%s %s: %w", what, src, err)
		}
		args = append(args, "--path", dir)
	}
	return runToolchain(ctx, what, src, out, func(tmp string) *exec.Cmd {
		a := append([]string{}, args...)
		a[2], _ = filepath.Abs(tmp) // asc runs in appDir
		cmd := exec.CommandContext(ctx, asc, a...)
		cmd.Dir = appDir
		return cmd
	}, nil)
}

// findASC returns the asc of appDir's node_modules (or of a directory
// above), running `npm install` in appDir when it has a package.json and
// no compiler yet.
func findASC(ctx context.Context, appDir string) (string, error) {
	if asc := lookASC(appDir); asc != "" {
		return asc, nil
	}
	if _, err := os.Stat(filepath.Join(appDir, "package.json")); err != nil {
		return "", fmt.Errorf("no AssemblyScript compiler: run `npm install --save-dev %s` in %s", assdk.Compiler, appDir)
	}
	mu, _ := npmInstalls.LoadOrStore(appDir, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if asc := lookASC(appDir); asc != "" {
		return asc, nil // another source's build installed it
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("no AssemblyScript compiler in %s/node_modules, and no npm to install it: %w (on Debian: apt-get install npm)", appDir, err)
	}
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund")
	cmd.Dir = appDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install in %s failed (%v):\n%s", appDir, err, strings.TrimSpace(string(out)))
	}
	if asc := lookASC(appDir); asc != "" {
		return asc, nil
	}
	return "", fmt.Errorf("npm install in %s installed no AssemblyScript compiler: add it with `npm install --save-dev %s`", appDir, assdk.Compiler)
}

// lookASC finds node_modules/.bin/asc in dir or a directory above it.
func lookASC(dir string) string {
	for {
		asc := filepath.Join(dir, "node_modules", ".bin", "asc")
		if _, err := os.Stat(asc); err == nil {
			return asc
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// InstalledSDKNote says, when the app has its own copy of the
// AssemblyScript SDK installed where asc resolves packages (an npm
// dependency: apps made by `endpoints new` before the SDK was left out of
// their package.json link vendor/ there) and that copy differs from the
// SDK this program ships, that its routes build against that copy, and how
// to build with this program's; "" otherwise. An app that installs its own
// SDK on purpose (the repository's examples link guest-sdk/assemblyscript)
// gets no note while the two agree.
func InstalledSDKNote(appDir string) string {
	dir := sdkDir(appDir)
	if dir == "" {
		return ""
	}
	differs := false
	err := fs.WalkDir(assdk.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".ts") {
			return err
		}
		shipped, err := fs.ReadFile(assdk.Files, p)
		if err != nil {
			return err
		}
		installed, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(installed, shipped) {
			differs = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || !differs {
		return ""
	}
	shown := dir
	if rel, err := filepath.Rel(appDir, dir); err == nil {
		shown = rel
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		if rel, err := filepath.Rel(appDir, real); err == nil {
			real = rel
		}
		shown += " (" + filepath.ToSlash(real) + ")"
	}
	return fmt.Sprintf("the AssemblyScript routes build against the SDK installed in %s, which is not the one this endpoints ships (asc takes node_modules first); "+
		"to build with this version's SDK, remove %q from package.json's devDependencies and run npm install", filepath.ToSlash(shown), assdk.Package)
}

// hasSDK reports whether the SDK is installed where asc resolves packages
// from appDir: its node_modules or one above.
func hasSDK(dir string) bool { return sdkDir(dir) != "" }

// sdkDir is the directory of the SDK installed where asc resolves packages
// from dir, or "" when there is none.
func sdkDir(dir string) string {
	for {
		sdk := filepath.Join(dir, "node_modules", filepath.FromSlash(assdk.Package))
		if _, err := os.Stat(filepath.Join(sdk, "index.ts")); err == nil {
			return sdk
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
