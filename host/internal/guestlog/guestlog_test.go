package guestlog

import (
	"fmt"
	"log/slog"
	"slices"
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
	lines := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("line %d", i))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		keep  bool
		lines int
		want  []string
	}{
		{name: "production keeps none", keep: false, lines: 3},
		{name: "development keeps them", keep: true, lines: 3, want: lines(0, 3)},
		{name: "as many as fit", keep: true, lines: OutputLines - 1, want: lines(0, OutputLines-1)},
		// A Go runtime's fatal error: its reason first, then thousands of
		// lines of stacks.
		{name: "the first OutputHead and the last, and how many between", keep: true, lines: OutputLines + 10,
			want: slices.Concat(lines(0, OutputHead), []string{"[11 lines left out]"}, lines(OutputHead+11, OutputLines+10))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l Log
			l.Reset(tc.keep)
			for i := range tc.lines {
				l.Keep(fmt.Sprintf("line %d", i))
			}
			out := l.Output()
			if !slices.Equal(out, tc.want) {
				t.Errorf("Output() = %q\nwant %q", out, tc.want)
			}
			if len(out) > OutputLines {
				t.Errorf("Output() has %d lines, more than OutputLines (%d)", len(out), OutputLines)
			}
		})
	}
}

// TestKeepFatalError: the output of a Go guest the runtime stopped (out
// of memory, here in a bundle whose other route held the memory) keeps
// its reason, which comes before a dump of every goroutine's stack: the
// development 500 showed the dump's last lines alone, and "wasm error:
// unreachable".
func TestKeepFatalError(t *testing.T) {
	var l Log
	l.Reset(true)
	l.Keep("runtime: out of memory: cannot allocate 25165824-byte block (59637760 in use)")
	l.Keep("fatal error: out of memory")
	for i := range 300 {
		l.Keep(fmt.Sprintf("runtime.frame%d()", i))
	}
	out := l.Output()
	if !slices.Contains(out, "fatal error: out of memory") || out[len(out)-1] != "runtime.frame299()" {
		t.Errorf("Output() = %q, want the fatal error and the last line", out)
	}
}
