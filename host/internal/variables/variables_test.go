package variables_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host/internal/variables"
)

func ptr(s string) *string { return &s }

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	abs := write("token", "from-file\n")
	write("crlf", "windows\r\n")
	write("two-newlines", "kept\n\n")
	env := map[string]string{"URL": "https://hooks.example", "EMPTY": ""}
	src := variables.Source{Dir: dir, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	tests := []struct {
		name string
		decl config.Variable
		want string
	}{
		{"from the environment", config.Variable{Env: "URL"}, "https://hooks.example"},
		{"the environment wins over the file and default", config.Variable{Env: "URL", File: abs, Default: ptr("d")}, "https://hooks.example"},
		{"an empty environment variable counts as unset", config.Variable{Env: "EMPTY", File: abs}, "from-file"},
		{"from an absolute file, its newline dropped", config.Variable{File: abs}, "from-file"},
		{"from a file relative to the app", config.Variable{File: "crlf"}, "windows"},
		{"only one newline dropped", config.Variable{File: "two-newlines"}, "kept\n"},
		{"a missing file falls back to the default", config.Variable{File: "nope", Default: ptr("eu")}, "eu"},
		{"an unset environment variable falls back to the default", config.Variable{Env: "UNSET", Default: ptr("eu")}, "eu"},
		{"an empty default", config.Variable{Default: ptr("")}, ""},
		{"optional without a value is empty", config.Variable{Env: "UNSET", Optional: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := variables.Resolve(map[string]config.Variable{"v": tt.decl}, src)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := vs.Lookup("v")
			if !ok || string(got) != tt.want {
				t.Errorf("Lookup(v) = %q, %v; want %q, true", got, ok, tt.want)
			}
			if _, ok := vs.Lookup("other"); ok {
				t.Errorf("Lookup(other) found a variable the app does not declare")
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("s", abi.VariableMaxValue+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "binary")
	if err := os.WriteFile(binary, []byte("s3cr\xff\xfe"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BAD": "s3cr\xff"}
	src := variables.Source{Dir: dir, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	tests := []struct {
		name string
		decl config.Variable
		want string
	}{
		{"required, from the environment", config.Variable{Env: "ORDERS_WEBHOOK_SECRET", Secret: true},
			`endpoints.json: /variables/v: has no value (environment variable ORDERS_WEBHOOK_SECRET is unset or empty) and no default; give it one, or mark it "optional": true`},
		{"required, from the environment or a file", config.Variable{Env: "KEY", File: "secrets/key"},
			`endpoints.json: /variables/v: has no value (environment variable KEY is unset or empty, file ` + filepath.Join(dir, "secrets", "key") + ` does not exist) and no default`},
		{"a file too large", config.Variable{File: big, Secret: true}, `endpoints.json: /variables/v: the value of file ` + big + ` is over the limit of 65536 bytes`},
		{"a file not UTF-8", config.Variable{File: binary, Secret: true}, `endpoints.json: /variables/v: the value of file ` + binary + ` is not UTF-8 text`},
		{"an environment variable not UTF-8", config.Variable{Env: "BAD", Secret: true}, `endpoints.json: /variables/v: the value of environment variable BAD is not UTF-8 text`},
		{"a file that is a directory", config.Variable{File: dir}, `endpoints.json: /variables/v: ` + dir + `: not a regular file (a directory)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := variables.Resolve(map[string]config.Variable{"v": tt.decl}, src)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v\nwant one starting with %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cr") {
				t.Errorf("the error quotes the value: %v", err)
			}
		})
	}
	t.Run("every missing variable is named at once", func(t *testing.T) {
		_, err := variables.Resolve(map[string]config.Variable{"b": {Env: "B"}, "a": {Env: "A"}, "ok": {Default: ptr("x")}}, src)
		want := "endpoints.json: /variables/a: has no value (environment variable A is unset or empty) and no default; give it one, or mark it \"optional\": true\n" +
			"endpoints.json: /variables/b: has no value (environment variable B is unset or empty) and no default; give it one, or mark it \"optional\": true"
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant %s", err, want)
		}
	})
}

// TestValuesPrintNoValue: a Values printed by mistake, with fmt or slog,
// shows its names and none of its values.
func TestValuesPrintNoValue(t *testing.T) {
	const secret = "hunter2-3f9a"
	vs, err := variables.Resolve(map[string]config.Variable{"key": {Env: "K", Secret: true}, "region": {Default: ptr("eu")}},
		variables.Source{LookupEnv: func(string) (string, bool) { return secret, true }})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	slog.New(slog.NewJSONHandler(&log, nil)).Info("loaded", "vars", vs)
	for _, out := range []string{fmt.Sprint(vs), fmt.Sprintf("%v %+v %#v %s", vs, vs, vs, vs), log.String(), fmt.Sprintf("%v %+v", *vs, *vs) + " [key region]"} {
		if strings.Contains(out, secret) || strings.Contains(out, "eu\"") || !strings.Contains(out, "[key region]") {
			t.Errorf("printed %s; want the names [key region] and no value", out)
		}
	}
	var none *variables.Values
	if _, ok := none.Lookup("key"); ok || none.String() != "variables []" {
		t.Errorf("a nil Values finds a variable or prints %q", none.String())
	}
}

func TestValuesEqual(t *testing.T) {
	resolve := func(decls map[string]config.Variable, env string) *variables.Values {
		t.Helper()
		vs, err := variables.Resolve(decls, variables.Source{LookupEnv: func(string) (string, bool) { return env, true }})
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	key := map[string]config.Variable{"key": {Env: "K", Secret: true}}
	tests := []struct {
		name string
		a, b *variables.Values
		want bool
	}{
		{"the same values", resolve(key, "a"), resolve(key, "a"), true},
		{"another value", resolve(key, "a"), resolve(key, "b"), false},
		{"no longer secret", resolve(key, "a"), resolve(map[string]config.Variable{"key": {Env: "K"}}, "a"), false},
		{"another name", resolve(key, "a"), resolve(map[string]config.Variable{"token": {Env: "K", Secret: true}}, "a"), false},
		{"one more", resolve(key, "a"), resolve(map[string]config.Variable{"key": {Env: "K", Secret: true}, "region": {Env: "R"}}, "a"), false},
		{"none and nil", resolve(nil, ""), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Equal(tt.b); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
			if got := tt.b.Equal(tt.a); got != tt.want {
				t.Errorf("reversed, Equal = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestResolveRefusesAFIFO: a variable's file that is a FIFO is refused,
// as an app's other files are (appfile): opening it waited for a writer,
// and with it the load, the reload and the shutdown behind them, for
// good.
func TestResolveRefusesAFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	fifo := filepath.Join(t.TempDir(), "secret")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := variables.Resolve(map[string]config.Variable{"v": {File: fifo, Secret: true}}, variables.Source{})
		done <- err
	}()
	select {
	case err := <-done:
		if want := "endpoints.json: /variables/v: " + fifo + ": not a regular file (a FIFO)"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error = %v\nwant one starting with %s", err, want)
		}
	case <-time.After(30 * time.Second):
		// Unblock the open, so that the test ends.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("Resolve still waits on the FIFO after 30 s")
	}
}
