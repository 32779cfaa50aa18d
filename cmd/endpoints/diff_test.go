package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/diff")

// diffDir holds the documents endpoints diff is tested on: base.json, a
// small OpenAPI 3.1 document in the shape endpoints builds (type lists,
// const, prefixItems, anyOf for a status declared twice), and per case a
// directory with new.json, base.json with one change, and the output
// expected for it.
const diffDir = "testdata/diff"

// TestDiffDocuments compares base.json with each case's new.json and checks
// the exit code and the output against the case's golden file (go test
// -run Diff -update rewrites them).
func TestDiffDocuments(t *testing.T) {
	base := filepath.Join(diffDir, "base.json")
	tests := []struct {
		name  string
		dir   string   // under diffDir: new.json and the golden file
		flags []string // before OLD and NEW
		want  int
		// golden is the file of the expected output, in dir; want.txt when
		// empty.
		golden string
	}{
		{"a removed operation breaks", "removed-operation", nil, exitBreaking, ""},
		{"a new required query parameter breaks", "new-required-query-parameter", nil, exitBreaking, ""},
		{"an enum value removed from a query parameter breaks", "narrowed-enum", nil, exitBreaking, ""},
		{"a lower maximum of a query parameter breaks", "narrowed-maximum", nil, exitBreaking, ""},
		{"a removed success status breaks", "removed-success-status", nil, exitBreaking, ""},
		{"a removed error status is info: clients never see it", "removed-error-status", nil, exitOK, ""},
		{"a property removed from a response breaks every operation answering it", "removed-response-property", nil, exitBreaking, ""},
		{"a request property's new type breaks", "request-property-type-changed", nil, exitBreaking, ""},
		{"a request property no longer nullable (3.1 type list) breaks", "request-property-no-longer-nullable", nil, exitBreaking, ""},
		{"a request property's changed const breaks", "request-property-const-changed", nil, exitBreaking, ""},
		{"a request tuple's changed prefixItems breaks", "request-prefix-items-changed", nil, exitBreaking, ""},
		{"a variant of a response's anyOf losing a required property breaks", "response-any-of-variant-changed", nil, exitBreaking, ""},
		{"a response property that may become null breaks; a longer request string does not", "response-became-nullable-widened-request", nil, exitBreaking, ""},
		{"a type removed from a query parameter's list breaks (oasdiff alone says info)", "query-type-list-narrowed", nil, exitBreaking, ""},
		{"an added optional query parameter breaks nothing", "added-optional-query-parameter", nil, exitOK, ""},
		{"an added operation breaks nothing", "added-operation", nil, exitOK, ""},
		{"a removed optional parameter is a warning: not breaking by default", "removed-optional-query-parameter", nil, exitOK, ""},
		{"a removed optional parameter breaks at --fail-on warn", "removed-optional-query-parameter", []string{"--fail-on", "warn"}, exitBreaking, "want-fail-on-warn.txt"},
		{"--format json", "removed-operation", []string{"--format", "json"}, exitBreaking, "want.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden := filepath.Join(diffDir, tt.dir, cmpOr(tt.golden, "want.txt"))
			args := append(append([]string{"diff"}, tt.flags...), base, filepath.Join(diffDir, tt.dir, "new.json"))
			code, out, errOut := runCLI(args...)
			if code != tt.want || errOut != "" {
				t.Errorf("endpoints %s = %d\n%s\nstderr: %s\nwant exit %d and nothing on stderr", strings.Join(args, " "), code, out, errOut, tt.want)
			}
			checkGolden(t, golden, out)
		})
	}
	t.Run("the same document twice has no changes", func(t *testing.T) {
		code, out, errOut := runCLI("diff", base, base)
		if code != exitOK || out != "no changes from "+base+" to "+base+"\n" || errOut != "" {
			t.Errorf("diff of base.json with itself = %d\n%s\n%s\nwant exit 0 and \"no changes\"", code, out, errOut)
		}
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkGolden compares got with the golden file, or rewrites it under
// -update.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/endpoints -run Diff -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test ./cmd/endpoints -run Diff -update rewrites it)\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestDiffRefusesWhatItCannotCompare: wrong arguments and sides that are
// not documents exit 2, never 0 or 1, and say why.
func TestDiffRefusesWhatItCannotCompare(t *testing.T) {
	base := filepath.Join(diffDir, "base.json")
	notOpenAPI := filepath.Join(t.TempDir(), "package.json")
	if err := os.WriteFile(notOpenAPI, []byte(`{"name": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"one side only", []string{"diff", base}, "want two arguments, OLD and NEW, got 1"},
		{"three sides", []string{"diff", base, base, base}, "got 3"},
		{"--base and two sides", []string{"diff", "--base", "HEAD", base, base}, "with --base, want one argument, NEW; got 2"},
		{"--fail-on info would fail on every change", []string{"diff", "--fail-on", "info", base, base}, `--fail-on "info": want error or warn`},
		{"unknown format", []string{"diff", "--format", "xml", base, base}, `--format "xml": want text or json`},
		{"unknown flag", []string{"diff", "--level", "x", base, base}, "flag provided but not defined: -level"},
		{"a side that does not exist", []string{"diff", base, "no/such.json"}, "NEW: no/such.json does not exist"},
		{"a file that is not a document", []string{"diff", "diff.go", base}, "OLD: diff.go is a file but not an OpenAPI document"},
		{"a JSON file that is not OpenAPI", []string{"diff", base, notOpenAPI}, `has no "openapi" member`},
		{"a directory that is not an app", []string{"diff", t.TempDir(), base}, "is not an Endpoints app"},
		{"a ref git does not know", []string{"diff", "no-such-ref-here:cmd/endpoints/testdata/diff/base.json", base}, "OLD: no-such-ref-here:cmd/endpoints/testdata/diff/base.json: git "},
		{"--base with a NEW that is not here", []string{"diff", "--base", "HEAD", "HEAD:cmd/endpoints"}, "with --base, NEW is an app directory or a document file here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			if code != exitTrouble || out != "" || !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("endpoints %q = %d\nstdout: %s\nstderr: %s\nwant exit 2, no output and stderr containing %q", tt.args, code, out, errOut, tt.wantStderr)
			}
		})
	}
}

// writeHelloApp writes an app with one WAT endpoint, guest-sdk/wat/hello.wat,
// whose query parameter name is at most maxLength characters long ("64"
// as written, or another two digits).
func writeHelloApp(t *testing.T, dir, maxLength string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "guest-sdk", "wat", "hello.wat"))
	if err != nil {
		t.Fatal(err)
	}
	// Two digits for two: the contract's length, packed in
	// endpoints_contract, stays the same.
	const declared = `\"maxLength\":64`
	if !bytes.Contains(src, []byte(declared)) || len(maxLength) != 2 {
		t.Fatalf("hello.wat no longer declares %s, or %q is not two digits", declared, maxLength)
	}
	src = bytes.Replace(src, []byte(declared), []byte(`\"maxLength\":`+maxLength), 1)
	writeFiles(t, dir, map[string]string{"endpoints.json": "{}\n", "server/api/hello.get.wat": string(src)})
}

// TestDiffApps compares two real apps, built from WAT, whose one endpoint
// differs: as directories, and as the same app at a git ref and now.
func TestDiffApps(t *testing.T) {
	needTool(t, "wat2wasm")
	cache := t.TempDir()
	oldApp, newApp := t.TempDir(), t.TempDir()
	writeHelloApp(t, oldApp, "64")
	writeHelloApp(t, newApp, "32")

	code, _, errOut := runCLI("diff", "--cache-dir", cache, oldApp, newApp)
	if code != exitTrouble || !strings.Contains(errOut, "not built yet") || !strings.Contains(errOut, "run `endpoints build "+oldApp+"` first") {
		t.Fatalf("diff of unbuilt apps = %d\n%s\nwant exit 2 and the message other commands give", code, errOut)
	}
	for _, app := range []string{oldApp, newApp} {
		if code, out, errOut := runCLI("build", app); code != exitOK {
			t.Fatalf("build %s = %d\n%s\n%s", app, code, out, errOut)
		}
	}
	const want = "error    GET /api/hello: for the `query` request parameter `name`, the maxLength was decreased from `64` to `32` [request-parameter-max-length-decreased]\n"
	code, out, errOut := runCLI("diff", "--cache-dir", cache, oldApp, newApp)
	if code != exitBreaking || !strings.HasPrefix(out, want) || !strings.Contains(out, "1 breaking at --fail-on error") {
		t.Errorf("diff OLD NEW = %d\n%s\n%s\nwant exit 1 and first\n%s", code, out, errOut, want)
	}
	code, out, errOut = runCLI("diff", "--cache-dir", cache, newApp, oldApp)
	if code != exitOK || !strings.Contains(out, "info     GET /api/hello: for the `query` request parameter `name`, the maxLength was increased from `32` to `64`") {
		t.Errorf("diff NEW OLD = %d\n%s\n%s\nwant exit 0: a longer name breaks nothing", code, out, errOut)
	}

	t.Run("at a git ref", func(t *testing.T) {
		needTool(t, "git")
		// A repository whose HEAD has the old app's sources (no modules),
		// and whose work tree has the new app, built.
		repo := t.TempDir()
		app := filepath.Join(repo, "apps", "hello")
		writeHelloApp(t, app, "64")
		for _, args := range [][]string{
			{"init", "-q"},
			{"add", "."},
			{"-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "hello"},
		} {
			cmd := exec.Command("git", args...)
			cmd.Dir = repo
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		writeHelloApp(t, app, "32")
		if code, out, errOut := runCLI("build", app); code != exitOK {
			t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
		}
		t.Chdir(filepath.Join(repo, "apps"))
		for _, args := range [][]string{
			{"--base", "HEAD", "hello"},
			{"HEAD:apps/hello", "hello"},
			{"HEAD:./hello", "hello"},
		} {
			code, out, errOut := runCLI(append([]string{"diff", "--cache-dir", cache}, args...)...)
			if code != exitBreaking || !strings.HasPrefix(out, want) || !strings.Contains(out, " from HEAD:apps/hello to hello ") {
				t.Errorf("diff %q = %d\n%s\n%s\nwant exit 1, first\n%s", args, code, out, errOut, want)
			}
		}
		code, _, errOut := runCLI("diff", "--cache-dir", cache, "HEAD:apps/nothing", "hello")
		if code != exitTrouble || !strings.Contains(errOut, "HEAD:apps/nothing") {
			t.Errorf("diff of a path HEAD lacks = %d\n%s\nwant exit 2 naming it", code, errOut)
		}
	})
}

// TestDiffStaleApp: an app whose module is older than its source is not
// compared as if it were the source (that exited 0 on a breaking change):
// diff refuses it, exit 2, naming the module and what to run; with
// --build it builds the app first and finds the change.
func TestDiffStaleApp(t *testing.T) {
	needTool(t, "wat2wasm")
	cache := t.TempDir()
	oldApp, newApp := t.TempDir(), t.TempDir()
	writeHelloApp(t, oldApp, "64")
	writeHelloApp(t, newApp, "64")
	for _, app := range []string{oldApp, newApp} {
		if code, out, errOut := runCLI("build", app); code != exitOK {
			t.Fatalf("build %s = %d\n%s\n%s", app, code, out, errOut)
		}
	}
	// The source changes after the build: the module is stale, whatever
	// the clock's resolution.
	writeHelloApp(t, newApp, "32")
	module := filepath.Join(newApp, "server", "api", "hello.get.wasm")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(module, past, past); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("diff", "--cache-dir", cache, oldApp, newApp)
	if code != exitTrouble || out != "" || !strings.Contains(errOut, "server/api/hello.get.wasm (from server/api/hello.get.wat)") ||
		!strings.Contains(errOut, "older than what they are built from") || !strings.Contains(errOut, "--build") {
		t.Errorf("diff with a stale NEW = %d\n%s\n%s\nwant exit 2 naming the stale module and --build", code, out, errOut)
	}
	const want = "error    GET /api/hello: for the `query` request parameter `name`, the maxLength was decreased from `64` to `32`"
	code, out, errOut = runCLI("diff", "--build", "--cache-dir", cache, oldApp, newApp)
	if code != exitBreaking || !strings.HasPrefix(out, want) {
		t.Errorf("diff --build = %d\n%s\n%s\nwant exit 1 and first\n%s", code, out, errOut, want)
	}
}
