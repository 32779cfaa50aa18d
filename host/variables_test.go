package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
)

// variablesGuest builds the guest of guest-sdk/go/testdata/variables once
// per test binary.
var variablesGuest = sdkTestGuest("variables", "vars.get.wasm")

// sdkTestGuest returns a function that builds the Go SDK's test guest
// guest-sdk/go/testdata/name into a module named file, once per test
// binary, and returns its path.
func sdkTestGuest(name, file string) func() (string, error) {
	return sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "endpoints-"+name)
		if err != nil {
			return "", err
		}
		wasm := filepath.Join(dir, file)
		return wasm, guestbuild.Go(context.Background(), "../guest-sdk/go/testdata/"+name, wasm)
	})
}

func buildVariablesGuest(t *testing.T) string {
	t.Helper()
	wasm, err := variablesGuest()
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// newServer serves h on a loopback server until the test ends.
func newServer(t *testing.T, h *host.Host) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// env is a mutable environment for Options.LookupEnv.
type env struct {
	mu sync.Mutex
	m  map[string]string
}

func (e *env) set(k, v string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.m[k] = v
}

func (e *env) lookup(k string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.m[k]
	return v, ok
}

// TestVariables: a guest reads the variables endpoints.json declares,
// resolved from the environment, a file or a default; a name it does not
// declare is not found, and init, outside a request, gets none. A reload
// serves new values.
func TestVariables(t *testing.T) {
	t.Parallel()
	wasm := buildVariablesGuest(t)
	e := &env{m: map[string]string{"ORDERS_WEBHOOK_URL": "http://127.0.0.1:8089/hooks"}}
	a := newApp(t).copyModule("server/api/vars.get.wasm", wasm).
		file("endpoints.json", []byte(`{"variables": {
			"webhookUrl": {"env": "ORDERS_WEBHOOK_URL"},
			"token": {"file": "secrets/token", "secret": true},
			"region": {"default": "eu"},
			"replica": {"env": "REPLICA_URL", "optional": true}}}`)).
		file("secrets/token", []byte("t0ken\n"))
	h, _ := a.host(host.Options{Mode: host.Development, LookupEnv: e.lookup})
	srv := newServer(t, h)
	get := func(query string) string {
		t.Helper()
		res := do(t, srv, "GET", "/api/vars?"+query, "")
		return fmt.Sprintf("%d %s", res.status, res.body)
	}
	for _, tt := range []struct{ query, want string }{
		{"name=webhookUrl", `200 {"value":"http://127.0.0.1:8089/hooks"}`},
		{"name=token", `200 {"value":"t0ken"}`},
		{"name=region", `200 {"value":"eu"}`},
		{"name=replica", `200 {"value":""}`},
		{"name=regoin", `200 {"value":"","error":"endpoints: Variable \"regoin\": the app declares no such variable in endpoints.json \"variables\": host function variable_get: not found (-1)"}`},
		{"init=true", `200 {"value":"","error":"endpoints: Variable \"region\": host function variable_get: not available outside a request (-6)"}`},
	} {
		if got := get(tt.query); got != tt.want {
			t.Errorf("%s: got %s\nwant %s", tt.query, got, tt.want)
		}
	}

	t.Run("a reload serves new values", func(t *testing.T) {
		e.set("ORDERS_WEBHOOK_URL", "http://127.0.0.1:9000/hooks")
		a.file("secrets/token", []byte("rotated"))
		report := h.Reload(context.Background())
		if len(report.Problems) > 0 || !strings.Contains(report.String(), "changed endpoints.json variables") {
			t.Errorf("reload report: %s", report)
		}
		if got := get("name=webhookUrl"); got != `200 {"value":"http://127.0.0.1:9000/hooks"}` {
			t.Errorf("after the reload, webhookUrl: %s", got)
		}
		if got := get("name=token"); got != `200 {"value":"rotated"}` {
			t.Errorf("after the reload, token: %s", got)
		}
	})
	t.Run("a reload without a required value keeps the previous ones", func(t *testing.T) {
		e.set("ORDERS_WEBHOOK_URL", "")
		report := h.Reload(context.Background())
		if len(report.Problems) != 1 || !strings.Contains(report.Problems[0].Error(), "/variables/webhookUrl: has no value (environment variable ORDERS_WEBHOOK_URL is unset or empty)") {
			t.Errorf("reload problems: %v", report.Problems)
		}
		if got := get("name=webhookUrl"); got != `200 {"value":"http://127.0.0.1:9000/hooks"}` {
			t.Errorf("after the failed reload, webhookUrl: %s", got)
		}
	})
}

// TestVariablesRequiredFailsTheLoad: a variable without a value that is
// not optional fails the start, naming it and where it was looked for.
func TestVariablesRequiredFailsTheLoad(t *testing.T) {
	t.Parallel()
	wasm := buildVariablesGuest(t)
	a := newApp(t).copyModule("server/api/vars.get.wasm", wasm).
		file("endpoints.json", []byte(`{"variables": {
			"webhookSecret": {"env": "ORDERS_WEBHOOK_SECRET", "file": "/nonexistent/endpoints/secret", "secret": true}}}`))
	for _, mode := range []host.Mode{host.Production, host.Development} {
		_, err := host.New(context.Background(), a.dir, host.Options{Mode: mode, CacheDir: testCacheDir(t), Logger: discardLogger(),
			LookupEnv: func(string) (string, bool) { return "", false }})
		want := `endpoints.json: /variables/webhookSecret: has no value (environment variable ORDERS_WEBHOOK_SECRET is unset or empty, file /nonexistent/endpoints/secret does not exist) and no default; give it one, or mark it "optional": true`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mode %v: host.New error = %v\nwant one containing %s", mode, err, want)
		}
	}
	t.Run("a tool that skips variables loads the app", func(t *testing.T) {
		h, _ := a.host(host.Options{Mode: host.Production, SkipVariables: true, LookupEnv: func(string) (string, bool) { return "", false }})
		srv := newServer(t, h)
		want := `200 {"value":"","error":"endpoints: Variable \"webhookSecret\": the app declares no such variable in endpoints.json \"variables\": host function variable_get: not found (-1)"}`
		if res := do(t, srv, "GET", "/api/vars?name=webhookSecret", ""); fmt.Sprintf("%d %s", res.status, res.body) != want {
			t.Errorf("got %d %s\nwant %s", res.status, res.body, want)
		}
	})
}

