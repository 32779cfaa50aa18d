package liblog

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

// TestRedisLogger: a go-redis line becomes a warning of the redirected
// logger, marked as go-redis's.
func TestRedisLogger(t *testing.T) {
	var buf bytes.Buffer
	restore := Redirect(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer restore()
	redisLogger{}.Printf(context.Background(), "redis: failed to close connection: %v", "EOF")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("not one JSON line: %q", buf.String())
	}
	if m["level"] != "WARN" || m["msg"] != "redis: failed to close connection: EOF" || m["source"] != "go-redis" {
		t.Errorf("line = %v", m)
	}
}
