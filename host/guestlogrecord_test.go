package host_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/host"
)

// TestGuestLogLineIsOneRecord: a guest's log line in slog's text form (the
// Go SDK's logger writes `msg="user created" id=4`) is logged as one record
// of the guest's message, level and fields, beside the route and request
// id, not as a message holding the line; a line of plain text (a C or WAT
// guest's) is its message.
func TestGuestLogLineIsOneRecord(t *testing.T) {
	const structured = `msg="user \"Ada\" created" id=4 name="Ada L" admin=true`
	const plain = `cache miss: user 4`
	m := watModule{contract: `{"summary":"logs"}`,
		handle: `(call $log (i32.const 2) (i32.const 3000) (i32.const 55))
    (call $log (i32.const 1) (i32.const 3100) (i32.const 18))
    (i32.const 0)`,
		extra: "  (data (i32.const 3000) \"" + watString(structured) + "\")\n  (data (i32.const 3100) \"" + plain + "\")\n"}
	if len(structured) != 55 || len(plain) != 18 {
		t.Fatalf("the lines' lengths changed: %d, %d", len(structured), len(plain))
	}
	logs := &logBuffer{}
	srv, _ := newApp(t).wat("server/api/logs.get.wasm", m).serve(host.Options{Mode: host.Development,
		Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	req, err := http.NewRequest("GET", srv.URL+"/api/logs", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-Id", "req-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	records := map[string]map[string]any{}
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a log line is not JSON: %v\n%s", err, line)
		}
		if r["route"] == "server/api/logs.get.wasm" {
			records[r["msg"].(string)] = r
		}
	}
	for _, want := range []map[string]any{
		{"level": "WARN", "msg": `user "Ada" created`, "id": 4.0, "name": "Ada L", "admin": true, "requestId": "req-1"},
		{"level": "INFO", "msg": plain, "requestId": "req-1"},
	} {
		got, ok := records[want["msg"].(string)]
		if !ok {
			t.Errorf("no record of message %q in the log:\n%s", want["msg"], logs)
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("record %q: %s = %v, want %v\n%s", want["msg"], k, got[k], v, logs)
			}
		}
	}
}