// TestSecretsNeverLeak runs every output of the host with known secret
// values, a guest that reads them and fails, reloads that fail on a
// secret, and looks for the values in all of it: the log, every observer
// event and span (what metrics, traces and the access log are made of),
// the development 500, the document and docs page, the routes, the
// configuration in effect, the load problems and reload reports.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	const envSecret, fileSecret = "env-s3cret-7d41c9", "file-s3cret-0b2e58"
	wasm := buildVariablesGuest(t)
	e := &env{m: map[string]string{"ORDERS_WEBHOOK_SECRET": envSecret}}
	a := newApp(t).copyModule("server/api/vars.get.wasm", wasm).
		file("endpoints.json", []byte(`{"variables": {
			"webhookSecret": {"env": "ORDERS_WEBHOOK_SECRET", "secret": true},
			"dbPassword": {"file": "secrets/db", "secret": true}}}`)).
		file("secrets/db", []byte(fileSecret+"\n"))

	var mu sync.Mutex
	var events strings.Builder
	record := func(kind string, ev any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&events, "%s %+v\n", kind, ev)
	}
	obs := &host.Observer{
		Request:           func(ev host.RequestEvent) { record("request", ev) },
		GuestCall:         func(ev host.GuestCallEvent) { record("guest call", ev) },
		ValidationFailure: func(ev host.ValidationEvent) { record("validation", ev) },
		PoolWait:          func(ev host.PoolEvent) { record("pool wait", ev) },
		InstanceDiscarded: func(ev host.PoolEvent) { record("discarded", ev) },
		Reload:            func(ev host.ReloadReport) { record("reload", ev) },
		Idempotency:       func(ev host.IdempotencyEvent) { record("idempotency", ev) },
		StoreError:        func(ev host.StoreErrorEvent) { record("store error", ev) },
		Span: func(ctx context.Context, ev host.SpanEvent) (context.Context, func(error)) {
			record("span", ev)
			return ctx, func(err error) { record("span end", err) }
		},
	}
	h, logs := a.host(host.Options{Mode: host.Development, LookupEnv: e.lookup, Observer: obs})
	srv := newServer(t, h)

	var outputs []string
	for _, name := range []string{"webhookSecret", "dbPassword"} {
		// The guest may read a secret (and answer it: its own doing)...
		res := do(t, srv, "GET", "/api/vars?name="+name, "")
		if res.status != 200 || (!strings.Contains(res.body, envSecret) && !strings.Contains(res.body, fileSecret)) {
			t.Fatalf("the guest did not read %s: %d %s", name, res.status, res.body)
		}
		// ...but a failure after reading it shows nothing the host adds.
		res = do(t, srv, "GET", "/api/vars?fail=true&name="+name, "")
		if res.status != 500 || !strings.Contains(res.body, "failing on purpose") {
			t.Fatalf("the failing guest answered %d %s; want a development 500 with its output", res.status, res.body)
		}
		outputs = append(outputs, fmt.Sprintf("%+v %s", res.header, res.body))
	}
	for _, path := range []string{"/openapi.json", "/docs", "/api/vars?init=maybe", "/api/nothing", "/openapi.json?x=1"} {
		res := do(t, srv, "GET", path, "")
		outputs = append(outputs, fmt.Sprintf("%d %+v %s", res.status, res.header, res.body))
	}
	// Reloads that fail on a secret: one too large, one not UTF-8, one
	// missing.
	a.file("secrets/db", []byte(strings.Repeat(fileSecret, 5000)))
	outputs = append(outputs, fmt.Sprintf("%+v", h.Reload(context.Background())))
	a.file("secrets/db", []byte(fileSecret+"\xff"))
	outputs = append(outputs, fmt.Sprintf("%+v", h.Reload(context.Background())))
	e.set("ORDERS_WEBHOOK_SECRET", "")
	outputs = append(outputs, fmt.Sprintf("%+v", h.Reload(context.Background())))

	cfg, err := json.Marshal(h.AppConfig())
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(h.Document()), fmt.Sprintf("%+v", h.Routes()), fmt.Sprintf("%+v %s", h.AppConfig(), cfg),
		fmt.Sprintf("%+v", h.Problems()), fmt.Sprintf("%+v", h.Pools()), fmt.Sprintf("%+v", h.Ready(context.Background())))
	h.Close(context.Background())
	mu.Lock()
	outputs = append(outputs, logs.String(), events.String())
	mu.Unlock()

	all := strings.Join(outputs, "\n")
	for _, want := range []string{"failing on purpose", "variables/dbPassword: the value of file", "is not UTF-8 text", "/variables/webhookSecret: has no value", "span"} {
		if !strings.Contains(all, want) {
			t.Errorf("the outputs lack %q, so the test did not run what it meant to:\n%s", want, all)
		}
	}
	for _, secret := range []string{envSecret, fileSecret} {
		if i := strings.Index(all, secret); i >= 0 {
			t.Errorf("a secret appears in the host's output: ...%s...", all[max(0, i-300):min(len(all), i+100)])
		}
	}
}

