// Package guestlog is what one guest call logs (abi/README.md §3, log; its
// bounds in §7): each line made valid UTF-8 and cut at abi.LogMaxLine, the
// call held to abi.LogMaxPerCall bytes of lines (the rest dropped, which
// its last line says), the ABI's levels mapped to slog's, and, in
// development, the first and last lines of the guest's output kept for
// the 500 that shows them (a panic, its stack, an abort message, a fatal
// error's reason before its goroutines' stacks).
//
// A [Log] is a field of the host's per-request call, reset for each call
// ([Log.Reset]) and owned by the goroutine serving it. The host writes the
// lines with its own logger and attributes (the route, the request id).
package guestlog

import (
	"fmt"
	"log/slog"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
)

// OutputLines is how many lines of a guest's output a development 500
// shows: enough for a Go panic's stack.
const OutputLines = 64

// OutputHead is how many of the first lines of a guest's output a
// development 500 shows whatever followed them: a Go runtime's fatal
// error says why first ("fatal error: out of memory"), then dumps every
// goroutine's stack, far more than OutputLines, whose last lines alone
// say nothing of it.
const OutputHead = 8

// Log is the log of one guest call. The zero Log takes lines and keeps
// none.
type Log struct {
	bytes int  // what the call logged, against abi.LogMaxPerCall
	keep  bool // development: output lines are kept
	// output holds the first OutputHead lines, then the last ones, at
	// most OutputLines-OutputHead-1 of them (a line says how many were
	// left out between); left counts those left out.
	output []string
	left   int
}

// Reset prepares the log for a call; keep says its output lines are kept
// for a development 500 (Keep).
func (l *Log) Reset(keep bool) { *l = Log{keep: keep} }

// Record is a guest's log line as the host logs it.
type Record struct {
	// Level is the ABI's level as slog's.
	Level slog.Level
	// Message is the record's message: the line's msg when the line is a
	// record in slog's text form (Fields: the Go SDK's), the line
	// otherwise.
	Message string
	// Attrs are the line's other fields in that form; none otherwise.
	Attrs []slog.Attr
	// Text is the line as the guest wrote it, made valid UTF-8 and cut:
	// what a development 500 shows of it (Keep).
	Text string
}

// Line returns the record a guest's log line is logged as; ok is false
// past the call's abi.LogMaxPerCall bytes, when the line is dropped. The
// line that passes the bound says the call's further lines are dropped.
func (l *Log) Line(level abi.LogLevel, line []byte) (r Record, ok bool) {
	if l.bytes > abi.LogMaxPerCall {
		return Record{}, false
	}
	l.bytes += len(line)
	r.Text = engine.LogLine(line)
	msg, attrs, fields := Fields(r.Text)
	if !fields {
		msg = r.Text
	}
	r.Message, r.Attrs = msg, attrs
	if l.bytes > abi.LogMaxPerCall {
		note := fmt.Sprintf(" [this call logged more than %d bytes; its further log lines are dropped]", abi.LogMaxPerCall)
		r.Message += note
		r.Text += note
	}
	r.Level = slog.LevelInfo
	switch level {
	case abi.LogDebug:
		r.Level = slog.LevelDebug
	case abi.LogWarn:
		r.Level = slog.LevelWarn
	case abi.LogError:
		r.Level = slog.LevelError
	}
	return r, true
}

// Keep keeps a line of the guest's output (a warning or error it logged,
// a line it wrote to stdout or stderr) when the log keeps them: the first
// OutputHead lines and the last ones, OutputLines in all with the line
// that says how many were left out between.
func (l *Log) Keep(line string) {
	if !l.keep {
		return
	}
	if len(l.output) == OutputLines-1 {
		// Full: the oldest line after the head makes room.
		l.output = append(l.output[:OutputHead], l.output[OutputHead+1:]...)
		l.left++
	}
	l.output = append(l.output, line)
}

// Output is the lines kept, oldest first (with, after the first
// OutputHead, a line that says how many were left out); nil outside
// development.
func (l *Log) Output() []string {
	if l.left == 0 {
		return l.output
	}
	out := make([]string, 0, len(l.output)+1)
	out = append(out, l.output[:OutputHead]...)
	out = append(out, fmt.Sprintf("[%d lines left out]", l.left))
	return append(out, l.output[OutputHead:]...)
}
