package guestbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	rustsdk "github.com/wasmendpoints/endpoints/guest-sdk/rust"
	"github.com/wasmendpoints/endpoints/internal/depinfo"
)

// rustPackages are the Debian packages that provide rustc and its wasm32
// standard library (target wasm32-wasi).
const rustPackages = "rustc libstd-rust-dev-wasm32"

// rustTargets are the WebAssembly targets a Rust route builds for, in order
// of preference: rustup's name since Rust 1.78, then the older one
// Debian's rustc ships.
var rustTargets = []string{"wasm32-wasip1", "wasm32-wasi"}

// rustFlags are the code generation flags of both the SDK and the routes:
//
//   - -C opt-level=3: handlers run once per request.
//   - -C lto=fat -C codegen-units=1: one optimised unit with the SDK and
//     std inlined; about a quarter smaller than without.
//   - -C panic=abort: a panic logs through the SDK's hook and traps; the
//     host answers 500 and replaces the instance.
//   - -C debuginfo=0: no DWARF in the module.
var rustFlags = []string{"-C", "opt-level=3", "-C", "lto=fat", "-C", "codegen-units=1", "-C", "panic=abort", "-C", "debuginfo=0"}

// A rustToolchain is a rustc whose sysroot holds a wasm32 standard library.
type rustToolchain struct {
	rustc  string
	target string
	// version is `rustc -vV`: part of the key of the SDK's cached build.
	version string
}

var (
	rustMu sync.Mutex
	// rustFound caches findRust's answer per PATH and RUSTC.
	rustFound = map[string]rustToolchain{}
	// sdkBuilds serialises the SDK's build per cache directory.
	sdkBuilds sync.Map // directory → *sync.Mutex
)

// Rust compiles one Rust route source into a route module, writing it to
// out. The source is a crate root that uses the SDK as the crate
// `endpoints` (guest-sdk/rust) and declares its exports with its macros:
//
//	use endpoints::{endpoint, respond, Contract, Json, Request, Schema};
//	...
//	endpoint!(contract(), handle);
//
// The compiler is $RUSTC when set (which must have a wasm32-wasip1 or
// wasm32-wasi standard library), else the first rustc in PATH or
// /usr/bin/rustc that has one. The SDK is the copy this program was built with (package
// rustsdk), compiled once per compiler into the user's cache directory
// (endpoints/rust-sdk/<hash>). The route is then compiled as
//
//	rustc --edition 2021 --crate-type cdylib --crate-name route \
//	      --target <target> -C opt-level=3 -C lto=fat -C codegen-units=1 \
//	      -C panic=abort -C debuginfo=0 -C strip=symbols \
//	      --extern endpoints=<cache>/libendpoints.rlib -o <out> \
//	      --emit link,dep-info=<temporary file> <src>
//
// Code the routes share lives outside the route directories and is
// included with `#[path = "../../lib/users.rs"] mod users;`. out is
// replaced atomically, as for [C]. The error names src and holds rustc's
// diagnostics.
func Rust(ctx context.Context, src, out string) error {
	_, err := rust(ctx, src, out)
	return err
}

// rust is [Rust], which also returns what the route read: rustc writes
// its dep-info (--emit dep-info) to a temporary file. A dep-info that
// cannot be read leaves what it read empty, which no record takes
// (keepBuilt): the module was built all the same.
func rust(ctx context.Context, src, out string) (reads, error) {
	const what = "compile Rust route"
	tc, err := findRust(ctx)
	if err != nil {
		return reads{}, fmt.Errorf("%s %s: %w", what, src, err)
	}
	rlib, err := rustSDK(ctx, tc)
	if err != nil {
		return reads{}, fmt.Errorf("%s %s: %w", what, src, err)
	}
	wd, err := os.Getwd() // rustc's, where its relative paths start
	if err != nil {
		return reads{}, fmt.Errorf("%s %s: %w", what, src, err)
	}
	f, err := os.CreateTemp("", "endpoints-rust-*.d")
	if err != nil {
		return reads{}, fmt.Errorf("%s %s: %w", what, src, err)
	}
	f.Close()
	dep := f.Name()
	defer os.Remove(dep)
	err = runToolchain(ctx, what, src, out, func(tmp string) *exec.Cmd {
		args := []string{"--edition", rustsdk.Edition, "--crate-type", "cdylib", "--crate-name", "route", "--target", tc.target}
		args = append(args, rustFlags...)
		args = append(args, "-C", "strip=symbols", "--extern", rustsdk.Crate+"="+rlib, "-o", tmp, "--emit", "link,dep-info="+dep, src)
		return exec.CommandContext(ctx, tc.rustc, args...)
	}, rustHint)
	if err != nil {
		return reads{}, err
	}
	b, err := os.ReadFile(dep)
	if err != nil {
		return reads{}, nil
	}
	info, err := depinfo.Parse(dep, b)
	if err != nil {
		return reads{}, nil
	}
	return readsOf(info, wd), nil
}

