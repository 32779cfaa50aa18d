package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeJSONOnly: `serve --json` writes nothing but JSON lines on
// stdout and stderr: the start lines, the route table and the
// configuration (--log-level debug) as events, the access log, and what
// the OpenTelemetry SDK logs (an export its collector refuses), which it
// would otherwise print as plain text.
// Not parallel: it sets environment variables.
func TestServeJSONOnly(t *testing.T) {
	refused := make(chan struct{}, 1)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case refused <- struct{}{}:
		default:
		}
		http.Error(w, "no", http.StatusBadRequest) // not retried
	}))
	defer collector.Close()
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
	app := helloApp(t, `{}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr, done := &syncBuffer{}, &syncBuffer{}, make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", app, "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir(),
			"--json", "--log-level", "debug", "--admin-addr", "127.0.0.1:0"}, stdout, stderr)
	}()
	addr := waitForWithin(t, startTimeout, stdout, regexp.MustCompile(`"event":"listening","time":"[^"]+","url":"(http://[^"]+)"`), done)
	if status, body := httpGet(t, addr+"/api/hello?name=Ada"); status != 200 {
		t.Fatalf("GET /api/hello = %d %s", status, body)
	}
	<-refused
	waitForWithin(t, 60*time.Second, stderr, regexp.MustCompile(`(OpenTelemetry: .*)`), done)
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("serve exited %d\n%s", code, stderr)
		}
	case <-time.After(stopWithin):
		t.Fatal("serve did not stop")
	}

	events := map[string]map[string]any{}
	for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Errorf("a line of %s is not JSON: %q", name, line)
				continue
			}
			if ev, ok := m["event"].(string); ok {
				events[ev] = m
			}
		}
	}
	if r, _ := json.Marshal(events["routes"]["routes"]); !strings.Contains(string(r), `"path":"/api/hello"`) {
		t.Errorf("no routes event listing /api/hello: %s", r)
	}
	if _, ok := events["config"]["config"].(map[string]any); !ok {
		t.Errorf("no config event with the configuration: %v", events["config"])
	}
	for _, ev := range []string{"loaded", "tracing", "admin", "listening"} {
		if events[ev] == nil {
			t.Errorf("no %q event on stdout:\n%s", ev, stdout)
		}
	}
}

// TestServeJSONBusyAddr: with --json, a start that fails (a busy --addr)
// reports it as a JSON line too.
func TestServeJSONBusyAddr(t *testing.T) {
	t.Parallel()
	app := helloApp(t, `{}`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, out, errOut := runCLI("serve", app, "--json", "--addr", ln.Addr().String())
	var m map[string]any
	if code != exitError || out != "" || json.Unmarshal([]byte(errOut), &m) != nil || !strings.Contains(fmt.Sprint(m["msg"]), "--addr "+ln.Addr().String()) {
		t.Errorf("serve --json on a busy address = %d\nstdout: %s\nstderr: %s\nwant exit 1 and one JSON line naming --addr", code, out, errOut)
	}
}
