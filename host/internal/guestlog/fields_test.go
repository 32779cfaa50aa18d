package guestlog

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
)

// TestFields: a line in slog's text form without time and level (the Go
// SDK's logger) reads as its message and typed attributes; any other line
// is not read, and is logged whole.
func TestFields(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		msg        string
		attrs      []slog.Attr
		ok         bool
	}{
		{"a bare message", "msg=plain", "plain", nil, true},
		{"a quoted message and fields", `msg="user \"Ada\" created" id=4 name="Ada L" admin=true ratio=0.5 big=1e+21 empty=""`,
			`user "Ada" created`, []slog.Attr{slog.Int64("id", 4), slog.String("name", "Ada L"), slog.Bool("admin", true),
				slog.Float64("ratio", 0.5), slog.Float64("big", 1e21), slog.String("empty", "")}, true},
		{"values that do not read back stay strings", `msg=m zip=01234 plus=+1 nan=NaN inf=+Inf t=2026-01-15T09:30:00.000Z d=1.5s q="4"`,
			"m", []slog.Attr{slog.String("zip", "01234"), slog.String("plus", "+1"), slog.String("nan", "NaN"),
				slog.String("inf", "+Inf"), slog.String("t", "2026-01-15T09:30:00.000Z"), slog.String("d", "1.5s"), slog.String("q", "4")}, true},
		{"a group's dotted keys", `msg=m req.method=GET "odd key"=1`, "m", []slog.Attr{slog.String("req.method", "GET"), slog.Int64("odd key", 1)}, true},
		{"the host's keys renamed", `msg=m route=/api/admin requestId=x level=ERROR time=0 ok=1`, "m", []slog.Attr{slog.String("guest.route", "/api/admin"),
			slog.String("guest.requestId", "x"), slog.String("guest.level", "ERROR"), slog.Int64("guest.time", 0), slog.Int64("ok", 1)}, true},
		{"a C guest's text", "cache miss for user 4", "", nil, false},
		{"not msg first", "id=4 msg=m", "", nil, false},
		{"text after the message", "msg=a b", "", nil, false},
		{"a pair without a value", "msg=m id", "", nil, false},
		{"an empty bare value", "msg=m id=", "", nil, false},
		{"two spaces", "msg=m  id=4", "", nil, false},
		{"a trailing space", "msg=m ", "", nil, false},
		{"an unterminated quote", `msg="m id=4`, "", nil, false},
		{"a quote inside a bare value", `msg=m a=b"c`, "", nil, false},
		{"an '=' inside a bare value", `msg=m a=b=c`, "", nil, false},
		{"a cut line", `msg="m" a=b [truncated: the line has 9000 bytes]`, "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, attrs, ok := Fields(tc.line)
			if ok != tc.ok || msg != tc.msg || !slices.EqualFunc(attrs, tc.attrs, slog.Attr.Equal) {
				t.Errorf("Fields(%q) = %q, %v, %v; want %q, %v, %v", tc.line, msg, attrs, ok, tc.msg, tc.attrs, tc.ok)
			}
		})
	}
}

// TestLineOfFields: Line logs a line Fields reads as its message and
// attributes, and keeps the whole line as its text for a development 500.
func TestLineOfFields(t *testing.T) {
	var l Log
	line := `msg="handler failed" error="database on fire"`
	r, ok := l.Line(abi.LogError, []byte(line))
	if !ok || r.Message != "handler failed" || r.Text != line || r.Level != slog.LevelError ||
		!slices.EqualFunc(r.Attrs, []slog.Attr{slog.String("error", "database on fire")}, slog.Attr.Equal) {
		t.Errorf("Line(%q) = %+v, %v; want message \"handler failed\", error=\"database on fire\", the line as its text", line, r, ok)
	}
}
