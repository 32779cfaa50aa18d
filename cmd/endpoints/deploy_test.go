package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/database/databasetest"
	"github.com/wasmendpoints/endpoints/internal/auth"
	"github.com/wasmendpoints/endpoints/storage/storagetest"
)

// TestDeployTopology runs deploy/compose.yaml's topology without
// containers: the app precompiled as deploy/Dockerfile does (`endpoints
// build --cache-dir`), one redis-server, two `endpoints serve` processes
// configured only by compose.yaml's environment variables, and a
// round-robin reverse proxy in front (nginx in compose, Go's here). A
// request with an Idempotency-Key answered by one host is replayed by the
// other; both start warm from the cache, compiling nothing.
func TestDeployTopology(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts redis-server and two endpoints processes")
	}
	env := composeEnv(t)
	redisURL, _, _ := storagetest.StartRedis(t)
	pgURL, _, _ := databasetest.StartPostgres(t)
	for i, kv := range env {
		switch {
		case strings.HasPrefix(kv, "ENDPOINTS_STORAGE_URL="):
			env[i] = "ENDPOINTS_STORAGE_URL=" + redisURL // redis:6379 in compose
		case strings.HasPrefix(kv, "ENDPOINTS_DATABASES_MAIN_URL="):
			env[i] = "ENDPOINTS_DATABASES_MAIN_URL=" + pgURL // postgres:5432 in compose
		}
	}
	app, bin := ordersApp(t)
	// The deployment's key set, which compose mounts from a secret where
	// its ENDPOINTS_SECURITY names it: serve checks every scheme's keys at
	// the start, whether a route requires the scheme or not.
	_, public, _, err := auth.NewKey("ES256", "deployment")
	if err != nil {
		t.Fatal(err)
	}
	set, err := auth.KeySet(public)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(app, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "auth", "deployment-jwks.json"), set, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	if out, err := exec.Command(bin, "build", app, "--cache-dir", cache).CombinedOutput(); err != nil {
		t.Fatalf("endpoints build --cache-dir: %v\n%s", err, out)
	}
	hosts := []*process{startServeWith(t, bin, app, env, "--cache-dir", cache), startServeWith(t, bin, app, env, "--cache-dir", cache)}

	var next atomic.Int64
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		u, _ := url.Parse(hosts[next.Add(1)%2].url)
		r.SetURL(u)
		r.SetXForwarded()
	}})
	defer proxy.Close()

	first, body, h := postOrder(t, proxy.URL, "deploy-1")
	if first != 201 || h.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first POST = %d %s (replayed %q)", first, body, h.Get("Idempotent-Replayed"))
	}
	again, body2, h2 := postOrder(t, proxy.URL, "deploy-1")
	if again != 201 || h2.Get("Idempotent-Replayed") != "true" || body2 != body {
		t.Errorf("the same key through the other host = %d %s (replayed %q), want the first answer replayed", again, body2, h2.Get("Idempotent-Replayed"))
	}
	for i, p := range hosts {
		// Access log lines are written up to ~20 ms after their request.
		if !waitUntil(t, 10*time.Second, func() bool { return strings.Contains(p.logs.String(), `msg="POST /api/orders"`) }) {
			t.Errorf("host %d served no request; the proxy should spread them:\n%s", i, p.logs)
		}
		if out := p.stdout.String(); regexp.MustCompile(`compiled \d+/`).MatchString(out) {
			t.Errorf("host %d compiled at start; the precompiled cache should serve it:\n%s", i, out)
		}
	}
	res, err := http.Get(proxy.URL + "/nothing-here")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("GET /nothing-here through the proxy = %d", res.StatusCode)
	}
}

// composeFile is deploy/compose.yaml decoded (its anchors resolved).
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Networks map[string]struct {
		IPAM struct {
			Config []struct {
				Subnet string `yaml:"subnet"`
			} `yaml:"config"`
		} `yaml:"ipam"`
	} `yaml:"networks"`
	Secrets map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
}

// composeService is one service of compose.yaml, the members the tests
// check.
type composeService struct {
	Build       *struct{ Dockerfile string } `yaml:"build"`
	Image       string                       `yaml:"image"`
	Environment map[string]string            `yaml:"environment"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	StopGracePeriod string   `yaml:"stop_grace_period"`
	Volumes         []string `yaml:"volumes"`
	Secrets         []struct {
		Source string `yaml:"source"`
		Target string `yaml:"target"`
	} `yaml:"secrets"`
	Networks yaml.Node `yaml:"networks"` // a list, or a map with addresses
}

// readCompose decodes deploy/compose.yaml (members the types above do not
// name are left to Docker Compose); every service must have one of build
// and image.
func readCompose(t *testing.T) composeFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	for name, s := range c.Services {
		if (s.Build == nil) == (s.Image == "") {
			t.Fatalf("deploy/compose.yaml: service %s: want one of build and image", name)
		}
	}
	return c
}

// composeEnv returns the environment deploy/compose.yaml gives the hosts
// (the services built from deploy/Dockerfile), checking that each
// variable names a setting of endpoints.json: the strict check `endpoints
// serve` makes (config.OverridesFromEnv, whose warnings it logs).
func composeEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for name, s := range readCompose(t).Services {
		if s.Build == nil {
			continue
		}
		env = env[:0]
		for k, v := range s.Environment {
			env = append(env, k+"="+v)
		}
		slices.Sort(env)
		if _, warnings := config.OverridesFromEnv(env); len(warnings) > 0 {
			t.Errorf("deploy/compose.yaml, service %s: %s", name, strings.Join(warnings, "; "))
		}
	}
	if len(env) < 2 {
		t.Fatalf("deploy/compose.yaml sets %d ENDPOINTS_* variables; want the storage ones at least", len(env))
	}
	return env
}

