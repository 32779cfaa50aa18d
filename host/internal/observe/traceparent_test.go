package observe

import (
	"net/http"
	"testing"
)

// TestTraceID: only a single, valid version 00 traceparent gives a trace
// id; anything else gives "".
func TestTraceID(t *testing.T) {
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, tt := range []struct {
		name   string
		values []string
		want   string
	}{
		{"valid", []string{valid}, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"none", nil, ""},
		{"two headers", []string{valid, valid}, ""},
		{"another version", []string{"01" + valid[2:]}, ""},
		{"upper case", []string{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}, ""},
		{"too long", []string{valid + "-00"}, ""},
		{"a trace id of zeros", []string{"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, ""},
		{"a parent id of zeros", []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}, ""},
		{"flags not hexadecimal", []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x"}, ""},
		{"a dash misplaced", []string{"00-4bf92f3577b34da6a3ce929d0e0e47360-0f067aa0ba902b7-01"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.values {
				h.Add(TraceparentHeader, v)
			}
			if got := TraceID(h); got != tt.want {
				t.Errorf("TraceID(%q) = %q, want %q", tt.values, got, tt.want)
			}
		})
	}
}
