//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// imageEnv is the environment a container of the distroless image starts
// with: its PATH, and the HOME Docker sets from the image's /etc/passwd
// for the user nonroot.
var imageEnv = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/home/nonroot"}

// nonroot is the distroless user nonroot, whom --chown=nonroot:nonroot
// names.
const nonroot = 65532

// TestDeployImage runs deploy/Dockerfile's final stage without Docker
// (base images cannot be pulled here): a root assembled by the stage's
// COPY lines from what its build stage makes (a static binary, the app
// built with its compilation cache and the cache's key, no private key),
// its ENTRYPOINT and CMD run exactly, chrooted, as its USER, in a network
// namespace of its own so that its fixed ports are its own. The app
// names a development signing key, as examples/users does: the image
// refuses to start with the development key set until the deployment
// gives its own keys (ENDPOINTS_SECURITY and a key set mounted as
// compose.yaml does); then its HEALTHCHECK passes, it serves warm from
// the cache, tokens of the development key are refused and the
// deployment's accepted, and SIGTERM ends it.
func TestDeployImage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the image's root and runs it")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, as Docker does: chroot, a network namespace, another user")
	}
	for _, tool := range []string{"unshare", "nsenter", "chroot", "ip"} {
		needTool(t, tool)
	}
	stage := finalStage(t)
	users := stage.all("USER")
	if len(users) == 0 || users[len(users)-1] != fmt.Sprintf("%d:%d", nonroot, nonroot) {
		t.Fatalf("deploy/Dockerfile: USER %q, want %d:%d (nonroot, by number: a Kubernetes runAsNonRoot check needs a number)", users, nonroot, nonroot)
	}
	argv := append(stage.exec(t, "ENTRYPOINT"), stage.exec(t, "CMD")...)
	health := stage.exec(t, "HEALTHCHECK")
	adminPort, publicPort := flagPort(t, argv, "--admin-addr"), flagPort(t, argv, "--addr")

	// The build stage.
	src, out := securedApp(t), t.TempDir()
	bin := filepath.Join(out, "endpoints")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd := exec.Command(bin, "build", src, "--cache-dir", filepath.Join(out, "cache"))
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(out, "config"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("endpoints build --cache-dir: %v\n%s", err, b)
	}
	// COPY . . leaves out what .dockerignore lists: the private keys.
	if b, err := exec.Command("cp", "-r", src, filepath.Join(out, "app")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, b)
	}
	if err := os.Remove(filepath.Join(out, "app", "auth", "dev-signing-key.jwk")); err != nil {
		t.Fatal(err)
	}

	// The final stage: distroless's /home/nonroot and /tmp, then the COPY
	// lines.
	root := t.TempDir()
	for dir, owner := range map[string]int{"home/nonroot": nonroot, "tmp": 0} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(filepath.Join(root, dir), owner, owner); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range stage.all("COPY") {
		copyInto(t, root, out, c)
	}

	// Without keys of its own, the deployment is refused.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	refused := exec.CommandContext(ctx, "unshare", append([]string{"--net", "--", "chroot", fmt.Sprintf("--userspec=%d:%d", nonroot, nonroot), root}, argv...)...)
	refused.Env = imageEnv
	b, err := refused.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "auth/dev-signing-key.jwk is not in the app, so this is a deployment") {
		t.Fatalf("the image started with the development key set (%v):\n%s", err, b)
	}

	// The deployment's keys: a key set mounted beside the image's
	// development one (compose's secret), the scheme without its devKey.
	private, public, _, err := auth.NewKey("ES256", "production-1")
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := auth.KeySet(public)
	if err != nil {
		t.Fatal(err)
	}
	mounted := filepath.Join(root, "app", "auth", "deployment-jwks.json")
	if err := os.WriteFile(mounted, jwks, 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(imageEnv, `ENDPOINTS_SECURITY={"bearer": {"jwt": {"jwks": "auth/deployment-jwks.json"}}}`)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	serve := exec.Command("unshare", append([]string{"--net", "--", "sh", "-c", `ip link set lo up && exec chroot --userspec="$0" "$@"`,
		fmt.Sprintf("%d:%d", nonroot, nonroot), root}, argv...)...)
	serve.Env, serve.Stdout, serve.Stderr = env, stdout, stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		_ = serve.Process.Kill()
	})
	// `unshare` without --fork, sh and chroot exec: the pid is the server's.
	netns := fmt.Sprintf("/proc/%d/ns/net", serve.Process.Pid)
	healthcheck := func() error {
		c := exec.Command("nsenter", append([]string{"--net=" + netns, "--", "chroot", fmt.Sprintf("--userspec=%d:%d", nonroot, nonroot), root}, health...)...)
		c.Env = imageEnv
		if b, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, b)
		}
		return nil
	}
	var last error
	if !waitUntil(t, 60*time.Second, func() bool {
		select {
		case err := <-exited:
			exited <- err
			return true
		default:
		}
		last = healthcheck()
		return last == nil
	}) || last != nil {
		t.Fatalf("the HEALTHCHECK %q never passed: %v\nstdout:\n%s\nstderr:\n%s", health, last, stdout, stderr)
	}
	if regexp.MustCompile(`compiled \d+/`).MatchString(stdout.String()) {
		t.Errorf("the image compiled at start; the cache of its build stage should serve it:\n%s", stdout)
	}

	client := &http.Client{Transport: &http.Transport{DialContext: dialIn(serve.Process.Pid)}, Timeout: 10 * time.Second}
	devKey, err := os.ReadFile(filepath.Join(src, "auth", "dev-signing-key.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()}
	devToken, err := auth.MintDevToken(devKey, claims)
	if err != nil {
		t.Fatal(err)
	}
	prodToken, err := auth.MintDevToken(private, claims)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, url, token string
		want             int
	}{
		{"readiness on the admin listener", "http://127.0.0.1:" + adminPort + "/readyz", "", 200},
		{"metrics on the admin listener", "http://127.0.0.1:" + adminPort + "/metrics", "", 200},
		{"no token", "http://127.0.0.1:" + publicPort + "/api/secret", "", 401},
		{"a token of the repository's development key", "http://127.0.0.1:" + publicPort + "/api/secret", devToken, 401},
		{"a token of the deployment's key", "http://127.0.0.1:" + publicPort + "/api/secret", prodToken, 200},
	} {
		req, _ := http.NewRequest("GET", tt.url, nil)
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("%s: GET %s = %d %s, want %d", tt.name, tt.url, res.StatusCode, body, tt.want)
		}
	}

	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("still running 30 s after SIGTERM:\n%s", stderr)
	}
}

