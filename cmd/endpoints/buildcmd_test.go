package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/testhook"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

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
	b, err := json.Marshal(map[string]any{"build": config.Build{Command: command, Watch: watch}})
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
	t.Setenv("APP_BUILD_TEST", "from the environment")
	app := writeApp(t, map[string]string{
		"endpoints.json": buildConfig(t, `echo "$APP_BUILD_TEST" > built.txt; echo building; printf 'no newline' >&2`),
	})
	code, out, errOut := runCLI("build", app)
	if code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(app, "built.txt"))
	if err != nil || string(got) != "from the environment\n" {
		t.Errorf("built.txt = %q, %v; want the command to run in the app with the process environment", got, err)
	}
	if !regexp.MustCompile("(?m)^  \\| building\n[\\s\\S]*^ran `echo .*` in \\d+m?s$").MatchString(out) {
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
// ends, never beside it, and no third one.
func TestWatchBuildCommandRunsOneAtATime(t *testing.T) {
	t.Parallel()
	// A run takes a lock directory, which makes a second run beside it
	// fail (exit 9), then waits at a gate, a named pipe: the test sees
	// that a run started when its open of the pipe for writing returns,
	// and ends the run by writing a line. The first run, released with
	// "slow", then builds for 0.3 s more, as the original fixture did: the
	// test waits for no time, but the watcher meets the save made during
	// the run while it still runs, so a run wrongly started beside it
	// would find the lock.
	gate := filepath.Join(t.TempDir(), "gate")
	if out, err := exec.Command("mkfifo", gate).CombinedOutput(); err != nil {
		t.Fatalf("mkfifo: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		// Opening the read end lets an atGate that gave up return.
		if f, err := os.OpenFile(gate, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	command := fmt.Sprintf(`mkdir running || exit 9; read line < '%s'; [ "$line" = slow ] && sleep 0.3; rmdir running; echo run >> runs.txt`, gate)
	app := writeApp(t, map[string]string{"src/a.txt": "0", "src/b.txt": "0"})
	since := time.Now() // the files above were written before the start's run
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	var ready watchers
	stopped := make(chan error, 1)
	go func() {
		stopped <- watchBuildCommand(testhook.WithWatching(ctx, ready.watching), app, config.Build{Command: command, Watch: []string{"src/*.txt"}}, nil, newConsole(&out, false, false), since)
	}()
	if !waitUntil(t, 10*time.Second, func() bool { return ready.all("build command") }) {
		t.Fatal("the watcher was not set up within 10 s")
	}
	save := func(name, data string) {
		if err := os.WriteFile(filepath.Join(app, "src", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// atGate returns once a run waits at the gate; release ends that run.
	atGate := func(what string) *os.File {
		t.Helper()
		opened := make(chan *os.File, 1)
		go func() {
			if f, err := os.OpenFile(gate, os.O_WRONLY, 0); err == nil {
				opened <- f // left open if atGate gave up: the test failed
			}
		}()
		select {
		case f := <-opened:
			return f
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not start within 10 s:\n%s", what, out.String())
			return nil
		}
	}
	release := func(f *os.File, line string) {
		t.Helper()
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	// reported waits until the console reports n runs, or a failed one.
	reported := func(n int) {
		t.Helper()
		if !waitUntil(t, 10*time.Second, func() bool {
			return strings.Count(out.String(), "ran `mkdir running") >= n || strings.Contains(out.String(), "exited with code")
		}) {
			t.Fatalf("%d runs not reported within 10 s:\n%s", n, out.String())
		}
	}
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(app, "runs.txt"))
		return strings.Count(string(b), "run\n")
	}

	// Each run is reported after its shell exited, so the next atGate
	// cannot meet the reader of the last run.
	save("a.txt", "1")
	first := atGate("the first run")
	save("a.txt", "2") // during the first run
	release(first, "slow")
	reported(1)
	release(atGate("the run for the save during the first"), "go")
	reported(2)
	// No wrong third run: a save of another file now starts the next run,
	// which must be the third and name only that file. A run left over
	// from the saves of a.txt would come before it, or share it and name
	// a.txt too.
	save("b.txt", "1")
	release(atGate("the run for b.txt"), "go")
	reported(3)
	lines := regexp.MustCompile("ran `mkdir running[^\n]*").FindAllString(out.String(), -1)
	if got := runs(); got != 3 || len(lines) != 3 || strings.Contains(out.String(), "exited with code") {
		t.Fatalf("%d runs, %d reported, want 3 and no failure: one for the first saves, one for the save during it, one for b.txt\n%s", got, len(lines), out.String())
	}
	for i, want := range []string{"(src/a.txt changed)", "(src/a.txt changed)", "(src/b.txt changed)"} {
		if !strings.HasSuffix(lines[i], want) {
			t.Errorf("run %d reported %q, want it to end with %q", i+1, lines[i], want)
		}
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
	t.Parallel()
	requireWat2wasm(t)
	command := "wat2wasm src/v.wat -o .v.wasm && mkdir -p server/routes && mv .v.wasm server/routes/v.get.wasm"
	app := writeApp(t, map[string]string{
		"endpoints.json": buildConfig(t, command, "src/**/*.wat"),
		"src/v.wat":      plainRoute("v1"),
	})
	// Once Host.Watch and the build command's watcher are set up, one save
	// is seen.
	addr, _, _, stdout, stderr, done := startCLI(t, "dev", app, "app", "sources", "build command")
	waitFor(t, stdout, regexp.MustCompile("(saves of src/\\*\\*/\\*\\.wat rerun `wat2wasm)"), done)
	get := func() string {
		_, body := httpGet(t, addr+"/v")
		return body
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
	served := func(want string) bool {
		return waitUntil(t, 30*time.Second, func() bool { return get() == want })
	}
	edit(plainRoute("v2"))
	if !served("v2") {
		t.Fatalf("the edit was not served:\n%s\n%s", stdout.String(), stderr.String())
	}
	// The new module serves as soon as the host reloaded it, which may be
	// before the run and the reload are reported: wait for the lines.
	for _, want := range []string{"ran `" + command + "` in", "(src/v.wat changed)", "changed server/routes/v.get.wasm"} {
		waitFor(t, stdout, regexp.MustCompile("("+regexp.QuoteMeta(want)+")"), done)
	}
	// A broken edit: reported with wat2wasm's error, and v2 keeps serving.
	edit("(module\n")
	waitFor(t, stdout, regexp.MustCompile("(exited with code 1 \\(src/v.wat changed\\); the last good modules keep serving:\n.*src/v.wat:2)"), done)
	if got := get(); got != "v2" {
		t.Errorf("after a broken edit: GET /v = %q, want the last good %q", got, "v2")
	}
	edit(plainRoute("v3"))
	if !served("v3") {
		t.Errorf("the fix was not served:\n%s", stdout.String())
	}
}

// TestWatchBuildCommandRunsForSavesBeforeItWatched: a watched file saved
// after the start's run began but before the watches were set up sent no
// event; it still starts a run, and files the pattern does not match do
// not.
func TestWatchBuildCommandRunsForSavesBeforeItWatched(t *testing.T) {
	app := writeApp(t, map[string]string{"src/a.txt": "0", "src/notes.md": "0"})
	since := time.Now().Add(-time.Minute) // the start's run began before the saves
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	stopped := make(chan error, 1)
	go func() {
		stopped <- watchBuildCommand(ctx, app, config.Build{Command: "echo run >> runs.txt", Watch: []string{"src/*.txt"}}, nil, newConsole(&out, false, false), since)
	}()
	defer func() { cancel(); <-stopped }()
	if !waitUntil(t, 10*time.Second, func() bool { return strings.Contains(out.String(), "ran `echo run") }) {
		t.Fatalf("no run within 10 s for a file saved before the watch:\n%s", out.String())
	}
	if got := out.String(); !strings.Contains(got, "(src/a.txt changed)") || strings.Contains(got, "notes.md") {
		t.Errorf("the run names %q, want src/a.txt alone", got)
	}
}

func TestBuildWritesSectionsIntoModulesTheCommandBuilt(t *testing.T) {
	requireWat2wasm(t)
	app := writeApp(t, map[string]string{
		"src/hello.wat":  plainRoute("hello"),
		"src/other.wat":  plainRoute("left alone"),
		"endpoints.json": buildConfig(t, "mkdir -p server/routes && wat2wasm src/hello.wat -o server/routes/hello.get.wasm"),
	})
	// A module the command does not write keeps its bytes.
	untouched := filepath.Join(app, "server", "routes", "other.get.wasm")
	if err := os.MkdirAll(filepath.Dir(untouched), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("wat2wasm", filepath.Join(app, "src", "other.wat"), "-o", untouched).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, out)
	}
	code, out, errOut := runCLI("build", app)
	if code != exitOK {
		t.Fatalf("build = %d\n%s\n%s", code, out, errOut)
	}
	for file, want := range map[string]bool{"server/routes/hello.get.wasm": true, "server/routes/other.get.wasm": false} {
		wasm, err := os.ReadFile(filepath.Join(app, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		v, ok, err := wasmbin.Custom(wasm, abi.SectionABIVersion)
		if err != nil || ok != want || ok && string(v) != strconv.Itoa(abi.Version) {
			t.Errorf("%s: section %s = %q, %v, %v; want present %v", file, abi.SectionABIVersion, v, ok, err, want)
		}
	}
	if !strings.Contains(out, "wrote the contract sections of 1 module(s) the command built") {
		t.Errorf("stdout does not say the sections were written:\n%s", out)
	}
}
