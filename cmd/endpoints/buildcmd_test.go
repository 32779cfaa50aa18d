package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host"
)

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"package.json", "package.json", true},
		{"package.json", "sub/package.json", false},
		{"*.ts", "index.ts", true},
		{"*.ts", "lib/index.ts", false},
		{"src/*.ts", "src/a.ts", true},
		{"src/*.ts", "src/a.tsx", false},
		{"src/*", "src/lib/a.ts", false},
		{"src/?.ts", "src/a.ts", true},
		{"src/?.ts", "src/ab.ts", false},
		{"src/[a-c].ts", "src/b.ts", true},
		{"src/[a-c].ts", "src/d.ts", false},
		{"assembly/**/*.ts", "assembly/index.ts", true},
		{"assembly/**/*.ts", "assembly/lib/util.ts", true},
		{"assembly/**/*.ts", "assembly/lib/deep/er/util.ts", true},
		{"assembly/**/*.ts", "assembly/lib/util.js", false},
		{"assembly/**/*.ts", "other/lib/util.ts", false},
		{"assembly/**/*.ts", "index.ts", false},
		{"**/*.ts", "index.ts", true},
		{"**/*.ts", "a/b/index.ts", true},
		{"**", "anything/at/all", true},
		{"src/**", "src", true},
		{"src/**", "src/a/b", true},
		{"src/**", "srcx/a", false},
		{"a/**/b/**/c.wat", "a/x/b/y/z/c.wat", true},
		{"a/**/b/**/c.wat", "a/b/c.wat", true},
		{"a/**/b/**/c.wat", "a/x/c.wat", false},
		{"src/[a-.ts", "src/a.ts", false}, // malformed: matches nothing
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.name, func(t *testing.T) {
			if got := matchGlob(tt.pattern, tt.name); got != tt.want {
				t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
			}
		})
	}
}

func TestPrefixWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"one line", []string{"hello\n"}, "> hello\n"},
		{"lines split across writes", []string{"he", "llo\nwor", "ld\n"}, "> hello\n> world\n"},
		{"several lines in one write", []string{"a\nb\n\nc\n"}, "> a\n> b\n> \n> c\n"},
		{"a last line without newline is ended", []string{"a\nb"}, "> a\n> b\n"},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			p := &prefixWriter{w: &b, prefix: "> "}
			for _, w := range tt.writes {
				if n, err := p.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v, want %d, nil", w, n, err, len(w))
				}
			}
			p.end()
			if got := b.String(); got != tt.want {
				t.Errorf("output = %q, want %q", got, tt.want)
			}
		})
	}
}

// writeApp writes files (path relative to the app: content) to a new
// temporary app.
func writeApp(t *testing.T, files map[string]string) string {
	t.Helper()
	app := t.TempDir()
	for name, data := range files {
		p := filepath.Join(app, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return app
}

// buildConfig is an endpoints.json with the given build command and watch
// patterns.
func buildConfig(t *testing.T, command string, watch ...string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"build": host.BuildConfig{Command: command, Watch: watch}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// requireWat2wasm skips the test when wat2wasm is missing, except in CI.
func requireWat2wasm(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wat2wasm is required in CI")
		}
		t.Skip("wat2wasm not installed (Debian package wabt)")
	}
}

// plainRoute is the WAT source of a plain route module answering body.
func plainRoute(body string) string {
	return fmt.Sprintf(`(module
  (import %q %q (func $write (param i32 i32) (result i32)))
  (memory (export %q) 1)
  (data (i32.const 1024) %q)
  (func (export %q) (result i32) (i32.const %d))
  (func (export %q) (result i32) (call $write (i32.const 1024) (i32.const %d))))
`, abi.ImportModule, abi.ImportResponseWrite, abi.ExportMemory, body, abi.ExportABIVersion, abi.Version, abi.ExportHandle, len(body))
}

func TestBuildRunsTheAppCommand(t *testing.T) {
	t.Setenv("ENDPOINTS_BUILD_TEST", "from the environment")
	app := writeApp(t, map[string]string{
		"endpoints.json": buildConfig(t, `echo "$ENDPOINTS_BUILD_TEST" > built.txt; echo building; printf 'no newline' >&2`),
	})
	code, out, errOut := runCLI("build", app)
	if code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(app, "built.txt"))
	if err != nil || string(got) != "from the environment\n" {
		t.Errorf("built.txt = %q, %v; want the command to run in the app with the process environment", got, err)
	}
	if !regexp.MustCompile("(?m)^  \\| building\n[\\s\\S]*^ran `echo .*` in \\d+m?s\n$").MatchString(out) {
		t.Errorf("stdout = %q, want the command's output prefixed, then `ran <command> in <time>`", out)
	}
	if errOut != "  | no newline\n" {
		t.Errorf("stderr = %q, want the command's standard error prefixed", errOut)
	}
}

