// Package liblog sends what libraries log through their own process-wide
// loggers to the command's slog.Logger, so that `endpoints serve --json`
// writes nothing but JSON lines: go-redis (reconnects, pool errors, which
// it prints as plain text on stderr), the OpenTelemetry SDK (failed
// exports, through its logr logger and error handler) and the standard
// log package.
//
//	restore := liblog.Redirect(logger)
//	defer restore()
//
// Those loggers are global, so Redirect installs a forwarder once and
// points it at the newest logger; restore points it back at the one
// before. While nothing is redirected the forwarder writes plain text to
// stderr, as the libraries did.
package liblog

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	goredis "github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
)

// target is the handler the forwarder writes to; nil: plain text on
// stderr.
var target atomic.Pointer[slog.Handler]

var (
	installOnce sync.Once
	mu          sync.Mutex // serialises Redirect and restore
)

// fallback is where lines go while nothing is redirected.
var fallback slog.Handler = slog.NewTextHandler(os.Stderr, nil)

// Redirect sends the libraries' log lines to l until restore is called:
// go-redis's at warn level (it logs only problems), the OpenTelemetry
// SDK's at its own levels (its errors, failed exports among them, at
// error; its info and debug lines below slog's info level), the standard log package's at info
// (slog.SetDefault). Calls nest: restore reinstates what the Redirect
// before it set.
func Redirect(l *slog.Logger) (restore func()) {
	installOnce.Do(func() {
		goredis.SetLogger(redisLogger{})
		otel.SetLogger(logr.FromSlogHandler(forward{}.WithAttrs([]slog.Attr{slog.String("source", "opentelemetry")})))
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			slog.New(forward{}).Error("OpenTelemetry: "+err.Error(), "source", "opentelemetry")
		}))
	})
	mu.Lock()
	defer mu.Unlock()
	h := l.Handler()
	prev := target.Swap(&h)
	prevDefault, prevOut, prevFlags := slog.Default(), log.Writer(), log.Flags()
	slog.SetDefault(l)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		target.Store(prev)
		// SetDefault of slog's own default handler leaves the log
		// package writing to l: its output is restored too.
		slog.SetDefault(prevDefault)
		log.SetOutput(prevOut)
		log.SetFlags(prevFlags)
	}
}

// current is the handler lines go to now.
func current() slog.Handler {
	if h := target.Load(); h != nil {
		return *h
	}
	return fallback
}

// redisLogger is go-redis's logger (its internal.Logging interface).
type redisLogger struct{}

// Printf logs one go-redis line at warn level.
func (redisLogger) Printf(ctx context.Context, format string, v ...any) {
	slog.New(forward{}).WarnContext(ctx, fmt.Sprintf(format, v...), "source", "go-redis")
}

// forward is a slog.Handler that hands each record to the current target,
// with the attributes and groups added to it on the way (WithAttrs,
// WithGroup), replayed in order.
type forward struct {
	ops []func(slog.Handler) slog.Handler
}

func (f forward) handler() slog.Handler {
	h := current()
	for _, op := range f.ops {
		h = op(h)
	}
	return h
}

// Enabled reports whether the current target logs at level.
func (f forward) Enabled(ctx context.Context, level slog.Level) bool {
	return current().Enabled(ctx, level)
}

// Handle hands r to the current target.
func (f forward) Handle(ctx context.Context, r slog.Record) error {
	return f.handler().Handle(ctx, r)
}

// WithAttrs returns a forwarder that adds attrs.
func (f forward) WithAttrs(attrs []slog.Attr) slog.Handler {
	return f.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(attrs) })
}

// WithGroup returns a forwarder that opens the group name.
func (f forward) WithGroup(name string) slog.Handler {
	return f.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

func (f forward) with(op func(slog.Handler) slog.Handler) forward {
	ops := make([]func(slog.Handler) slog.Handler, len(f.ops), len(f.ops)+1)
	copy(ops, f.ops)
	return forward{ops: append(ops, op)}
}

// Handler returns the handler the libraries' loggers write through: the
// logger of the newest Redirect, or plain text on stderr.
func Handler() slog.Handler { return forward{} }

// LineWriter returns a writer that logs each line written to it (without
// its newline; empty lines dropped) as one record of l at level: for
// output that was written as text, such as a build's report, under --json.
// Call Flush to log a last line without a newline.
func LineWriter(l *slog.Logger, level slog.Level) *Lines {
	return &Lines{l: l, level: level}
}

// Lines is the writer of LineWriter. It is safe for concurrent use.
type Lines struct {
	mu      sync.Mutex
	l       *slog.Logger
	level   slog.Level
	partial []byte
}

// Write logs each complete line of p; a part after the last newline waits
// for the next Write or Flush.
func (w *Lines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.log(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
	return len(p), nil
}

// Flush logs what is left after the last newline.
func (w *Lines) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log(w.partial)
	w.partial = nil
}

func (w *Lines) log(line []byte) {
	if len(bytes.TrimSpace(line)) > 0 {
		w.l.Log(context.Background(), w.level, string(bytes.TrimRight(line, "\r")))
	}
}