// dockerfile is one stage of deploy/Dockerfile: its instructions in
// order, continuation lines joined, comments dropped.
type dockerfile struct {
	From         string
	Instructions [][2]string // keyword (upper case), arguments
}

// finalStage reads deploy/Dockerfile and returns its last stage, the
// image that runs.
func finalStage(t *testing.T) dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var stage dockerfile
	var line string
	for raw := range strings.SplitSeq(string(data), "\n") {
		trimmed := strings.TrimSpace(raw)
		if strings.HasPrefix(trimmed, "#") || trimmed == "" && line == "" {
			continue
		}
		if more, ok := strings.CutSuffix(trimmed, "\\"); ok {
			line += more + " "
			continue
		}
		line += trimmed
		keyword, args, _ := strings.Cut(line, " ")
		line = ""
		keyword = strings.ToUpper(keyword)
		if keyword == "FROM" {
			stage = dockerfile{From: strings.TrimSpace(args)}
			continue
		}
		stage.Instructions = append(stage.Instructions, [2]string{keyword, strings.TrimSpace(args)})
	}
	return stage
}

// all returns the arguments of every instruction of the stage with
// keyword.
func (d dockerfile) all(keyword string) []string {
	var out []string
	for _, in := range d.Instructions {
		if in[0] == keyword {
			out = append(out, in[1])
		}
	}
	return out
}

// exec returns the JSON (exec) form of the stage's last instruction with
// keyword, after its options (HEALTHCHECK's --interval... and CMD).
func (d dockerfile) exec(t *testing.T, keyword string) []string {
	t.Helper()
	args := d.all(keyword)
	if len(args) == 0 {
		t.Fatalf("deploy/Dockerfile: the final stage has no %s", keyword)
	}
	last := args[len(args)-1]
	i := strings.Index(last, "[")
	var argv []string
	if i < 0 || json.Unmarshal([]byte(last[i:]), &argv) != nil || len(argv) == 0 {
		t.Fatalf("deploy/Dockerfile: %s %s: want the exec form, a JSON array (the image has no shell)", keyword, last)
	}
	return argv
}

