package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildRefusesWhatServeRefuses: a contract serve would refuse (an
// invalid regular expression) fails `endpoints build`, naming the module
// and the problem, and its line says FAIL, not "ok".
func TestBuildRefusesWhatServeRefuses(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	src := filepath.Join(app, "server", "api", "users", "[id].get.c")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `\"name\":{\"type\":\"string\"`, `\"name\":{\"type\":\"string\",\"pattern\":\"([a-z\"`, 1)
	if bad == string(data) {
		t.Fatal("the example's contract changed: no name property to break")
	}
	if err := os.WriteFile(src, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("build", app)
	for _, want := range []string{`server/api/users/[id].get.wasm`, `/$defs/User/properties/name/pattern`, `'([a-z' is not valid regex`} {
		if code != exitError || !strings.Contains(errOut, want) {
			t.Errorf("build of a contract serve refuses = %d, want exit 1 and %q in:\n%s\n%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out, "ok   server/api/users/[id].get.wasm") || !strings.Contains(errOut, "FAIL server/api/users/[id].get.wasm (c): its contract") {
		t.Errorf("the module whose contract is refused is reported ok, or not FAIL:\n%s\n%s", out, errOut)
	}
}

// TestBuildCacheDirMustBeWritable: `build --cache-dir` into a directory
// it cannot make or write fails, rather than printing that serve starts
// warm. (A path under a regular file fails even for root.)
func TestBuildCacheDirMustBeWritable(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	file := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "cache")
	code, out, errOut := runCLI("build", app, "--cache-dir", dir)
	if code != exitError || !strings.Contains(errOut, "--cache-dir "+dir) || strings.Contains(out, "starts warm") {
		t.Errorf("build --cache-dir %s = %d, want exit 1 naming the directory:\n%s\n%s", dir, code, out, errOut)
	}
	good := filepath.Join(t.TempDir(), "cache")
	if code, out, errOut := runCLI("build", app, "--cache-dir", good); code != exitOK || !strings.Contains(out, "starts warm") {
		t.Errorf("build --cache-dir %s = %d, want exit 0:\n%s\n%s", good, code, out, errOut)
	}
}

// TestReadingCommandsMigrateNothing: the commands that load an app to read
// it (build --cache-dir, routes, openapi, check) leave its databases alone:
// no SQLite file is made and no migration applied, as none would be to a
// production database whose URL is in their environment.
func TestReadingCommandsMigrateNothing(t *testing.T) {
	t.Parallel()
	app := cApp(t)
	if err := os.RemoveAll(filepath.Join(app, ".endpoints")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"build", app, "--cache-dir", t.TempDir()},
		{"routes", app},
		{"openapi", app, "-o", filepath.Join(t.TempDir(), "openapi.json")},
		{"check", app},
	} {
		if code, out, errOut := runCLI(args...); code != exitOK {
			t.Fatalf("endpoints %s = %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(app, ".endpoints", "data", "main.db")); err == nil {
			t.Fatalf("endpoints %s made the app's database (and migrated it)", args[0])
		}
	}
}