func TestBuildRunsTheCommandAfterTheBuiltInBuilds(t *testing.T) {
	requireWat2wasm(t)
	app := writeApp(t, map[string]string{
		"server/routes/hello.get.wat": plainRoute("hello"),
		"endpoints.json":              buildConfig(t, "test -f server/routes/hello.get.wasm && touch built.txt"),
	})
	code, out, errOut := runCLI("build", app)
	if code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(app, "built.txt")); err != nil {
		t.Errorf("the command did not find the module built before it: %v", err)
	}
	for _, want := range []string{"server/routes/hello.get.wasm", "built in", "ran `test -f"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not say %q:\n%s", want, out)
		}
	}
}

func TestBuildCommandErrors(t *testing.T) {
	tests := []struct {
		name, config string
		wantStderr   []string
	}{
		{"non-zero exit", buildConfig(t, "echo oops >&2; exit 3"),
			[]string{"  | oops\n", "endpoints build: build command `echo oops >&2; exit 3` (endpoints.json /build/command) exited with code 3"}},
		{"command not found", buildConfig(t, "no-such-command-endpoints"),
			[]string{"no-such-command-endpoints", "exited with code 127"}},
		{"bad configuration", `{"build": {"watch": ["src/*.ts"]}}`,
			[]string{"endpoints build: endpoints.json: /build/command: required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := writeApp(t, map[string]string{"endpoints.json": tt.config})
			code, out, errOut := runCLI("build", app)
			if code != exitError {
				t.Errorf("build = %d, want %d\n%s\n%s", code, exitError, out, errOut)
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr does not say %q:\n%s", want, errOut)
				}
			}
			if strings.Contains(out, "ran `") {
				t.Errorf("stdout reports a good run:\n%s", out)
			}
		})
	}
}

func TestConsoleReportsCommandRuns(t *testing.T) {
	failed := commandRun{Command: "make", Changed: []string{"src/a.ts", "src/b.ts"}, Took: 1500 * time.Millisecond,
		Output: []byte("src/a.ts:1: error\n"), Err: errors.New("build command `make` (endpoints.json /build/command) exited with code 2")}
	good := commandRun{Command: "make", Changed: []string{"src/a.ts"}, Took: 812 * time.Millisecond}
	tests := []struct {
		name  string
		run   commandRun
		json  bool
		want  string // a regular expression
		quiet bool
	}{
		{"good run", good, false, "^\\d\\d:\\d\\d:\\d\\d ran `make` in 812ms \\(src/a.ts changed\\)\n$", false},
		{"quiet hides a good run", good, false, "^$", true},
		{"failed run with its output", failed, false, "^\\d\\d:\\d\\d:\\d\\d build command `make` \\(endpoints.json /build/command\\) exited with code 2 \\(src/a.ts, src/b.ts changed\\); the last good modules keep serving:\nsrc/a.ts:1: error\n$", false},
		{"quiet keeps a failed run", failed, false, "exited with code 2", true},
		{"good run as JSON", good, true, `^\{"changed":\["src/a.ts"\],"command":"make","event":"command","time":"[^"]+","tookMs":812\}` + "\n$", false},
		{"failed run as JSON", failed, true, `^\{"changed":\["src/a.ts","src/b.ts"\],"command":"make","error":"build command .make. \(endpoints.json /build/command\) exited with code 2","event":"command","output":"src/a.ts:1: error\\n","time":"[^"]+","tookMs":1500\}` + "\n$", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			newConsole(&b, tt.quiet, tt.json).ran(tt.run)
			if !regexp.MustCompile(tt.want).MatchString(b.String()) {
				t.Errorf("console printed %q, want a match of %s", b.String(), tt.want)
			}
		})
	}
}