// TestDeployComposeFacts checks what deploy/compose.yaml and
// deploy/nginx.conf promise without running containers: a healthcheck
// for every service and starts that wait on them, grace periods longer
// than the hosts' drain, the hosts trusting the proxy alone, the proxy
// replacing X-Forwarded-For, the image's healthcheck, no private key
// mounted or shipped, and settings the host accepts.
func TestDeployComposeFacts(t *testing.T) {
	c := readCompose(t)
	image := finalStage(t)
	proxyAddr := ""
	for name, s := range c.Services {
		if len(s.Healthcheck.Test) < 2 || s.Healthcheck.Test[0] != "CMD" {
			t.Errorf("service %s: healthcheck.test %q, want [\"CMD\", ...]", name, s.Healthcheck.Test)
		}
		for dep, d := range s.DependsOn {
			if d.Condition != "service_healthy" {
				t.Errorf("service %s: depends_on.%s.condition %q, want service_healthy: a dependency that runs is not one that answers", name, dep, d.Condition)
			}
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("service %s depends on %s, which is no service", name, dep)
			}
		}
		for _, v := range s.Volumes {
			if strings.Contains(v, ".jwk") {
				t.Errorf("service %s mounts %s: no private key goes into a deployment", name, v)
			}
		}
		var nets map[string]struct {
			IPv4 string `yaml:"ipv4_address"`
		}
		if s.Networks.Kind == yaml.MappingNode {
			if err := s.Networks.Decode(&nets); err != nil {
				t.Fatal(err)
			}
		}
		if s.Image != "" && strings.HasPrefix(s.Image, "nginx:") {
			proxyAddr = nets["edge"].IPv4
		}
	}
	if proxyAddr == "" {
		t.Fatal("the nginx service has no fixed address on the edge network, which the hosts could trust")
	}
	hosts := 0
	for name, s := range c.Services {
		if s.Build == nil {
			continue
		}
		hosts++
		if s.Build.Dockerfile != "deploy/Dockerfile" {
			t.Errorf("service %s builds %s, want deploy/Dockerfile", name, s.Build.Dockerfile)
		}
		if want := append([]string{"CMD"}, image.exec(t, "HEALTHCHECK")...); !slices.Equal(s.Healthcheck.Test, want) {
			t.Errorf("service %s: healthcheck %q, want the image's %q", name, s.Healthcheck.Test, want)
		}
		for _, dep := range []string{"redis", "postgres"} {
			if _, ok := s.DependsOn[dep]; !ok {
				t.Errorf("service %s does not wait for %s", name, dep)
			}
		}
		env := make([]string, 0, len(s.Environment))
		for k, v := range s.Environment {
			env = append(env, k+"="+v)
		}
		ovs, warnings := config.OverridesFromEnv(env)
		if len(warnings) > 0 {
			t.Errorf("service %s: %s", name, strings.Join(warnings, "; "))
		}
		// The values too: examples/users's endpoints.json under them, as
		// the host reads it.
		app, err := config.Load(filepath.Join("..", "..", "examples", "users"), ovs...)
		if err != nil {
			t.Fatalf("service %s: examples/users with its environment: %v", name, err)
		}
		if !slices.Equal(app.TrustedProxies, []string{proxyAddr}) {
			t.Errorf("service %s trusts %q as proxies, want the proxy's address alone, %s", name, app.TrustedProxies, proxyAddr)
		}
		drain := time.Duration(app.Server.ShutdownTimeout)
		if drain == 0 {
			drain = config.DefaultShutdownTimeout
		}
		grace, err := time.ParseDuration(s.StopGracePeriod)
		if err != nil || grace <= drain {
			t.Errorf("service %s: stop_grace_period %q, want a duration longer than the hosts' drain (server.shutdownTimeout %v), or Docker kills requests in flight", name, s.StopGracePeriod, drain)
		}
		raw, _ := json.Marshal(app.Security) // compact
		security := string(raw)
		if strings.Contains(security, "devKey") {
			t.Errorf("service %s: ENDPOINTS_SECURITY names a devKey: the deployment must not verify with the development key set", name)
		}
		jwks := ""
		for _, sec := range s.Secrets {
			if c.Secrets[sec.Source].File == "" {
				t.Errorf("service %s mounts the secret %s, which compose.yaml does not define", name, sec.Source)
			}
			if strings.Contains(security, `"jwks":"`+strings.TrimPrefix(sec.Target, "/app/")+`"`) {
				jwks = strings.TrimPrefix(sec.Target, "/app/")
			}
		}
		if jwks == "" {
			t.Errorf("service %s: the key set of ENDPOINTS_SECURITY's jwt scheme is not mounted from a secret", name)
		}
		// The example's schemes but for the development key set, so that
		// the deployment serves the app as written.
		example, err := config.Load(filepath.Join("..", "..", "examples", "users"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := deployedSecurity(t, app.Security, ""), deployedSecurity(t, example.Security, jwks); got != want {
			t.Errorf("service %s: ENDPOINTS_SECURITY is\n%s\nwant examples/users's security without devKey, its key set the secret's:\n%s", name, got, want)
		}
		if strings.Contains(string(example.Security["bearer"]), `"`+jwks+`"`) {
			t.Errorf("service %s: the secret is mounted at %s, the example's development key set: mount it beside, so that a missing secret fails rather than falling back on the development keys", name, jwks)
		}
	}
	if hosts != 2 {
		t.Errorf("deploy/compose.yaml builds %d hosts from deploy/Dockerfile, want 2 behind the proxy", hosts)
	}
	nginx, err := os.ReadFile(filepath.Join("..", "..", "deploy", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*proxy_set_header X-Forwarded-For \$remote_addr;`).Match(nginx) {
		t.Error("deploy/nginx.conf does not set X-Forwarded-For to the client's address ($remote_addr): the edge proxy must replace what the client sent")
	}
	ignore, err := os.ReadFile(filepath.Join("..", "..", ".dockerignore"))
	if err != nil || !regexp.MustCompile(`(?m)^\*\*/\*\.jwk$`).Match(ignore) {
		t.Errorf(".dockerignore must leave out **/*.jwk, the private keys (%v)", err)
	}
}

// deployedSecurity returns security schemes as compact JSON, members in
// order, without the jwt schemes' devKey, and their jwks set to jwks when
// it is not empty.
func deployedSecurity(t *testing.T, security map[string]json.RawMessage, jwks string) string {
	t.Helper()
	out := map[string]json.RawMessage{}
	for name, raw := range security {
		var scheme map[string]map[string]any
		if err := json.Unmarshal(raw, &scheme); err != nil {
			t.Fatal(err)
		}
		if jwt := scheme["jwt"]; jwt != nil {
			delete(jwt, "devKey")
			if _, ok := jwt["jwks"]; ok && jwks != "" {
				jwt["jwks"] = jwks
			}
		}
		b, err := json.Marshal(scheme)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
