package endpoints

import (
	"context"
	"encoding"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/abi"
)

// Logger returns a logger that writes to the host's log, where each line
// is tagged with the route. Records are formatted like slog's text handler
// without time and level, and the host logs each as one record of its
// level, message and attributes, with the route and the request id:
//
//	endpoints.Logger().Info("user created", "id", 4)
//	// sends the line msg="user created" id=4 at info level, which the
//	// host logs as (text):
//	// level=INFO msg="user created" id=4 route=... requestId=...
//	// or (JSON): {"level":"INFO","msg":"user created","id":4,"route":...}
//
// Levels map to [abi.LogLevel]: below Info is debug, below Warn info, below
// Error warn, the rest error. Every level is passed on; the host filters.
func Logger() *slog.Logger { return logger }

var logger = slog.New(&hostHandler{})

// hostHandler is a slog.Handler that formats records as slog's text
// handler does, without time and level (the host adds both), and sends
// each through the log host function at the record's level.
//
// It is written here rather than wrapping slog.TextHandler, which costs
// about 15µs a line in a Go WebAssembly module; this costs a tenth.
type hostHandler struct {
	prefix string // qualifies attribute keys: "group.sub."
	attrs  []byte // attributes of WithAttrs, formatted
}

// Enabled reports true: the host decides what to keep.
func (h *hostHandler) Enabled(context.Context, slog.Level) bool { return true }

// Handle formats r and sends it at r's level.
func (h *hostHandler) Handle(_ context.Context, r slog.Record) error {
	buf := make([]byte, 0, 128)
	buf = append(buf, slog.MessageKey...)
	buf = append(buf, '=')
	buf = appendText(buf, r.Message)
	buf = append(buf, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		buf = appendAttr(buf, h.prefix, a)
		return true
	})
	hostLog(logLevel(r.Level), string(buf))
	return nil
}

// WithAttrs returns a handler that adds attrs to every record.
func (h *hostHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	h2 := &hostHandler{prefix: h.prefix, attrs: slices.Clip(h.attrs)}
	for _, a := range attrs {
		h2.attrs = appendAttr(h2.attrs, h.prefix, a)
	}
	return h2
}

// WithGroup returns a handler that qualifies later attributes with name.
func (h *hostHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &hostHandler{prefix: h.prefix + name + ".", attrs: h.attrs}
}

// appendAttr appends " key=value", or one such pair per member of a group;
// empty attributes and empty groups are dropped, as slog handlers do.
func appendAttr(buf []byte, prefix string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return buf
	}
	if a.Value.Kind() == slog.KindGroup {
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, ga := range a.Value.Group() {
			buf = appendAttr(buf, prefix, ga)
		}
		return buf
	}
	buf = append(buf, ' ')
	buf = appendText(buf, prefix+a.Key)
	buf = append(buf, '=')
	v := a.Value
	switch v.Kind() {
	case slog.KindString:
		return appendText(buf, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(buf, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(buf, v.Uint64(), 10)
	case slog.KindFloat64:
		return strconv.AppendFloat(buf, v.Float64(), 'g', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(buf, v.Bool())
	case slog.KindDuration:
		return appendText(buf, v.Duration().String())
	case slog.KindTime:
		return v.Time().AppendFormat(buf, "2006-01-02T15:04:05.000Z07:00")
	}
	switch x := v.Any().(type) {
	case error:
		return appendText(buf, x.Error())
	case encoding.TextMarshaler:
		if b, err := x.MarshalText(); err == nil {
			return appendText(buf, string(b))
		}
	case []byte:
		return strconv.AppendQuote(buf, string(x))
	}
	return appendText(buf, fmt.Sprintf("%+v", v.Any()))
}

// appendText appends s, quoted when it is empty or holds spaces, '=', '"'
// or unprintable characters, as slog's text handler does.
func appendText(buf []byte, s string) []byte {
	if s == "" {
		return append(buf, `""`...)
	}
	for _, r := range s {
		if r == ' ' || r == '=' || r == '"' || r == utf8.RuneError || !strconv.IsPrint(r) {
			return strconv.AppendQuote(buf, s)
		}
	}
	return append(buf, s...)
}

// logLevel maps a slog level to the ABI's four levels.
func logLevel(l slog.Level) abi.LogLevel {
	switch {
	case l < slog.LevelInfo:
		return abi.LogDebug
	case l < slog.LevelWarn:
		return abi.LogInfo
	case l < slog.LevelError:
		return abi.LogWarn
	}
	return abi.LogError
}
