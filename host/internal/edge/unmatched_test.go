package edge

import (
	"strings"
	"testing"
)

// TestUnmatchedMessages: what unmatched says of an entry that applies to
// no route names what is missing, an app without any route too (whose
// message named an empty list of methods: "no route of the app serves ").
func TestUnmatchedMessages(t *testing.T) {
	hello := []Served{{Pattern: "/api/hello", Methods: []string{"GET"}}}
	tests := []struct {
		name              string
		patterns, methods []string
		routes            []Served
		pointer, msg      string
	}{
		{"every route of an app without routes", nil, nil, nil, "", "the app has no route"},
		{"a method of an app without routes", nil, []string{"POST"}, nil, "/methods", "no route of the app serves POST"},
		{"a method no route serves", nil, []string{"POST", "DELETE"}, hello, "/methods", "no route of the app serves POST or DELETE"},
		{"a pattern of an app without routes", []string{"/api/**"}, nil, nil, "/routes/0", `pattern "/api/**" matches no route of the app`},
		{"every route of an app with one", nil, nil, hello, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pointers, msgs := unmatched(tt.patterns, tt.methods, tt.routes)
			if tt.msg == "" {
				if len(pointers) != 0 {
					t.Fatalf("unmatched = %q %q, want nothing", pointers, msgs)
				}
				return
			}
			if len(pointers) != 1 || pointers[0] != tt.pointer || msgs[0] != tt.msg {
				t.Fatalf("unmatched = %q %q, want [%q] [%q]", pointers, msgs, tt.pointer, tt.msg)
			}
			if strings.HasSuffix(msgs[0], " ") {
				t.Errorf("message %q ends with a space: an empty list", msgs[0])
			}
		})
	}
}
