package guestbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	csdk "github.com/wasmendpoints/endpoints/guest-sdk/c"
)

// Tools the C and WAT builds run, looked up in PATH.
const (
	clangTool    = "clang"
	wat2wasmTool = "wat2wasm"
)

// clangPackages are the Debian packages that provide clang, the wasm linker,
// wasi-libc and the wasm32 compiler runtime.
const clangPackages = "clang lld wasi-libc libclang-rt-14-dev-wasm32"

// clangFlags are the flags C passes to clang before -I, -o and the source:
//
//   - --target=wasm32-wasi: a WebAssembly module against wasi-libc. Debian's
//     clang finds wasi-libc in /usr/include/wasm32-wasi and
//     /usr/lib/wasm32-wasi without --sysroot.
//   - -mexec-model=reactor: link crt1-reactor.o, which exports _initialize
//     (abi.StartFunction) to run libc and constructor initialisation, and no
//     _start, since the host calls the exports instead of a main.
//   - -O2: route handlers run once per request; size and speed both matter.
//   - -Werror=implicit-function-declaration: a misspelt helper would
//     otherwise link as an unresolved "env" import and fail only at load.
//   - -Wl,--strip-debug: drop the DWARF sections wasi-libc carries, which
//     would make a 1.5 KB module several times larger.
//
// The exports need no linker flags: endpoints.h declares them with
// export_name attributes.
var clangFlags = []string{
	"--target=wasm32-wasi",
	"-mexec-model=reactor",
	"-O2",
	"-Werror=implicit-function-declaration",
	"-Wl,--strip-debug",
}

// C compiles one C route source into a route module with clang and
// wasi-libc, writing it to out. The source includes the SDK as
// #include "endpoints.h"; C supplies the headers this program was built
// with (package csdk: endpoints.h and the endpoints_db.h it includes), so no
// checkout of the repository is needed. A copy of endpoints.h beside the
// source wins over it.
//
// The command is, with <sdk> a temporary directory holding the headers:
//
//	clang --target=wasm32-wasi -mexec-model=reactor -O2 \
//	      -Werror=implicit-function-declaration -Wl,--strip-debug \
//	      -I <sdk> -o <out> <src>
//
// # Notes
//
//   - out is replaced atomically: clang writes a temporary file beside it,
//     which is renamed over out on success, so a watcher never loads half a
//     module. The directory of out is created when missing.
//   - The error names src and holds clang's diagnostics. When clang is not
//     installed it wraps [exec.ErrNotFound] and names the Debian packages to
//     install.
func C(ctx context.Context, src, out string) error {
	clang, err := exec.LookPath(clangTool)
	if err != nil {
		return fmt.Errorf("compile C route %s: %w (on Debian: apt-get install %s)", src, err, clangPackages)
	}
	sdk, err := os.MkdirTemp("", "endpoints-csdk-")
	if err != nil {
		return fmt.Errorf("compile C route %s: %w", src, err)
	}
	defer os.RemoveAll(sdk)
	if err := os.CopyFS(sdk, csdk.Files); err != nil {
		return fmt.Errorf("compile C route %s: writing the SDK's headers: %w", src, err)
	}
	return runToolchain(ctx, "compile C route", src, out, func(tmp string) *exec.Cmd {
		args := append(append([]string{}, clangFlags...), "-I", sdk, "-o", tmp, src)
		return exec.CommandContext(ctx, clang, args...)
	}, missingLibcHint)
}

// WAT assembles the WebAssembly text file src into a route module with
// wat2wasm (Debian package wabt), writing it to out:
//
//	wat2wasm <src> -o <out>
//
// out is replaced atomically, as for [C]. The error names src and holds
// wat2wasm's diagnostics; when wat2wasm is not installed it wraps
// [exec.ErrNotFound].
func WAT(ctx context.Context, src, out string) error {
	wat2wasm, err := exec.LookPath(wat2wasmTool)
	if err != nil {
		return fmt.Errorf("assemble WAT route %s: %w (on Debian: apt-get install wabt)", src, err)
	}
	return runToolchain(ctx, "assemble WAT route", src, out, func(tmp string) *exec.Cmd {
		return exec.CommandContext(ctx, wat2wasm, src, "-o", tmp)
	}, nil)
}

// runToolchain runs the command cmd builds to write a module to a temporary
// file beside out, then renames it over out (mode 0644). what and src name the
// failure; hint, when not nil, adds advice drawn from the tool's diagnostics.
//
// The temporary file is out's name and ".tmp" in a directory of its own
// beside out, removed with what the tool left there: rustc names its object files
// after the output's name, so two builds of one route at once (endpoints
// dev rebuilding a saved route while endpoints build runs) would otherwise
// remove each other's before they link.
func runToolchain(ctx context.Context, what, src, out string, cmd func(tmp string) *exec.Cmd, hint func(stderr string) string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	dir, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	defer os.RemoveAll(dir)
	// Not named as a module (*.wasm): the host's load lists every such
	// file under server/, dotted directories included, and would load a
	// half-written one, or one a killed build left, as a route.
	tmp := filepath.Join(dir, filepath.Base(out)+".tmp")

	c := cmd(tmp)
	var stderr bytes.Buffer
	c.Stdout = &stderr
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s %s: %w", what, src, ctxErr)
		}
		msg := strings.TrimSpace(stderr.String())
		if hint != nil {
			if h := hint(msg); h != "" {
				msg += "\n" + h
			}
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("%s %s: %s failed (%v):\n%s", what, src, filepath.Base(c.Path), err, msg)
		}
		return fmt.Errorf("%s %s: %s: %w", what, src, filepath.Base(c.Path), err)
	}
	// The tools keep the temporary file's 0600 or choose their own mode.
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("%s %s: %w", what, src, err)
	}
	return nil
}

// missingLibcHint recognises clang's diagnostics for a missing wasi-libc or
// wasm32 compiler runtime and names the Debian packages that provide them.
func missingLibcHint(stderr string) string {
	for _, sign := range []string{
		"'stdint.h' file not found",
		"'stddef.h' file not found",
		"crt1-reactor.o",
		"libclang_rt.builtins-wasm32.a",
		"unable to find library -lc",
		`Executable "wasm-ld" doesn't exist`,
	} {
		if strings.Contains(stderr, sign) {
			return "hint: the wasm32-wasi toolchain looks incomplete; on Debian: apt-get install " + clangPackages
		}
	}
	return ""
}
