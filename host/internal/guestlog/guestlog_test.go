package guestlog

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level abi.LogLevel
		line  string
		want  slog.Level
	}{
		{"debug", abi.LogDebug, "d", slog.LevelDebug},
		{"info", abi.LogInfo, "i", slog.LevelInfo},
		{"warn", abi.LogWarn, "w", slog.LevelWarn},
		{"error", abi.LogError, "e", slog.LevelError},
		{"invalid UTF-8 made valid", abi.LogInfo, "a\xffb", slog.LevelInfo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l Log
			r, ok := l.Line(tc.level, []byte(tc.line))
			want := strings.ToValidUTF8(tc.line, "\uFFFD")
			if !ok || r.Level != tc.want || r.Message != want || r.Text != want || r.Attrs != nil {
				t.Errorf("Line = %+v, %v; want message and text %q, level %v, no attributes", r, ok, want, tc.want)
			}
		})
	}
}

func TestLineBudget(t *testing.T) {
	var l Log
	line := []byte(strings.Repeat("x", abi.LogMaxLine))
	n := 0
	for {
		r, ok := l.Line(abi.LogInfo, line)
		if !ok {
			break
		}
		n++
		if dropped := strings.Contains(r.Message, "further log lines are dropped"); dropped != (n*len(line) > abi.LogMaxPerCall) {
			t.Fatalf("line %d says its successors are dropped: %v", n, dropped)
		}
	}
	if want := abi.LogMaxPerCall/len(line) + 1; n != want {
		t.Errorf("%d lines of %d bytes logged, want %d (abi.LogMaxPerCall %d)", n, len(line), want, abi.LogMaxPerCall)
	}
	l.Reset(false)
	if _, ok := l.Line(abi.LogInfo, line); !ok {
		t.Errorf("after Reset the call's budget was not restored")
	}
}

func TestKeep(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keep  bool
		lines int
		want  []string // first and last kept
	}{
		{name: "production keeps none", keep: false, lines: 3},
		{name: "development keeps them", keep: true, lines: 3, want: []string{"line 0", "line 2"}},
		{name: "the last OutputLines", keep: true, lines: OutputLines + 10, want: []string{"line 10", fmt.Sprintf("line %d", OutputLines+9)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l Log
			l.Reset(tc.keep)
			for i := range tc.lines {
				l.Keep(fmt.Sprintf("line %d", i))
			}
			out := l.Output()
			if tc.want == nil {
				if out != nil {
					t.Errorf("Output() = %q, want none", out)
				}
				return
			}
			if len(out) > OutputLines || out[0] != tc.want[0] || out[len(out)-1] != tc.want[1] {
				t.Errorf("Output() has %d lines from %q to %q; want at most %d, from %q to %q", len(out), out[0], out[len(out)-1], OutputLines, tc.want[0], tc.want[1])
			}
		})
	}
}