// TestCVariable: the C SDK's endpoints_variable_get reads a variable by
// the buffer convention (the size first when the buffer is too small), and
// answers ENDPOINTS_ERR_NOT_FOUND for a name the app does not declare.
func TestCVariable(t *testing.T) {
	t.Parallel()
	requireTool(t, "clang")
	src := filepath.Join(t.TempDir(), "vars.get.c")
	if err := os.WriteFile(src, []byte(`#include <stdio.h>
#include <string.h>
#include "endpoints.h"

ENDPOINTS_ROUTE();

/* Answers "<size with a 4-byte buffer> <size> <value>" for region, then
 * the result for an undeclared name. */
int32_t endpoints_handle(void) {
    uint8_t small[4], buf[64];
    char out[160];
    int32_t first = endpoints_variable_get("region", 6, small, sizeof small);
    int32_t n = endpoints_variable_get("region", 6, buf, sizeof buf);
    int32_t missing = endpoints_variable_get("regoin", 6, buf, sizeof buf);
    int len = snprintf(out, sizeof out, "%d %d %.*s %d", first, n, n > 0 ? n : 0, (const char *)buf, missing);
    endpoints_write(out, len);
    return 0;
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := newApp(t).file("endpoints.json", []byte(`{"variables": {"region": {"default": "eu-west-1"}}}`))
	if err := guestbuild.C(context.Background(), src, filepath.Join(a.dir, "server", "api", "vars.get.wasm")); err != nil {
		t.Fatal(err)
	}
	srv, _ := a.serve(host.Options{Mode: host.Development})
	if got := do(t, srv, "GET", "/api/vars", ""); got.status != 200 || got.body != "9 9 eu-west-1 -1" {
		t.Errorf("got %d %q, want 200 \"9 9 eu-west-1 -1\"", got.status, got.body)
	}
}