// findRust picks the Rust compiler routes build with: $RUSTC when set
// (alone: a compiler the developer named is never passed over for
// another), else the first of rustc in PATH and /usr/bin/rustc that has a
// wasm32 standard library.
func findRust(ctx context.Context) (rustToolchain, error) {
	key := os.Getenv("RUSTC") + "\x00" + os.Getenv("PATH")
	rustMu.Lock()
	defer rustMu.Unlock()
	if tc, ok := rustFound[key]; ok {
		return tc, nil
	}
	if env := os.Getenv("RUSTC"); env != "" {
		tc, err := probeRust(ctx, env)
		if err != nil {
			return rustToolchain{}, fmt.Errorf("RUSTC=%s: %w (set RUSTC to a rustc with a wasm32-wasip1 or wasm32-wasi standard library, or unset it to build with the rustc in PATH or /usr/bin/rustc)", env, err)
		}
		rustFound[key] = tc
		return tc, nil
	}
	var tried []string
	for _, name := range []string{"rustc", "/usr/bin/rustc"} {
		tc, err := probeRust(ctx, name)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		rustFound[key] = tc
		return tc, nil
	}
	if len(tried) == 0 {
		return rustToolchain{}, fmt.Errorf("no Rust compiler: %w (on Debian: apt-get install %s; with rustup: rustup target add wasm32-wasip1)", exec.ErrNotFound, rustPackages)
	}
	return rustToolchain{}, fmt.Errorf("no Rust compiler can build WebAssembly: %s (on Debian: apt-get install %s; with rustup: rustup target add wasm32-wasip1; or set RUSTC)", strings.Join(tried, "; "), rustPackages)
}

// probeRust is the toolchain of the rustc name (looked up in PATH unless
// it has a slash) when its sysroot has a wasm32 standard library.
func probeRust(ctx context.Context, name string) (rustToolchain, error) {
	rustc, err := exec.LookPath(name) // a path with a slash is only checked
	if err != nil {
		return rustToolchain{}, err
	}
	sysroot, err := exec.CommandContext(ctx, rustc, "--print", "sysroot").Output()
	if err != nil {
		return rustToolchain{}, fmt.Errorf("%s (--print sysroot: %v)", rustc, err)
	}
	for _, target := range rustTargets {
		lib := filepath.Join(strings.TrimSpace(string(sysroot)), "lib", "rustlib", target, "lib")
		if _, err := os.Stat(lib); err != nil {
			continue
		}
		version, err := exec.CommandContext(ctx, rustc, "-vV").Output()
		if err != nil {
			return rustToolchain{}, fmt.Errorf("%s -vV: %w", rustc, err)
		}
		return rustToolchain{rustc: rustc, target: target, version: string(version)}, nil
	}
	return rustToolchain{}, fmt.Errorf("%s has no wasm32-wasip1 or wasm32-wasi standard library", rustc)
}

// rustSDK returns the SDK's rlib for tc, building it on first use. The
// build is cached under the user's cache directory, keyed by the compiler,
// the target, the flags and the SDK's sources, so a changed SDK or
// compiler builds anew.
func rustSDK(ctx context.Context, tc rustToolchain) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", tc.rustc, tc.version, tc.target, strings.Join(rustFlags, " "))
	err := fs.WalkDir(rustsdk.Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := rustsdk.Files.ReadFile(path)
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "endpoints", "rust-sdk", hex.EncodeToString(h.Sum(nil))[:16])
	rlib := filepath.Join(dir, "lib"+rustsdk.Crate+".rlib")

	mu, _ := sdkBuilds.LoadOrStore(dir, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if _, err := os.Stat(rlib); err == nil {
		return rlib, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("cache the Rust SDK: %w", err)
	}
	// Build in a fresh directory, then rename it into place: another
	// process building the same SDK never sees half an rlib.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".build-")
	if err != nil {
		return "", fmt.Errorf("cache the Rust SDK: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := writeFS(rustsdk.Files, filepath.Join(tmp, "sdk")); err != nil {
		return "", fmt.Errorf("cache the Rust SDK: %w", err)
	}
	args := []string{"--edition", rustsdk.Edition, "--crate-type", "rlib", "--crate-name", rustsdk.Crate, "--target", tc.target}
	args = append(args, rustFlags...)
	args = append(args, "-o", filepath.Join(tmp, "lib"+rustsdk.Crate+".rlib"), filepath.Join(tmp, "sdk", filepath.FromSlash(rustsdk.Root)))
	cmd := exec.CommandContext(ctx, tc.rustc, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if h := rustHint(msg); h != "" {
			msg += "\n" + h
		}
		return "", fmt.Errorf("build the Rust SDK with %s (%v):\n%s", tc.rustc, err, msg)
	}
	if err := os.RemoveAll(filepath.Join(tmp, "sdk")); err != nil {
		return "", fmt.Errorf("cache the Rust SDK: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, statErr := os.Stat(rlib); statErr != nil { // another process won the race otherwise
			return "", fmt.Errorf("cache the Rust SDK: %w", err)
		}
	}
	return rlib, nil
}

// rustHint recognises rustc's diagnostics for a missing wasm32 standard
// library.
func rustHint(stderr string) string {
	if strings.Contains(stderr, "can't find crate for `std`") || strings.Contains(stderr, "can't find crate for `core`") {
		return "hint: this rustc has no wasm32 standard library; on Debian: apt-get install " + rustPackages + "; with rustup: rustup target add wasm32-wasip1"
	}
	return ""
}

// writeFS writes the files of fsys under dir.
func writeFS(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
