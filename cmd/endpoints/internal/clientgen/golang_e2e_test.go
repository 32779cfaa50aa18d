package clientgen

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/syncbuf"
	"github.com/wasmendpoints/endpoints/internal/wattest"
	"github.com/wasmendpoints/endpoints/openapi"
)

// TestGoClientEndToEnd builds examples/users, serves it with the host in
// development (where every answer is checked against its contract),
// generates the Go client from the document the host serves, and runs
// testdata/goclient/users_test.go against it in a temporary module: the
// generated code compiles (at Go 1.24), and its calls get real answers.
func TestGoClientEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/users and compiles a module")
	}
	srv, src, logs := serveAndGenerateGo(t, buildUsersExample(t), filepath.Join(os.TempDir(), "endpoints-test-cache"), "usersclient")
	key, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "examples", "users", "auth", "dev-signing-key.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	token, err := auth.MintDevToken(key, map[string]any{"iss": "https://users.example", "aud": "users-api", "sub": "client-test",
		"exp": time.Now().Add(time.Hour).Unix(), "scope": "users:write orders:write"})
	if err != nil {
		t.Fatal(err)
	}
	goTestModule(t, "usersclient", src, "users_test.go", "ENDPOINTS_USERS_URL="+srv.URL, "ENDPOINTS_USERS_TOKEN="+token)
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("a guest answer broke its contract:\n%s", logs.String())
	}
}

// TestGoClientFeatures generates the client of
// testdata/goclient/features.openapi.json, which uses what the example app
// does not (every parameter and body kind, several media types per status,
// text events, unions, allOf, recursive and renamed types), and runs
// testdata/goclient/features_test.go against scripted servers.
func TestGoClientFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a module")
	}
	src, err := Go(goFeaturesModel(t), GoOptions{Package: "features"})
	if err != nil {
		t.Fatal(err)
	}
	goTestModule(t, "features", src, "features_test.go")
}

// goTestModule writes the generated client src as package pkg of a
// temporary module example.com/pkg (at Go 1.24, the oldest the client
// supports) with the test file testdata/goclient/testFile beside it, and
// runs go test there with env added to the environment.
func goTestModule(t *testing.T, pkg string, src []byte, testFile string, env ...string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go is not installed: %v", err)
	}
	test, err := os.ReadFile(filepath.Join("testdata", "goclient", testFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"go.mod":    []byte("module example.com/" + pkg + "\n\ngo 1.24\n"),
		"client.go": src,
		testFile:    test,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test of the generated client: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("%s", out)
	}
}

// buildUsersExample builds examples/users into a temporary directory, as
// endpoints build does, with its configuration files beside the modules.
func buildUsersExample(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "..", "..", "examples", "users")
	dir := t.TempDir()
	for _, f := range []string{config.File, host.RoutesConfigFile, "auth/jwks.json"} {
		data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			continue // not every app has both
		}
		out := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Its users live in its database, which its migrations make.
	if err := os.CopyFS(filepath.Join(dir, "server", "migrations"), os.DirFS(filepath.Join(src, "server", "migrations"))); err != nil {
		t.Fatal(err)
	}
	if _, err := guestbuild.App(context.Background(), src, dir, nil); err != nil {
		t.Fatalf("building examples/users: %v", err)
	}
	return dir
}

// goFeaturesModel reads testdata/goclient/features.openapi.json.
func goFeaturesModel(t *testing.T) *Model {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "goclient", "features.openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.ParseDocument(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(doc)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// echoTimesContract is the contract of the route
// TestGoClientDateTimeEndToEnd serves: a date-time in each of the path,
// the query and the body (one required, one nullable), answered with the
// request as the route read it.
const echoTimesContract = `{"summary": "Echo times",
 "request": {
  "params": {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}, "required": ["when"]},
  "query": {"type": "object", "properties": {"since": {"type": "string", "format": "date-time"}}},
  "body": {"schema": {"$ref": "#/$defs/Times"}}},
 "responses": {"200": {"description": "the request as the route read it", "schema": {"type": "object", "required": ["params", "body"], "properties": {
  "params": {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}, "required": ["when"]},
  "query": {"type": "object", "properties": {"since": {"type": "string", "format": "date-time"}}},
  "body": {"$ref": "#/$defs/Times"}}}}},
 "$defs": {"Times": {"type": "object", "required": ["at"], "properties": {
  "at": {"type": "string", "format": "date-time"},
  "until": {"type": ["string", "null"], "format": "date-time"}}}}}`

// TestGoClientDateTimeEndToEnd serves a route (WAT, in development, where
// its answers are checked against its contract) that answers the request
// envelope it read, generates the Go client from the document the host
// serves, and runs testdata/goclient/datetime_test.go against it: a
// date-time is a time.Time in the path, the query, the body and the
// answer, and comes back equal.
func TestGoClientDateTimeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a module")
	}
	app := t.TempDir()
	wattest.Write(t, app, "server/api/echo/[when].post.wasm", fmt.Sprintf(`(module
  (import "endpoints" "request_read" (func $request_read (param i32 i32) (result i32)))
  (import "endpoints" "response_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 4)
  (data (i32.const 1024) %q)
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "endpoints_contract") (result i64) (i64.const %d))
  (func (export "endpoints_handle") (result i32) (local $n i32)
    (local.set $n (call $request_read (i32.const 65536) (i32.const 65536)))
    (drop (call $write (i32.const 65536) (local.get $n)))
    (i32.const 0)))
`, echoTimesContract, int64(1024)<<32|int64(len(echoTimesContract))))
	srv, src, logs := serveAndGenerateGo(t, app, "off", "times")
	goTestModule(t, "times", src, "datetime_test.go", "ENDPOINTS_TIMES_URL="+srv.URL)
	if strings.Contains(logs.String(), "answer breaks the contract") {
		t.Errorf("the route's answer broke its contract:\n%s", logs.String())
	}
}

// serveAndGenerateGo serves app with the host in development (every
// answer checked against its contract) on a test server closed with t,
// and generates the Go client of package pkg from the document the host
// serves: the server, the client's source and the host's log.
func serveAndGenerateGo(t *testing.T, app, cacheDir, pkg string) (*httptest.Server, []byte, *syncbuf.Buffer) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	h, err := host.New(context.Background(), app, host.Options{Mode: host.Development, Logger: slog.New(slog.NewTextHandler(logs, nil)), CacheDir: cacheDir})
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	doc, err := openapi.ParseDocument(h.Document())
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(doc)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Go(m, GoOptions{Package: pkg})
	if err != nil {
		t.Fatal(err)
	}
	return srv, src, logs
}
