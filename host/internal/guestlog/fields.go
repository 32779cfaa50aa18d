package guestlog

import (
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
)

// HostKeys are the keys of a guest's log record the host writes: slog's
// own and the attributes the host adds to every guest line. A guest field
// of one of these names is renamed by Fields.
var HostKeys = []string{slog.TimeKey, slog.LevelKey, slog.MessageKey, slog.SourceKey, RouteKey, MiddlewareKey, RequestIDKey, StreamKey}

// The keys of the attributes the host adds to a guest's log line.
const (
	RouteKey      = "route"      // the route's file
	MiddlewareKey = "middleware" // the middleware module's file, when one logs
	RequestIDKey  = "requestId"  // the request's id
	StreamKey     = "stream"     // "guest output": a line the guest wrote to stdout or stderr
)

// Fields reads a guest's log line written as slog's text handler writes a
// record without its time and level, as the Go SDK's logger does
// (endpoints.Logger): `msg=MESSAGE key=value ...`, one space between
// pairs, each key and value bare or a Go-quoted string. It returns the
// message and the other pairs as attributes, so that the host logs one
// record with the guest's fields rather than the whole line as its
// message; ok is false for any other line, which is logged whole.
//
//	msg="user created" id=4 name="Ada L" admin=true
//	// message "user created"; attributes id=4 (int64), name="Ada L", admin=true
//
// # Notes
//
//   - A bare value that reads back as written is typed: true and false a
//     bool, an integer an int64 ("4", not "04"), a number a float64
//     ("1.5", "1e+06"; not NaN nor Inf, which JSON lacks); anything else, and every quoted value, a string.
//     The text the host writes is the guest's either way; a JSON log gets
//     the number the guest most likely logged.
//   - A group's members keep the dotted keys the SDK gives them
//     ("req.method"), as slog's text handler writes them.
//   - A key the host writes itself (HostKeys: time, level, the route, the
//     request id, ...) is kept as "guest.KEY", so that a guest cannot
//     pass its line off as another route's or another request's.
func Fields(line string) (msg string, attrs []slog.Attr, ok bool) {
	rest, found := strings.CutPrefix(line, slog.MessageKey+"=")
	if !found {
		return "", nil, false
	}
	msg, _, rest, ok = token(rest, false)
	if !ok {
		return "", nil, false
	}
	for rest != "" {
		var after bool
		if rest, after = strings.CutPrefix(rest, " "); !after || rest == "" {
			return "", nil, false
		}
		key, _, r, ok := token(rest, true)
		if !ok || key == "" {
			return "", nil, false
		}
		if r, after = strings.CutPrefix(r, "="); !after {
			return "", nil, false
		}
		value, quoted, r, ok := token(r, false)
		if !ok {
			return "", nil, false
		}
		rest = r
		if slices.Contains(HostKeys, key) {
			key = "guest." + key
		}
		if quoted {
			attrs = append(attrs, slog.String(key, value))
		} else {
			attrs = append(attrs, typed(key, value))
		}
	}
	return msg, attrs, true
}

// token reads a key (up to '=') or a value (up to ' ') at the start of s:
// a Go-quoted string, or bare text without spaces, '=' or '"' (which
// slog's text handler would have quoted). It returns the text, whether it
// was quoted, and what follows it.
func token(s string, key bool) (text string, quoted bool, rest string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", false, "", false
		}
		text, err = strconv.Unquote(q)
		return text, true, s[len(q):], err == nil
	}
	end := strings.IndexAny(s, " =")
	if end < 0 {
		end = len(s)
	}
	text, rest = s[:end], s[end:]
	if text == "" || strings.Contains(text, `"`) || (!key && strings.HasPrefix(rest, "=")) {
		return "", false, "", false
	}
	return text, false, rest, true
}

// typed is the attribute of a bare value: a bool, an int64 or a float64
// when it reads back exactly as written, a string otherwise.
func typed(key, v string) slog.Attr {
	switch v {
	case "true":
		return slog.Bool(key, true)
	case "false":
		return slog.Bool(key, false)
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && strconv.FormatInt(n, 10) == v {
		return slog.Int64(key, n)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && strconv.FormatFloat(f, 'g', -1, 64) == v {
		return slog.Float64(key, f)
	}
	return slog.String(key, v)
}
