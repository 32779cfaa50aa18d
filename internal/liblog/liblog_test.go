package liblog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log"
	"log/slog"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"

	"github.com/wasmendpoints/endpoints/internal/liblog"
)

// lines decodes each line of b as a JSON object.
func lines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// TestRedirect: while redirected, what the OpenTelemetry SDK and the
// standard log package write becomes JSON lines of the logger; restore
// puts the previous logger back. (go-redis's logger is the same forwarder
// behind its Printf; see TestRedisLogger.)
func TestRedirect(t *testing.T) {
	var plain bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&plain)
	var outer, inner bytes.Buffer
	restoreOuter := liblog.Redirect(slog.New(slog.NewJSONHandler(&outer, nil)))
	restore := liblog.Redirect(slog.New(slog.NewJSONHandler(&inner, nil)))
	otel.Handle(errors.New("traces export: 400 Bad Request"))
	log.Print("from the log package")
	restore()
	otel.Handle(errors.New("after restore"))
	restoreOuter()
	log.Print("after both")
	if !strings.HasSuffix(plain.String(), "after both\n") {
		t.Errorf("the log package writes %q after both restores, want its output back", plain.String())
	}

	tests := []struct {
		buf      *bytes.Buffer
		msg, lvl string
	}{
		{&inner, "OpenTelemetry: traces export: 400 Bad Request", "ERROR"},
		{&inner, "from the log package", "INFO"},
		{&outer, "OpenTelemetry: after restore", "ERROR"},
	}
	got := map[*bytes.Buffer][]map[string]any{&inner: lines(t, &inner), &outer: lines(t, &outer)}
	for _, tt := range tests {
		found := false
		for _, m := range got[tt.buf] {
			if m["msg"] == tt.msg && m["level"] == tt.lvl {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s line %q in %v", tt.lvl, tt.msg, got[tt.buf])
		}
	}
	if len(got[&inner]) != 2 {
		t.Errorf("the redirected logger got %d lines, want 2: %v", len(got[&inner]), got[&inner])
	}
}

// TestLogrLevels: the OpenTelemetry SDK's logr lines keep their levels:
// an error at error, info (V(0)) at info, its debug lines (V(8)) below.
func TestLogrLevels(t *testing.T) {
	var buf bytes.Buffer
	restore := liblog.Redirect(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	defer restore()
	l := logr.FromSlogHandler(slog.New(liblog.Handler()).Handler())
	l.Error(errors.New("boom"), "export failed")
	l.Info("started")
	l.V(8).Info("debug detail")
	got := lines(t, &buf)
	if len(got) != 2 || got[0]["level"] != "ERROR" || got[1]["msg"] != "started" {
		t.Errorf("lines = %v, want the error and the info line only", got)
	}
}

// TestLineWriter: each line written, whole or in pieces, is one record;
// blank lines are dropped; Flush logs the rest.
func TestLineWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"whole lines", []string{"building 2 route module(s)\n  ok   a.wasm\n"}, []string{"building 2 route module(s)", "  ok   a.wasm"}},
		{"split across writes", []string{"buil", "t in 3s\nrest"}, []string{"built in 3s", "rest"}},
		{"blank lines dropped", []string{"\n\nx\r\n \n"}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := liblog.LineWriter(slog.New(slog.NewJSONHandler(&buf, nil)), slog.LevelWarn)
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			w.Flush()
			var got []string
			if buf.Len() > 0 {
				for _, m := range lines(t, &buf) {
					if m["level"] != "WARN" {
						t.Errorf("level %v, want WARN", m["level"])
					}
					got = append(got, m["msg"].(string))
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("records %q, want %q", got, tt.want)
			}
		})
	}
}