// flagPort returns the port of the HOST:PORT flag name of argv.
func flagPort(t *testing.T, argv []string, name string) string {
	t.Helper()
	for i, a := range argv {
		if a == name && i+1 < len(argv) {
			_, port, err := net.SplitHostPort(argv[i+1])
			if err == nil {
				return port
			}
		}
	}
	t.Fatalf("deploy/Dockerfile: the command %q has no %s HOST:PORT", argv, name)
	return ""
}

// copyInto does one COPY --from=build of the final stage into root: its
// source under /out/ is out's, and --chown=nonroot:nonroot owns what it
// writes (parents it creates included) by the user nonroot.
func copyInto(t *testing.T, root, out, instruction string) {
	t.Helper()
	fields := strings.Fields(instruction)
	owner, fromBuild := 0, false
	var paths []string
	for _, f := range fields {
		switch {
		case f == "--from=build":
			fromBuild = true
		case f == "--chown=nonroot:nonroot":
			owner = nonroot
		case strings.HasPrefix(f, "--"):
			t.Fatalf("deploy/Dockerfile: COPY %s: the test does not know %s", instruction, f)
		default:
			paths = append(paths, f)
		}
	}
	if !fromBuild || len(paths) != 2 || !strings.HasPrefix(paths[0], "/out/") {
		t.Fatalf("deploy/Dockerfile: COPY %s: want COPY --from=build /out/... DEST", instruction)
	}
	from := filepath.Join(out, strings.TrimPrefix(paths[0], "/out/"))
	to := filepath.Join(root, paths[1])
	// Parents the COPY creates.
	for dir := filepath.Dir(to); len(dir) > len(root); dir = filepath.Dir(dir) {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			defer os.Chown(dir, owner, owner)
		}
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("cp", "-r", from, to).CombinedOutput(); err != nil {
		t.Fatalf("COPY %s: %v\n%s", instruction, err, b)
	}
	if err := filepath.Walk(to, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, owner, owner)
	}); err != nil {
		t.Fatal(err)
	}
}

// dialIn dials from inside the network namespace of process pid: on a
// thread of its own that joins it, and that ends with its goroutine (it is
// never unlocked), taking the namespace with it.
func dialIn(pid int) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			conn net.Conn
			err  error
		}
		done := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/ns/net")
			if err != nil {
				done <- result{nil, err}
				return
			}
			defer f.Close()
			if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
				done <- result{nil, fmt.Errorf("setns: %w", err)}
				return
			}
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			done <- result{c, err}
		}()
		r := <-done
		return r.conn, r.err
	}
}

// securedApp is an app whose one route, GET /api/secret, requires the
// bearer scheme, verified with a development key pair as `endpoints new`
// writes it (auth/dev-signing-key.jwk and auth/jwks.json, the endpoints.json
// naming both).
func securedApp(t *testing.T) string {
	t.Helper()
	needTool(t, "wat2wasm")
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	contract := `{"security":[{"bearer":[]}],"responses":{"200":{"schema":{"type":"object"}}}}`
	wat := fmt.Sprintf(`(module
  (import "endpoints" "response_set_status" (func $set_status (param i32) (result i32)))
  (import "endpoints" "response_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 1024) %s)
  (data (i32.const 4000) "{}")
  (func (export "endpoints_abi_version") (result i32) (i32.const 1))
  (func (export "endpoints_contract") (result i64) (i64.const %d))
  (func (export "endpoints_handle") (result i32)
    (drop (call $set_status (i32.const 200)))
    (drop (call $write (i32.const 4000) (i32.const 2)))
    (i32.const 0)))
`, strconv.Quote(contract), int64(1024)<<32|int64(len(contract)))
	srcFile := filepath.Join(dir, "secret.wat")
	if err := os.WriteFile(srcFile, []byte(wat), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := guestbuild.WAT(context.Background(), srcFile, filepath.Join(app, "server/api/secret.get.wasm")); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"security": map[string]any{"bearer": map[string]any{"jwt": map[string]any{
		"jwks": devJWKSFile, "devKey": devKeyFile}}}})
	if err := os.WriteFile(filepath.Join(app, "endpoints.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDevKey(app, devKeyFile, devJWKSFile, "dev-1", false); err != nil {
		t.Fatal(err)
	}
	return app
}