// TestWatchBuildCommandRunsOneAtATime saves a watched file, saves it again
// while the command runs, and sees a second run start after the first
// ends, never beside it.
func TestWatchBuildCommandRunsOneAtATime(t *testing.T) {
	// The lock directory makes a second run beside the first fail.
	command := "mkdir running || exit 9; sleep 0.3; rmdir running; echo run >> runs.txt"
	app := writeApp(t, map[string]string{"src/a.txt": "0"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	stopped := make(chan error, 1)
	go func() {
		stopped <- watchBuildCommand(ctx, app, host.BuildConfig{Command: command, Watch: []string{"src/*.txt"}}, newConsole(&out, false, false))
	}()
	save := func(data string) {
		if err := os.WriteFile(filepath.Join(app, "src/a.txt"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(app, "runs.txt"))
		return strings.Count(string(b), "run\n")
	}
	// Save until the first run starts: the watcher may not be set up yet.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(app, "running")); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no run started:\n%s", out.String())
		}
		save("1")
	}
	save("2") // during the first run
	for end := time.Now().Add(10 * time.Second); runs() < 2 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond) // time enough for a wrong third run to end
	if got := runs(); got != 2 {
		t.Errorf("runs = %d, want 2: one for the first saves, one for the save during it\n%s", got, out.String())
	}
	if got := strings.Count(out.String(), "ran `mkdir running"); got != 2 || strings.Contains(out.String(), "exited with code") {
		t.Errorf("console reports %d good runs, want 2 and no failure:\n%s", got, out.String())
	}
	cancel()
	if err := <-stopped; err != nil {
		t.Errorf("watchBuildCommand = %v, want nil once ctx ends", err)
	}
}

// TestDevRerunsBuildCommandOnSave runs `endpoints dev` on an app whose
// route is built by its own command from a WAT file outside server/,
// edits that file, and sees the new answer served; a command that fails
// is reported with its output and the last good module keeps serving.
func TestDevRerunsBuildCommandOnSave(t *testing.T) {
	requireWat2wasm(t)
	command := "wat2wasm src/v.wat -o .v.wasm && mkdir -p server/routes && mv .v.wasm server/routes/v.get.wasm"
	app := writeApp(t, map[string]string{
		"endpoints.json": buildConfig(t, command, "src/**/*.wat"),
		"src/v.wat":      plainRoute("v1"),
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"dev", app, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir()}, &stdout, &stderr)
	}()
	addr := waitFor(t, &stdout, regexp.MustCompile(`listening on (http://\S+)`), done)
	waitFor(t, &stdout, regexp.MustCompile("(saves of src/\\*\\*/\\*\\.wat rerun `wat2wasm)"), done)
	get := func() string {
		res, err := http.Get(addr + "/v")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	if got := get(); got != "v1" {
		t.Fatalf("before the edit: GET /v = %q, want %q (built by the command at start)\n%s", got, "v1", stdout.String())
	}
	src := filepath.Join(app, "src", "v.wat")
	edit := func(data string) {
		if err := os.WriteFile(src, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// served saves data until GET /v answers want: the first save may come
	// before the watcher is set up.
	served := func(data, want string) bool {
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
			edit(data)
			for next := time.Now().Add(time.Second); time.Now().Before(next); time.Sleep(20 * time.Millisecond) {
				if get() == want {
					return true
				}
			}
		}
		return false
	}
	if !served(plainRoute("v2"), "v2") {
		t.Fatalf("the edit was not served:\n%s\n%s", stdout.String(), stderr.String())
	}
	for _, want := range []string{"ran `" + command + "` in", "(src/v.wat changed)", "changed server/routes/v.get.wasm"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout.String())
		}
	}
	// A broken edit: reported with wat2wasm's error, and v2 keeps serving.
	edit("(module\n")
	waitFor(t, &stdout, regexp.MustCompile("(exited with code 1 \\(src/v.wat changed\\); the last good modules keep serving:\n.*src/v.wat:2)"), done)
	if got := get(); got != "v2" {
		t.Errorf("after a broken edit: GET /v = %q, want the last good %q", got, "v2")
	}
	if !served(plainRoute("v3"), "v3") {
		t.Errorf("the fix was not served:\n%s", stdout.String())
	}
}
